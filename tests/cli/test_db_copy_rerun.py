"""``ikgui db copy`` run again brings the destination up to date (issue 15, ODDS item 1).

After a first copy the source changes the way ikgui changes a history in place: a
conversation renamed, one pinned, one trashed, one retagged, a draft typed, and a reply
that was still streaming saved in full. A second copy makes the destination equal to
the source, row for row and column for column, with the search index right (the new
title and the finished reply are found); a third copy writes nothing. Both directions,
against a real PostgreSQL server (``pg_url``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ikgui.domain.events import Kind
from ikgui.storage import open_store
from ikgui.storage.copy import copy_history
from ikgui.storage.models import ConversationRow
from tests.cli.conftest import Cli
from tests.cli.test_db_copy import dump, rich_history


def _titled(store: Any, start: str) -> str:
    """The id of the conversation whose title starts so (in the Trash or not)."""
    rows = ConversationRow.select(ConversationRow.id, ConversationRow.title).tuples()
    return next(
        id_ for id_, title in rows.execute(store.database) if (title or "").startswith(start)
    )


def _streaming_reply(store: Any) -> int:
    """A reply saved part-way while it streams (before the first copy)."""
    conv = _titled(store, "SQLite WAL")
    data = {"streaming": True, "model": "m"}
    return store.append_event(conv, Kind.ASSISTANT, "the lighthouse keeper", data).id


def change_history(store: Any, reply: int) -> None:
    """What happens to a copied history in place (after the first copy)."""
    root = _titled(store, "SQLite WAL")
    store.update_conversation(root, title="Quokka migration notes", title_by_user=True)
    store.set_pinned([_titled(store, "Variant")], True)
    store.update_conversation(_titled(store, "Variant"), trashed_at=None)  # out of the Trash
    odd = _titled(store, "Odd")
    store.update_conversation(odd, trashed_at=1800000000.25, draft="a new draft")
    store.set_tags(root, ["design", "wal", "zebra"])  # "sqlite" removed, two added
    full = "the lighthouse keeper watched the xylophone orchestra"
    store.update_event(reply, full, {"model": "m", "usage": {"input": 3, "output": 9}})


@pytest.fixture(params=["to", "from"])
def stores(request: pytest.FixtureRequest, tmp_path: Path, pg_url: str) -> Iterator[Any]:
    """(source, destination, destination kind): SQLite → PostgreSQL, or the other way."""
    local = open_store(tmp_path / "local.db")
    remote = open_store(pg_url)
    try:
        if request.param == "to":
            yield local, remote, "postgresql"
        else:
            yield remote, local, "sqlite"
    finally:
        remote.close()
        local.close()


def test_a_second_copy_brings_changes_across_and_a_third_writes_nothing(
    stores: Any, tmp_path: Path
) -> None:
    source, dest, kind = stores
    rich_history(source, tmp_path)
    reply = _streaming_reply(source)
    copy_history(source.database, dest.database, dest_kind=kind, batch=3)
    assert not dest.search("xylophone") and not dest.search("quokka")
    change_history(source, reply)
    rows = dump(source)

    again = copy_history(source.database, dest.database, dest_kind=kind, batch=3)

    assert dump(dest) == rows  # every column of every row, ids included
    assert (again.conversations, again.events) == (0, 0)
    assert (again.updated_conversations, again.updated_events) == (3, 1)
    assert (again.tags, again.removed_tags) == (2, 1)
    summary = again.summary("X")
    assert summary.startswith("Copied 0 conversations, 0 events, 2 tags to X; ")
    assert "; updated 3 conversations, 1 event; removed 1 tag (" in summary
    [hit] = dest.search("xylophone orchestra")
    assert hit.event_id == reply
    assert [h.conversation.title for h in dest.search("quokka")] == ["Quokka migration notes"]

    third = copy_history(source.database, dest.database, dest_kind=kind)
    assert (third.updated_conversations, third.updated_events, third.removed_tags) == (0, 0, 0)
    assert third.skipped == sum(map(len, rows))
    assert third.summary("X").startswith("Copied 0 conversations, 0 events, 0 tags to X (")
    assert dump(dest) == rows


def test_an_event_changed_to_the_same_length_is_noticed(stores: Any, tmp_path: Path) -> None:
    source, dest, kind = stores
    rich_history(source, tmp_path)
    reply = _streaming_reply(source)
    copy_history(source.database, dest.database, dest_kind=kind)
    source.update_event(reply, "the lighthouse keeperS", {"streaming": True, "model": "m"})
    source.update_event(reply, "the lighthouse KEEPERS", {"streaming": True, "model": "n"})
    source.settle()  # (PostgreSQL: a growing reply is saved by the database thread)
    again = copy_history(source.database, dest.database, dest_kind=kind)
    assert again.updated_events == 1
    assert dump(dest) == dump(source)


def test_a_tag_whose_id_is_another_conversations_there_gets_a_new_id(
    tmp_path: Path,
) -> None:
    history = open_store(tmp_path / "source.db")
    rich_history(history, tmp_path)
    with history, open_store(tmp_path / "dest.db") as dest:
        copy_history(history.database, dest.database, dest_kind="sqlite")
        root = _titled(history, "SQLite WAL")
        own = dataclasses.replace(
            history.get_conversation(root), id="dest-own", parent=None, tags=("mine",)
        )
        dest.insert_conversation(own)  # the destination's own conversation and tag
        [(mine,)] = dest.database.execute_sql("SELECT id FROM tag WHERE name = 'mine'")
        history.set_tags(root, ["alpha", "beta", "gamma"])
        assert mine in {row[0] for row in dump(history)[2]}  # the same id, another tag
        again = copy_history(history.database, dest.database, dest_kind="sqlite")
        assert (again.tags, again.removed_tags) == (3, 2)  # design, sqlite out
        assert set(dest.get_conversation(root).tags) == {"alpha", "beta", "gamma"}
        assert dest.get_conversation("dest-own").tags == ("mine",)
        ours = {(row[1], row[2]) for row in dump(history)[2]}
        there = {(row[1], row[2]) for row in dump(dest)[2]}
        assert there == ours | {("dest-own", "mine")}


def test_the_command_line_says_what_a_second_copy_updated(
    cli: Cli, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    cli.home.mkdir(parents=True, exist_ok=True)
    with open_store(cli.home / "ikgui.db") as store:
        rich_history(store, tmp_path)
        reply = _streaming_reply(store)
    cli.ok("db", "copy", "--to", pg_url)
    with open_store(cli.home / "ikgui.db") as store:
        change_history(store, reply)
        rows = dump(store)
    where = "PostgreSQL ikgui@" + pg_url.split("@", 1)[1]
    out = cli.ok("db", "copy", "--to", pg_url).out.strip()
    same = sum(map(len, rows)) - 3 - 1 - 2
    assert out == (
        f"Copied 0 conversations, 0 events, 2 tags to {where}; updated 3 conversations, "
        f"1 event; removed 1 tag ({same} already there)."
    )
    monkeypatch.setenv("IKGUI_DATABASE_URL", pg_url)
    assert "Quokka migration notes" in cli.ok("conv", "search", "quokka").out
    assert "xylophone" in cli.ok("conv", "search", "xylophone").out


def test_smart_folders_and_projects_are_copied_and_kept_up_to_date(
    stores: Any, tmp_path: Path
) -> None:
    from ikgui.domain.attachments import Attachment, StoredFile
    from ikgui.domain.folders import Project, SmartFolder
    from ikgui.domain.library import folders

    source, dest, kind = stores
    rich_history(source, tmp_path)
    brief = StoredFile(Attachment("ef" * 32, "brief.md", "text/markdown", 5), b"brief", "brief")
    source.put_files([brief])
    folders.set_project(source, Project("work/acme", model="m1", files=(brief.attachment,)))
    folders.save_smart_folder(source, "Acme", "invoice", ["work"])
    folders.save_smart_folder(dest, "Theirs", "", ["mine"])  # the destination's own
    first = copy_history(source.database, dest.database, dest_kind=kind)
    assert first.folders == 2
    assert "; copied 2 smart folders or projects" in first.summary("X")
    assert dest.projects() == source.projects()
    assert dest.read_files([brief.sha256])[brief.sha256].content == b"brief"
    assert [f.name for f in dest.smart_folders()] == ["Acme", "Theirs"]
    folders.set_project(source, Project("work/acme", model="m2"))
    again = copy_history(source.database, dest.database, dest_kind=kind)
    assert again.folders == 1 and dest.projects()[0].model == "m2"
    assert copy_history(source.database, dest.database, dest_kind=kind).folders == 0
    assert dest.smart_folders()[0] == SmartFolder("Acme", "invoice", ("work",))
