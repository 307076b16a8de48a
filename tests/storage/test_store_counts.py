"""The counts behind the window's transcript and sidebar (issue 10 item 1), on both
stores: how many items a cleared group holds (``count_shown``, no event read) and how
many of a conversation's messages are still in its context (``context_counts``).

Since issue 22 item 2 the message, context and inherited counts are the domain's
(:mod:`ikgui.domain.state.tally`, checked against the fold in ``tests/domain/test_tally.py``),
stored as events are appended: the stores count by the domain's rule (swap the rule and
they follow it), read the counts without counting, and a database made before schema 6
gets them from the same domain code when it is upgraded."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from ikgui.domain.events import Conversation, Kind
from ikgui.domain.library.exchange import export_json
from ikgui.domain.library.importing import import_document
from ikgui.domain.ports import Store
from ikgui.domain.session.session import Session
from ikgui.domain.state import tally
from ikgui.domain.state.reading import shown
from ikgui.storage import open_store
from ikgui.storage.migrations import MIGRATIONS
from ikgui.storage.pg_migrations import PG_MIGRATIONS
from ikgui.storage.queries import Query
from ikgui.storage.repository import PeeweeStore
from tests.storage.conftest import open_kind
from tests.support.memstore import MemoryStore


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def either(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    with open_kind(request.param, request, tmp_path / "ikgui.db") as real:
        yield real


def _add(store: Store, conv_id: str) -> None:
    store.insert_conversation(Conversation(id=conv_id, created_at=1.0, updated_at=1.0))


def test_count_shown_counts_what_a_reader_sees(either: Store) -> None:
    _add(either, "chat-aaaa")
    _add(either, "chat-bbbb")
    first = either.append_event("chat-aaaa", "user", "q")
    either.append_event("chat-aaaa", "assistant", "", {"failed": True, "interrupted": True})
    either.append_event("chat-aaaa", "error", "cut", {"category": "cut"})
    either.append_event("chat-bbbb", "user", "elsewhere")
    either.append_event("chat-aaaa", "retry", "", {"target_event_id": first.id})
    either.append_event("chat-aaaa", "assistant", "", {"interrupted": True})  # (stopped)
    either.append_event("chat-aaaa", "mark", "", {"label": None})
    either.append_event("chat-aaaa", "assistant", "", {"failed": False})
    last = either.append_event("chat-aaaa", "clear").id
    events = either.events("chat-aaaa")
    assert either.count_shown("chat-aaaa", 0, last) == sum(map(shown, events)) == 5
    assert either.count_shown("chat-aaaa", first.id, last) == 4
    assert either.count_shown("chat-aaaa", 0, first.id) == 1


def test_the_counts_are_kept_across_rewind_clear_and_retry(either: Store) -> None:
    session = Session(either)
    session.append(Kind.USER, "old")
    session.clear()
    session.append(Kind.USER, "one")
    session.append(Kind.ASSISTANT, "two")
    session.mark("m")
    session.append(Kind.USER, "three")
    session.append(Kind.ASSISTANT, "")  # empty: not a message
    session.rewind("m")
    user = session.append(Kind.USER, "four")
    session.append(Kind.ASSISTANT, "failed half")
    session.append(Kind.RETRY, "", {"target_event_id": user.id})
    session.append(Kind.ASSISTANT, "five")
    conv_id = session.conversation.id
    assert either.context_counts([conv_id, "chat-none"]) == {conv_id: 4, "chat-none": 0}
    conv = either.get_conversation(conv_id)
    assert conv is not None and conv.message_count == 7


def test_the_stores_count_by_the_domains_rule(
    either: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No copy of the rule in SQL or in the fake: the domain's rule is the only one."""
    monkeypatch.setattr(
        tally, "is_message", lambda kind, content: kind in ("user", "assistant", "command")
    )
    _add(either, "chat-aaaa")
    either.append_event("chat-aaaa", "user", "q")
    either.append_event("chat-aaaa", "assistant", "")
    either.append_event("chat-aaaa", "command", "/model x", {"command": "model"})
    conv = either.get_conversation("chat-aaaa")
    assert conv is not None and conv.message_count == 3
    assert either.context_counts(["chat-aaaa"]) == {"chat-aaaa": 3}


def test_the_counts_are_read_not_counted(tmp_path: Path) -> None:
    """The sidebar's counts of any number of conversations, rewound or cleared, are one
    statement each (they were a handful per conversation, more per rewind)."""
    with open_store(tmp_path / "ikgui.db") as store:
        session = Session(store)
        ids = []
        for _ in range(3):
            session.new_conversation(None)
            session.append(Kind.USER, "one")
            session.mark(None)
            session.append(Kind.USER, "two")
            session.rewind(None)
            session.clear()
            session.append(Kind.USER, "three")
            ids.append(session.fork().id)
        statements: list[str] = []
        store._connection().set_trace_callback(statements.append)
        assert store.context_counts(ids) == dict.fromkeys(ids, 0)
        assert store.inherited_counts(ids) == dict.fromkeys(ids, 3)
        assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 2


