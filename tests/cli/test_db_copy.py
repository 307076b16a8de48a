"""Moving history (issue 14 item 6): ``ikgui.storage.copy`` and ``ikgui db copy/status``.

A copy keeps every row of every table (ids, fork links, marks, trashed state, drafts,
pins, usage), is safe to run again (the second run copies nothing and says so; what
changed in between is updated: tests/cli/test_db_copy_rerun.py), and the copied history
answers the command line. The PostgreSQL side runs against a real
server (``pg_url``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.errors import StorageError
from ikgui.domain.events import Kind
from ikgui.domain.session.demo import build_demo
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings
from ikgui.storage import copy as copy_module
from ikgui.storage import open_store
from ikgui.storage.copy import copy_history, parents_first
from ikgui.storage.models import ConversationRow, EventRow, TagRow
from ikgui.storage.pg_migrations import PG_MIGRATIONS
from tests.cli.conftest import Cli
from tests.support.pg_server import PgServer

Rows = list[list[tuple[Any, ...]]]


def rich_history(store: Any, folder: Path) -> None:
    """The demo (forks, a mark, a rewind, a prompt edit, tags, usage) plus a clear, a
    retry, a draft, a pin, a conversation in the Trash, odd text and id gaps."""
    session = Session(store, Settings(), registry=default_registry(), export_dir=folder / "x")
    build_demo(session)
    session.new_conversation(None)
    gone = session.conversation.id
    session.append(Kind.USER, "to be deleted (leaves a gap in the event ids)")
    session.new_conversation(None)
    session.append(Kind.USER, "naïve “quotes” — ümlaut 🎉 \\ back\\slash\n\ttab")
    conv = session.conversation.id
    store.append_event(conv, Kind.ASSISTANT, "", {"failed": True, "note": [1, 2.5, None]})
    store.append_event(conv, Kind.RETRY, "", {"target_event_id": 1})
    store.append_event(conv, Kind.CLEAR, "", None, created_at=1234567890.123456789)
    store.update_conversation(conv, draft="half a thought…", title="Odd “text”")
    store.set_tags(conv, ["zeta", "alpha"])
    store.set_tags(conv, ["alpha"])  # a tag id gap
    store.set_pinned([conv], True)
    trashed = next(
        c.id for c in store.list_conversations(None) if (c.title or "").startswith("Variant")
    )
    store.update_conversation(trashed, trashed_at=1700000000.5)
    store.delete_conversations([gone])


def dump(store: Any) -> Rows:
    """Every row of every table, in id order."""
    return [
        list(model.select().order_by(model._meta.primary_key).tuples().execute(store.database))
        for model in (ConversationRow, EventRow, TagRow)
    ]


@pytest.fixture
def history(tmp_path: Path) -> Any:
    store = open_store(tmp_path / "source.db")
    rich_history(store, tmp_path)
    yield store
    store.close()


def test_sqlite_to_sqlite_is_lossless_and_a_second_run_copies_nothing(
    history: Any, tmp_path: Path
) -> None:
    rows = dump(history)
    assert any(row[1] is not None for row in rows[0])  # forks
    assert {"mark", "rewind", "clear", "retry", "prompt_edit"} <= {row[2] for row in rows[1]}
    with open_store(tmp_path / "dest.db") as dest:
        seen: list[tuple[str, int, int]] = []
        copied = copy_history(
            history.database,
            dest.database,
            dest_kind="sqlite",
            batch=5,
            progress=lambda what, done, total: seen.append((what, done, total)),
        )
        assert (copied.conversations, copied.events, copied.tags) == tuple(map(len, rows))
        assert copied.skipped == 0
        assert dump(dest) == rows
        assert ("events", 5, len(rows[1])) in seen and seen[-1][1:] == (len(rows[2]),) * 2
        assert dest.search("benchmark 1M")  # the full-text index covers the copied events
        assert dest.search("WAL network")  # and the titles
        again = copy_history(history.database, dest.database, dest_kind="sqlite")
        assert (again.conversations, again.events, again.tags) == (0, 0, 0)
        assert again.skipped == sum(map(len, rows))
        assert again.summary("X").startswith("Copied 0 conversations, 0 events, 0 tags to X (")
        assert dump(dest) == rows


def test_a_copy_stopped_half_way_finishes_on_the_next_run_with_search_right(
    history: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = dump(history)
    pages = copy_module._pages

    def two_pages(model: Any, source: Any, batch: int) -> Iterator[list[Any]]:
        for number, page in enumerate(pages(model, source, batch)):
            if model is EventRow and number == 2:
                raise OSError("the cable was pulled")
            yield page

    with open_store(tmp_path / "dest.db") as dest:
        monkeypatch.setattr(copy_module, "_pages", two_pages)
        with pytest.raises(OSError):
            copy_history(history.database, dest.database, dest_kind="sqlite", batch=4)
        assert len(dump(dest)[1]) == 8
        monkeypatch.setattr(copy_module, "_pages", pages)
        rest = copy_history(history.database, dest.database, dest_kind="sqlite", batch=4)
        assert (rest.conversations, rest.events) == (0, len(rows[1]) - 8)
        assert dump(dest) == rows
        for words in ("benchmark 1M", "ümlaut", "shm network drives", "lighthouse"):
            expected = [h.conversation.id for h in history.search(words)]
            assert expected and [h.conversation.id for h in dest.search(words)] == expected


def test_a_tag_renamed_in_the_destination_is_set_back_to_the_sources(
    history: Any, tmp_path: Path
) -> None:
    rows = dump(history)
    with open_store(tmp_path / "dest.db") as dest:
        copy_history(history.database, dest.database, dest_kind="sqlite")
        renamed = dest.rename_tag("sqlite", "embedded")  # the same tag ids, another name
        again = copy_history(history.database, dest.database, dest_kind="sqlite")
        assert renamed and again.tags == renamed and again.removed_tags == renamed
        root = next(c for c in dest.list_conversations(None) if c.title == "SQLite WAL for the app")
        assert set(root.tags) == {"design", "sqlite"}
        assert dump(dest) == rows


def test_a_destination_with_another_history_is_refused_untouched(
    history: Any, tmp_path: Path
) -> None:
    with open_store(tmp_path / "other.db") as other:
        session = Session(other, Settings(), registry=default_registry())
        session.new_conversation(None)
        session.append(Kind.USER, "someone else's history")
        before = dump(other)
        with pytest.raises(StorageError, match="already holds a different history"):
            copy_history(history.database, other.database, dest_kind="sqlite")
        assert dump(other) == before


def test_parents_come_before_their_forks() -> None:
    rows = [("c", "b"), ("b", "a"), ("x", "gone"), ("a", None)]
    assert [row[0] for row in parents_first(rows, 1)] == ["x", "a", "b", "c"]


# -- the command line against a real PostgreSQL server -------------------------------------


def _fill(cli: Cli, tmp_path: Path) -> Rows:
    cli.home.mkdir(parents=True, exist_ok=True)
    with open_store(cli.home / "ikgui.db") as store:
        rich_history(store, tmp_path)
        return dump(store)


def test_round_trip_through_postgresql_is_lossless(
    cli: Cli, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    rows = _fill(cli, tmp_path)
    where = "PostgreSQL ikgui@" + pg_url.split("@", 1)[1]
    first = cli.ok("db", "copy", "--to", pg_url).out.strip()
    counts = f"{len(rows[0])} conversations, {len(rows[1])} events, {len(rows[2])} tags"
    assert first == f"Copied {counts} to {where} (0 already there)."
    again = cli.ok("db", "copy", "--to", pg_url).out.strip()
    total = sum(map(len, rows))
    assert again == f"Copied 0 conversations, 0 events, 0 tags to {where} ({total} already there)."
    with open_store(pg_url) as pg:
        assert dump(pg) == rows
    back = Cli(tmp_path / "back", cli.capsys)
    out = back.ok("db", "copy", "--from", pg_url).out.strip()
    assert out == f"Copied {counts} to SQLite {back.home / 'ikgui.db'} (0 already there)."
    with open_store(back.home / "ikgui.db") as copy:
        assert dump(copy) == rows
        assert copy.search("benchmark 1M")


def test_the_copied_history_answers_the_command_line(
    cli: Cli, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _fill(cli, tmp_path)
    cli.ok("db", "copy", "--to", pg_url)
    local_list = cli.ok("conv", "list").out
    monkeypatch.setenv("IKGUI_DATABASE_URL", pg_url)
    assert cli.ok("conv", "list").out == local_list
    assert "SQLite WAL for the app" in cli.ok("conv", "search", "benchmark").out
    status = cli.ok("db", "status").out.splitlines()
    assert status[0] == "Store: PostgreSQL ikgui@" + pg_url.split("@", 1)[1]
    assert f"Conversations: {len(rows[0])} (1 in the Trash)" in status
    assert f"Events: {len(rows[1])}" in status and f"Tags: {len(rows[2])}" in status
    assert f"Schema version: {len(PG_MIGRATIONS)}" in status
    # New events get ids after the copied ones (the sequence was moved past them).
    new = cli.new_id("/title after the copy")
    assert cli.ok("conv", "show", new).code == 0
    with open_store(pg_url) as pg:
        assert max(row[0] for row in dump(pg)[1]) > max(row[0] for row in rows[1])


def test_a_copy_to_postgresql_leaves_the_planner_its_statistics(
    cli: Cli, tmp_path: Path, pg_url: str
) -> None:
    """Without them the planner takes the copied tables for empty (a folder's first page
    then scans every conversation) until autovacuum comes by; ``last_analyze`` is set
    only by an ANALYZE run by hand, not by autovacuum's."""
    _fill(cli, tmp_path)
    cli.ok("db", "copy", "--to", pg_url)
    with open_store(pg_url) as pg:
        analyzed = pg.database.execute_sql(  # type: ignore[attr-defined]
            "SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL"
        ).fetchall()
    assert {"conversation", "event", "tag"} <= {row[0] for row in analyzed}


