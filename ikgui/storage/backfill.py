"""The stored counts of a database made before schema 6 (issue 22 item 2), computed by
the domain's :mod:`ikgui.domain.state.tally` as if each event were appended now: one
conversation's log at a time, so memory holds the largest conversation, not the history.

Both migrations (SQLite's ``_v6_tallies``, PostgreSQL's ``_v6``) run it through the two
functions of a :class:`Runner` (statements written with ``?``; PostgreSQL's runner turns
them into ``%s``).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ikgui.domain.events import Event
from ikgui.domain.state import tally


@dataclass(frozen=True)
class Runner:
    #: Run one statement, return its rows.
    rows: Callable[[str, Sequence[Any]], list[Any]]
    #: Run one statement once per parameter tuple.
    many: Callable[[str, Sequence[Sequence[Any]]], None]


def _one(conv_id: str, rows: list[Any]) -> tuple[tally.Tally, list[tuple[int, int, int]]]:
    """The tally after each of one conversation's events (``(messages, context, id)``)."""
    stored: dict[int, tuple[str, tally.Tally]] = {}
    now = tally.Tally()
    out: list[tuple[int, int, int]] = []
    for event_id, kind, content, data in rows:
        event = Event(event_id, conv_id, kind, content or "", None, raw_data=data)
        now = tally.after(now, event, stored.get)
        stored[event_id] = (kind, now)
        out.append((now.messages, now.context, event_id))
    return now, out


def backfill(run: Runner) -> None:
    """Store every event's and conversation's counts, then what each fork carries."""
    forks = {
        conv_id: (parent, fork)
        for conv_id, parent, fork in run.rows(
            "SELECT id, parent_id, fork_event_id FROM conversation", ()
        )
    }
    #: Each conversation's event ids and message tallies, for what its forks carry.
    ids: dict[str, array[int]] = {}
    messages: dict[str, array[int]] = {}
    totals: list[Sequence[Any]] = []
    for conv_id in forks:
        rows = run.rows(
            "SELECT id, kind, content, data FROM event WHERE conversation_id = ? ORDER BY id",
            (conv_id,),
        )
        now, per_event = _one(conv_id, rows)
        run.many("UPDATE event SET tally_messages = ?, tally_context = ? WHERE id = ?", per_event)
        totals.append((now.messages, now.context, conv_id))
        ids[conv_id] = array("q", (event_id for _, _, event_id in per_event))
        messages[conv_id] = array("q", (count for count, _, _ in per_event))
    run.many("UPDATE conversation SET message_count = ?, context_count = ? WHERE id = ?", totals)

    def upto(conv_id: str, bound: int) -> int:
        at = bisect.bisect_right(ids.get(conv_id, array("q")), bound)
        return messages[conv_id][at - 1] if at else 0

    def fork_of(conv_id: str) -> tuple[str | None, int | None]:
        return forks.get(conv_id, (None, None))

    carried = [
        (tally.carried(conv_id, fork_of, upto), conv_id)
        for conv_id, (parent, _) in forks.items()
        if parent is not None
    ]
    run.many("UPDATE conversation SET inherited_count = ? WHERE id = ?", carried)
