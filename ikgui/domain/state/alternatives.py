"""Alternatives of a turn (SPEC §14): Retry and "Edit and resend" keep every version of a
turn, in the order made, and one of them is shown and sent.

Retries are alternatives inside a conversation. The fold (:mod:`ikgui.domain.state.replay`)
keeps a :class:`Slot` per user message a ``retry`` named: each :class:`Attempt` is what
followed the message in one try (its reply, and what the user went on with while it was
chosen), saved as the context, scrollback and transcript held after the message when it
was left. A ``choose`` event (``slot_event_id``, ``chosen_event_id``: an event of the
attempt) puts that attempt back after the message; the context then holds it alone. A
retry whose attempt holds no reply text (it failed) keeps it as today's "Failed attempt"
group instead: a failure is not an alternative.

Edits (and retries of an earlier reply, which fork) are alternatives across branches: a
branch made with reason ``edit`` or ``retry`` at event P of its parent is an alternative of
what follows P there (the edited message, the regenerated reply). Switching to one opens
that branch (:func:`branch_alternatives` says which branches each shown item has).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ikgui.domain.events import (
    ALTERNATIVE_REASONS,
    BRANCH_COMPARE,
    Conversation,
    Event,
    Kind,
)
from ikgui.domain.ports import Store
from ikgui.domain.state.reading import shown


@dataclass(frozen=True)
class Alternative:
    """One version of a turn: ``event_id`` is what a ``choose`` names (a retry's attempt,
    in the conversation on screen), ``None`` for a branch, which is opened instead."""

    conversation_id: str
    event_id: int | None = None


@dataclass(frozen=True)
class Alternatives:
    """The versions of one turn and which is shown: ``slot_event_id`` is the user message
    whose replies they are (retries) or the fork point they follow (branches)."""

    slot_event_id: int
    index: int
    options: tuple[Alternative, ...]

    @property
    def count(self) -> int:
        return len(self.options)

    @property
    def label(self) -> str:
        """What the switcher reads: ``2/3``."""
        return f"{self.index + 1}/{self.count}"

    @property
    def accessible(self) -> str:
        """What a screen reader says: "Alternative 2 of 3"."""
        return f"Alternative {self.index + 1} of {self.count}"

    def as_json(self) -> list[dict[str, object]]:
        """``conv show --json``'s ``alternatives`` list of an item."""
        return [
            {
                "index": i + 1,
                "chosen": i == self.index,
                "conversation": option.conversation_id,
                "event_id": option.event_id,
            }
            for i, option in enumerate(self.options)
        ]


@dataclass
class Attempt:
    """One try at answering a slot's message: what followed the message, as saved when
    the try was left (the context, scrollback and transcript entries after it)."""

    context: list[Event]
    scrollback: list[Event]
    transcript: list[object]
    working_prompt: str

    @property
    def first(self) -> int | None:
        """The id of its first shown event (what a ``choose`` names)."""
        return self.scrollback[0].id if self.scrollback else None

    def holds(self, event_id: int) -> bool:
        return any(event.id == event_id for event in self.scrollback)


@dataclass
class Slot:
    """A user message's attempts; ``current``: the one shown (its index), ``None`` while
    the newest try (not saved yet: it is what follows the message now) is shown."""

    user: int
    attempts: list[Attempt] = field(default_factory=list)
    current: int | None = None


def has_reply(events: Sequence[Event]) -> bool:
    """Whether an attempt answered: a reply with text and no error (a failure, even
    one cut off half way, is no alternative: it stays a "Failed attempt")."""
    return any(e.kind == Kind.ASSISTANT and e.content for e in events) and not any(
        e.kind == Kind.ERROR for e in events
    )


def retry_alternatives(
    slots: dict[int, Slot], context: Sequence[Event], scrollback: Sequence[Event]
) -> dict[int, Alternatives]:
    """The in-conversation alternatives, by the id of the event that shows the switcher
    (the first shown after the slot's message: the chosen attempt's reply)."""
    found: dict[int, Alternatives] = {}
    if not slots:
        return found
    at = _positions(scrollback, slots)
    in_context = set(_positions(context, slots))
    for user, slot in slots.items():
        index = at.get(user)
        if index is None or user not in in_context or index + 1 >= len(scrollback):
            continue
        shown_first = scrollback[index + 1]
        conv = shown_first.conversation_id
        options = [Alternative(conv, a.first) for a in slot.attempts if a.first is not None]
        chosen = slot.current
        if chosen is None:
            options.append(Alternative(conv, shown_first.id))
            chosen = len(options) - 1
        if len(options) > 1:
            found[shown_first.id] = Alternatives(user, chosen, tuple(options))
    return found


