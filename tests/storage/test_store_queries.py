"""The hot queries written as SQL (ikgui/storage/queries.py): each one, on both databases,
answers what the store's contract says, on one small log that has every kind of row they
pick between (tags, a fork, a clear, a rewind, a reply that failed before any text).

Every ``Query`` of the module and every ``IN``-list builder must appear in ``EXPECTED``,
so a new hot query comes with its answer here."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ikgui.domain.events import Conversation
from ikgui.storage import PeeweeStore, queries
from ikgui.storage.models import TAG_SEP

STORES = ("sqlite", "postgresql")


def _log(store: PeeweeStore) -> dict[str, int]:
    """chat-aaaa: user q1, reply r1, clear, user q2, failed empty reply, rewind to q2's
    reply, user q3; chat-bbbb forks it at r1; chat-cccc is alone. Returns the ids."""
    store.insert_conversation(
        Conversation(id="chat-aaaa", created_at=1.0, updated_at=1.0, tags=("work", "api"))
    )
    ids: dict[str, int] = {}
    for name, kind, text, data in (
        ("q1", "user", "q1", None),
        ("r1", "assistant", "r1", None),
        ("clear", "clear", "", None),
        ("q2", "user", "q2", None),
        ("failed", "assistant", "", {"failed": True}),
        ("rewind", "rewind", "", {"target_event_id": 0}),  # target set below
        ("q3", "user", "q3", None),
    ):
        if name == "rewind":
            data = {"target_event_id": ids["q2"]}
        ids[name] = store.append_event("chat-aaaa", kind, text, data, created_at=2.0).id
    store.insert_conversation(
        Conversation(
            id="chat-bbbb",
            parent="chat-aaaa",
            fork_event_id=ids["r1"],
            created_at=3.0,
            updated_at=3.0,
        )
    )
    store.insert_conversation(Conversation(id="chat-cccc", created_at=4.0, updated_at=4.0))
    return ids


#: What a query's rows become, given a function naming event ids (they differ per database).
Shape = Callable[[list[Any], Callable[[int], str]], Any]
#: name -> (arguments from the ids, what the rows become, the expected answer).
Case = tuple[Callable[[dict[str, int]], tuple[Any, ...]], Shape, Any]


def _rows(rows: list[Any], n: Callable[[int], str]) -> Any:
    return sorted(tuple(r) for r in rows)


def _count(rows: list[Any], n: Callable[[int], str]) -> Any:
    return int(rows[0][0])


def _event(rows: list[Any], n: Callable[[int], str]) -> Any:
    return None if rows[0][0] is None else n(rows[0][0])


def _tagged(rows: list[Any], n: Callable[[int], str]) -> Any:
    """(id, parent, sorted tags) of each row of a "conversations with their tags" query."""
    return [(r[0], r[1], tuple(sorted(r[-1].split(TAG_SEP))) if r[-1] else ()) for r in rows]


def _sorted_tagged(rows: list[Any], n: Callable[[int], str]) -> Any:
    return sorted(_tagged(rows, n))


_AAAA = ("chat-aaaa", None, ("api", "work"))
_BBBB = ("chat-bbbb", "chat-aaaa", ())
_TAGS = [("chat-aaaa", "api"), ("chat-aaaa", "work")]

EXPECTED: dict[str, Case] = {
    "CONVERSATION_BY_ID": (lambda i: ("chat-aaaa",), _tagged, [_AAAA]),
    "CHILDREN": (lambda i: ("chat-aaaa",), _tagged, [_BBBB]),
    "CONVERSATION_EXISTS": (lambda i: ("chat-cccc",), _rows, [("chat-cccc",)]),
    "FORK_OF": (lambda i: ("chat-bbbb",), lambda r, n: (r[0][0], n(r[0][1])), ("chat-aaaa", "r1")),
    "ALL_TAGS": (lambda i: (), _rows, _TAGS),
    "conversations_by_ids": (
        lambda i: ("chat-bbbb", "chat-aaaa", "chat-none"),
        _sorted_tagged,
        [_AAAA, _BBBB],
    ),
    "children_of": (lambda i: ("chat-aaaa", "chat-cccc"), _tagged, [_BBBB]),
    "tags_of": (lambda i: ("chat-aaaa", "chat-bbbb"), _rows, _TAGS),
    "EVENT_BY_ID": (
        lambda i: (i["r1"],),
        lambda r, n: [(n(r[0][0]), *r[0][1:])],
        [("r1", "chat-aaaa", "assistant", "r1", None, 2.0, 2, 2)],
    ),
    "LAST_EVENT_ID": (lambda i: ("chat-aaaa",), _event, "q3"),
    "TAIL_STAMP": (
        lambda i: ("chat-aaaa", 3),
        lambda r, n: [(n(i), text, data) for i, text, data in r],
        [("q3", 2, 0), ("rewind", 0, -1), ("failed", 0, len('{"failed": true}'))],
    ),
    "LOG_BETWEEN": (
        lambda i: ("chat-aaaa", i["r1"], i["q2"]),
        lambda r, n: [(n(e[0]), *e[1:]) for e in r],
        [("clear", "clear", "", None, 2.0), ("q2", "user", "q2", None, 2.0)],
    ),
    "LOG_TAIL": (lambda i: ("chat-aaaa", 2), lambda r, n: [n(e[0]) for e in r], ["q3", "rewind"]),
    "event_contents": (
        lambda i: (i["q1"], i["q3"]),
        lambda r, n: sorted((n(e[0]), e[1]) for e in r),
        [("q1", "q1"), ("q3", "q3")],
    ),
    "COUNT_SHOWN": (lambda i: ("chat-aaaa", i["clear"], queries.MAX_ID), _count, 4),
    "EMPTY_REPLIES": (
        lambda i: ("chat-aaaa", 0, queries.MAX_ID),
        lambda r, n: [json.loads(e[0]) for e in r],
        [{"failed": True}],
    ),
    "LATEST_CLEAR": (lambda i: ("chat-aaaa",), _event, "clear"),
    "LATEST_CLEAR_UPTO": (lambda i: ("chat-aaaa", i["r1"]), _event, None),
    # The domain's tallies (ikgui.domain.state.tally): the rewind names no mark, so it is skipped.
    "EVENT_TALLY": (lambda i: (i["q2"], "chat-aaaa"), _rows, [("user", 3, 1)]),
    "MESSAGES_UPTO": (lambda i: ("chat-aaaa", i["clear"]), _count, 2),
    "context_counts_of": (
        lambda i: ("chat-aaaa", "chat-bbbb", "chat-none"),
        _rows,
        [("chat-aaaa", 2), ("chat-bbbb", 0)],
    ),
    "inherited_counts_of": (
        lambda i: ("chat-aaaa", "chat-bbbb"),
        _rows,
        [("chat-aaaa", 0), ("chat-bbbb", 2)],
    ),
    "children_ids": (lambda i: ("chat-aaaa", "chat-cccc"), _rows, [("chat-bbbb",)]),
}


def test_every_hot_query_has_an_expected_answer() -> None:
    constants = {n for n, v in vars(queries).items() if isinstance(v, queries.Query)}
    builders = {"conversations_by_ids", "children_of", "tags_of", "event_contents"}
    builders |= {"context_counts_of", "inherited_counts_of", "children_ids"}
    writes = {"BUMP_CONVERSATION", "INSERT_EVENT", "SET_COUNTS"}  # the writes of an append
    writes |= {"GROW_COUNTS", "GROW_TALLIES", "SET_INHERITED"}  # test_the_stored_counts
    assert constants | builders == set(EXPECTED) | writes


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_hot_query_answers_the_same_on_both_databases(store: PeeweeStore, name: str) -> None:
    ids = _log(store)
    arguments, shape, expected = EXPECTED[name]
    args = arguments(ids)
    found = getattr(queries, name)
    query = found(len(args)) if callable(found) else found
    rows = query.run(store.database, *args).fetchall()
    names = {v: k for k, v in ids.items()}
    got = shape(rows, names.__getitem__)
    if name == "TAIL_STAMP":  # the rewind's data names an id: its length varies
        rewind = json.dumps({"target_event_id": ids["q2"]})
        expected = [(i, t, len(rewind) if d == -1 else d) for i, t, d in expected]
    assert got == expected


def test_the_two_writes_of_an_append(store: PeeweeStore) -> None:
    _log(store)
    db = store.database
    with store.transaction():
        assert queries.BUMP_CONVERSATION.run(db, 9.0, "chat-cccc").fetchall() == [(0, 0)]
        assert queries.BUMP_CONVERSATION.run(db, 9.0, "chat-none").fetchall() == []
        cursor = queries.INSERT_EVENT.run(db, "chat-cccc", "user", "hi", None, 9.0, 1, 1)
        event_id = int(cursor.fetchone()[0])
        assert queries.SET_COUNTS.run(db, 1, 1, "chat-cccc").rowcount == 1
    assert store.get_event(event_id) is not None
    got = store.get_conversation("chat-cccc")
    assert got is not None and (got.updated_at, got.message_count) == (9.0, 1)
    assert queries.EVENT_TALLY.run(db, event_id, "chat-cccc").fetchall() == [("user", 1, 1)]


def test_the_stored_counts(store: PeeweeStore) -> None:
    ids = _log(store)
    db = store.database
    with store.transaction():
        assert queries.GROW_COUNTS.run(db, 1, 1, "chat-aaaa").rowcount == 1
        assert queries.GROW_TALLIES.run(db, 1, 1, "chat-aaaa", ids["q2"]).rowcount == 4
        assert queries.SET_INHERITED.run(db, 5, "chat-bbbb").rowcount == 1
    assert store.context_counts(["chat-aaaa"]) == {"chat-aaaa": 3}
    assert store.inherited_counts(["chat-bbbb"]) == {"chat-bbbb": 5}
    assert queries.MESSAGES_UPTO.run(db, "chat-aaaa", ids["r1"]).fetchall() == [(2,)]
    assert queries.MESSAGES_UPTO.run(db, "chat-aaaa", ids["q2"]).fetchall() == [(4,)]


def test_a_query_may_not_hold_postgresql_marks() -> None:
    with pytest.raises(ValueError):
        queries.Query("SELECT 1 WHERE 'a' LIKE '%'")