def test_status_of_the_sqlite_file(cli: Cli, tmp_path: Path) -> None:
    rows = _fill(cli, tmp_path)
    status = cli.ok("db", "status").out.splitlines()
    assert status[0] == f"Store: SQLite {cli.home / 'ikgui.db'}"
    assert f"Conversations: {len(rows[0])} (1 in the Trash)" in status


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--to", "mysql://me@localhost/db"), "is not a PostgreSQL URL"),
        (("--to", "postgresql://ikgui@127.0.0.1:1/db"), "Cannot reach the database at 127.0.0.1:1"),
        (("--from", "postgresql://me:s3cr3t@127.0.0.1/db"), "contains a password"),
    ],
)
def test_copy_errors_are_one_plain_line(
    cli: Cli, tmp_path: Path, args: tuple[str, str], words: str
) -> None:
    _fill(cli, tmp_path)
    result = cli("db", "copy", *args)
    assert result.code == 1
    assert result.err.startswith("Error: ") and words in result.err
    assert "Traceback" not in result.err and "s3cr3t" not in result.err


def test_a_server_lost_mid_copy_is_one_line_and_the_next_run_finishes(
    cli: Cli,
    tmp_path: Path,
    pg_url: str,
    pg_server: PgServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = _fill(cli, tmp_path)

    class StopTheServer:
        def __call__(self, what: str, done: int, total: int) -> None:
            if what == "events" and pg_server.running:
                pg_server.stop("immediate")

    monkeypatch.setattr(copy_module.copy_history, "__kwdefaults__", {"progress": None, "batch": 5})
    monkeypatch.setattr("ikgui.cli.db.ProgressLine", StopTheServer)
    result = cli("db", "copy", "--to", pg_url)
    assert result.code == 1 and result.err.startswith("Error: ")
    assert "run the same command again" in result.err and "Traceback" not in result.err
    pg_server.start()
    monkeypatch.undo()
    rest = cli.ok("db", "copy", "--to", pg_url).out
    assert rest.startswith("Copied 0 conversations, ") and " 0 events" not in rest
    with open_store(pg_url) as pg:
        assert dump(pg) == rows


def test_writing_to_a_half_copied_database_says_to_finish_the_copy(
    cli: Cli, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 13: a copy killed half-way leaves the ids' counters behind the copied
    rows; a write then says so in one sentence, with what to run (no raw ``DETAIL``)."""
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    rows = _fill(cli, tmp_path)
    pages = copy_module._pages

    def killed(model: Any, source: Any, batch: int) -> Iterator[list[Any]]:
        for number, page in enumerate(pages(model, source, batch)):
            if model is EventRow and number == 2:
                raise KeyboardInterrupt  # (as a kill: nothing after it runs)
            yield page

    monkeypatch.setattr(copy_module.copy_history, "__kwdefaults__", {"progress": None, "batch": 5})
    monkeypatch.setattr(copy_module, "_pages", killed)
    # A killed process runs no clean-up: the id counters are not moved past the copy.
    monkeypatch.setattr(copy_module, "_move_sequences", lambda dest: None)
    assert cli("db", "copy", "--to", pg_url).code != 0
    monkeypatch.undo()
    monkeypatch.setenv("IKGUI_DATABASE_URL", pg_url)
    result = cli("run", "/title after the stopped copy")
    assert result.code == 1, result
    [line] = [line for line in result.err.splitlines() if line.startswith("Error: ")]
    assert "ikgui db copy" in line and "again" in line, line
    assert "DETAIL" not in line and "already exists" not in line and "Key (" not in line
    monkeypatch.delenv("IKGUI_DATABASE_URL")
    cli.ok("db", "copy", "--to", pg_url)
    monkeypatch.setenv("IKGUI_DATABASE_URL", pg_url)
    new = cli.new_id("/title after the copy finished")
    assert cli.ok("conv", "show", new).code == 0
    with open_store(pg_url) as pg:
        assert len(dump(pg)[1]) > len(rows[1])