def _positions(events: Sequence[Event], wanted: dict[int, Slot]) -> dict[int, int]:
    """Where the events ``wanted`` names are in ``events`` (looked for from the end,
    where retried messages usually are, until each is found)."""
    found: dict[int, int] = {}
    for index in range(len(events) - 1, -1, -1):
        event_id = events[index].id
        if event_id in wanted:
            found[event_id] = index
            if len(found) == len(wanted):
                break
    return found


# -- across branches ----------------------------------------------------------------------
def branch_alternatives(
    store: Store, conv: Conversation, transcript: Sequence[object]
) -> dict[int, Alternatives]:
    """The alternatives across branches of the items ``transcript`` shows (events of
    ``conv`` and its ancestors), by the id of the event that shows the switcher: in a
    conversation with such branches at P, its first item after P; in such a branch, its
    own first item (its fork notice aside)."""
    path = _path(store, conv)
    kids_of = {c.id: _alternative_kids(store, c.id) for c in path}
    versions = ALTERNATIVE_REASONS | {BRANCH_COMPARE}  # (a compared model's: its siblings)
    if not any(kids_of.values()) and not any(c.branch_reason in versions for c in path):
        return {}  # (the transcript is not walked: none of it has versions elsewhere)
    own: dict[str, list[Event]] = {c.id: [] for c in path}
    for entry in transcript:
        if (
            isinstance(entry, Event)
            and entry.conversation_id in own
            and entry.kind != Kind.FORK
            and shown(entry)
        ):
            own[entry.conversation_id].append(entry)
    turns: dict[int, tuple[int, str]] = {}  # switcher event -> (fork point, owner)
    for c in reversed(path):  # from the root: the highest turn wins an item in two
        if c.branch_reason in ALTERNATIVE_REASONS and c.parent in own and own[c.id]:
            turns.setdefault(own[c.id][0].id, (c.fork_event_id or 0, c.parent))
        for kid in kids_of[c.id]:
            point = kid.fork_event_id or 0
            after = next((e for e in own[c.id] if e.id > point), None)
            if after is not None:
                turns.setdefault(after.id, (point, c.id))
    found: dict[int, Alternatives] = {}
    for event_id, (point, owner) in turns.items():
        if owner not in kids_of:
            continue
        kids = kids_of[owner]
        options = [Alternative(owner)] + [
            Alternative(k.id) for k in kids if (k.fork_event_id or 0) == point
        ]
        on_path = {c.id for c in path}
        index = max(i for i, o in enumerate(options) if o.conversation_id in on_path)
        if len(options) > 1:
            found[event_id] = Alternatives(point, index, tuple(options))
    found.update(_compared_alternatives(store, path, own, found))
    return found


def _compared_alternatives(
    store: Store,
    path: Sequence[Conversation],
    own: dict[str, list[Event]],
    found: dict[int, Alternatives],
) -> dict[int, Alternatives]:
    """A compared model's branch: its message has the other models' answers (their
    branches, forked at the same event) as alternatives, "Continue with this one" having
    opened one of them (SPEC §14); the conversation compared from is not one of them."""
    more: dict[int, Alternatives] = {}
    for c in path:
        if c.branch_reason != BRANCH_COMPARE or c.parent is None or not own.get(c.id):
            continue
        first = own[c.id][0].id
        if first in found:
            continue
        siblings = sorted(
            (
                k
                for k in store.children(c.parent)
                if k.branch_reason == BRANCH_COMPARE
                and k.fork_event_id == c.fork_event_id
                and k.trashed_at is None
            ),
            key=lambda k: (k.created_at, k.id),
        )
        ids = [k.id for k in siblings]
        if len(ids) > 1 and c.id in ids:
            options = tuple(Alternative(i) for i in ids)
            more[first] = Alternatives(c.fork_event_id or 0, ids.index(c.id), options)
    return more


def _path(store: Store, conv: Conversation) -> list[Conversation]:
    """``conv`` and its ancestors, nearest first."""
    path, seen = [conv], {conv.id}
    while path[-1].parent is not None and path[-1].parent not in seen:
        parent = store.get_conversation(path[-1].parent)
        if parent is None:
            break
        seen.add(parent.id)
        path.append(parent)
    return path


def _alternative_kids(store: Store, conv_id: str) -> list[Conversation]:
    """The branches of ``conv_id`` that are alternatives (edits, retries), oldest first."""
    kids = [
        c
        for c in store.children(conv_id)
        if c.branch_reason in ALTERNATIVE_REASONS and c.fork_event_id is not None
    ]
    return sorted(kids, key=lambda c: (c.created_at, c.id))