def _v5_history(store: PeeweeStore) -> tuple[str, str]:
    """A conversation and its fork written as schema 5 wrote them (no stored counts)."""
    with store._writing() as db:
        for conv_id, parent in (("chat-root", None), ("chat-fork", "chat-root")):
            Query(
                "INSERT INTO conversation (id, parent_id, created_at, updated_at)"
                " VALUES (?, ?, 1, 1)"
            ).run(db, conv_id, parent)
        insert = Query(
            "INSERT INTO event (conversation_id, kind, content, data, created_at)"
            " VALUES (?, ?, ?, ?, 1) RETURNING id"
        )

        def add(conv_id: str, kind: str, content: str = "", data: str | None = None) -> int:
            return int(insert.run(db, conv_id, kind, content, data).fetchone()[0])

        add("chat-root", "user", "q1")
        a1 = add("chat-root", "assistant", "a1")
        mark = add("chat-root", "mark", "", '{"label": null}')
        add("chat-root", "user", "q2")
        add("chat-root", "assistant", "")
        add("chat-root", "rewind", "", f'{{"target_event_id": {mark}}}')
        q3 = add("chat-root", "user", "q3")
        add("chat-root", "assistant", "a3")
        add("chat-root", "retry", "", f'{{"target_event_id": {q3}}}')
        add("chat-root", "assistant", "a3 again")
        Query("UPDATE conversation SET fork_event_id = ? WHERE id = ?").run(db, a1, "chat-fork")
        add("chat-fork", "user", "f1")
        add("chat-fork", "clear")
        add("chat-fork", "user", "f2")
    return "chat-root", "chat-fork"


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_database_from_schema_5_gets_its_counts_from_the_domain(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    location: Path | str = tmp_path / "ikgui.db"
    before: Sequence[object] = MIGRATIONS[:5]
    if kind == "postgresql":
        location = request.getfixturevalue("pg_url")
        before = PG_MIGRATIONS[:5]
    with open_store(location, migrations=before) as old:  # type: ignore[arg-type]
        assert old.schema_version() == 5
        root, fork = _v5_history(old)
    with open_store(location) as store:
        assert store.schema_version() == len(MIGRATIONS) == len(PG_MIGRATIONS)
        convs = store.get_conversations([root, fork])
        assert (convs[root].message_count, convs[fork].message_count) == (6, 2)
        assert store.context_counts([root, fork]) == {root: 4, fork: 1}
        assert store.inherited_counts([root, fork]) == {root: 0, fork: 2}
        # ...and they go on from there.
        store.append_event(fork, "user", "f3")
        store.append_event(root, "clear")
        assert store.context_counts([root, fork]) == {root: 0, fork: 2}


def test_a_fork_left_behind_by_a_delete_carries_nothing_from_it(either: Store) -> None:
    session = Session(either)
    session.append(Kind.USER, "one")
    root = session.conversation.id
    child = session.fork().id
    session.append(Kind.USER, "own")
    grand = session.fork().id
    assert either.inherited_counts([child, grand]) == {child: 1, grand: 2}
    either.delete_conversations([root])
    assert either.inherited_counts([child, grand]) == {child: 0, grand: 1}


def test_an_export_imported_elsewhere_has_the_same_counts(either: Store, tmp_path: Path) -> None:
    """Import appends through the same path, so the stored counts come out the same."""
    session = Session(either)
    session.append(Kind.USER, "one")
    session.append(Kind.ASSISTANT, "two")
    session.mark(None)
    session.append(Kind.USER, "three")
    session.rewind(None)
    user = session.append(Kind.USER, "four")
    session.append(Kind.ASSISTANT, "five")
    session.append(Kind.RETRY, "", {"target_event_id": user.id})
    root = session.conversation.id
    child = session.fork().id
    session.append(Kind.USER, "own")
    session.clear()
    session.append(Kind.USER, "after")
    session.kill(None, cascade=False)  # (an event in the parent; no message)

    def counts(store: Store, ids: list[str]) -> list[tuple[int, int, int]]:
        convs = store.get_conversations(ids)
        context, inherited = store.context_counts(ids), store.inherited_counts(ids)
        return [(convs[i].message_count, context[i], inherited[i]) for i in ids]

    before = counts(either, [root, child])
    assert before == [(5, 3, 0), (2, 1, 5)]  # it carries messages, as the count counts them
    document = export_json(either, [root, child])
    with open_store(tmp_path / "other.db") as other:
        result = import_document(other, document, now=2e9)
        assert counts(other, result.ids) == before
