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
    "MESSAGE_COUNT": (lambda i: ("chat-aaaa",), _count, 4),
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
        [("r1", "chat-aaaa", "assistant", "r1", None, 2.0)],
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
    "COUNT_MESSAGES": (lambda i: ("chat-aaaa", 0, queries.MAX_ID), _count, 4),
    "COUNT_SHOWN": (lambda i: ("chat-aaaa", i["clear"], queries.MAX_ID), _count, 4),
    "EMPTY_REPLIES": (
        lambda i: ("chat-aaaa", 0, queries.MAX_ID),
        lambda r, n: [json.loads(e[0]) for e in r],
        [{"failed": True}],
    ),
    "LATEST_CLEAR": (lambda i: ("chat-aaaa",), _event, "clear"),
    "LATEST_CLEAR_UPTO": (lambda i: ("chat-aaaa", i["r1"]), _event, None),
    "CUT_MARKS": (
        lambda i: ("chat-aaaa", i["clear"]),
        lambda r, n: [(n(e[0]), n(json.loads(e[1])["target_event_id"])) for e in r],
        [("rewind", "q2")],
    ),
}


def test_every_hot_query_has_an_expected_answer() -> None:
    constants = {n for n, v in vars(queries).items() if isinstance(v, queries.Query)}
    builders = {"conversations_by_ids", "children_of", "tags_of", "event_contents"}
    writes = {"BUMP_CONVERSATION", "INSERT_EVENT"}  # test_the_two_writes_of_an_append
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
        assert queries.BUMP_CONVERSATION.run(db, 9.0, 1, "chat-cccc").rowcount == 1
        assert queries.BUMP_CONVERSATION.run(db, 9.0, 1, "chat-none").rowcount == 0
        cursor = queries.INSERT_EVENT.run(db, "chat-cccc", "user", "hi", None, 9.0)
        event_id = int(cursor.fetchone()[0])
    assert store.get_event(event_id) is not None
    got = store.get_conversation("chat-cccc")
    assert got is not None and (got.updated_at, got.message_count) == (9.0, 1)


def test_a_query_may_not_hold_postgresql_marks() -> None:
    with pytest.raises(ValueError):
        queries.Query("SELECT 1 WHERE 'a' LIKE '%'")
