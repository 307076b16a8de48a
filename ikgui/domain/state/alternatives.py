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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ikgui.domain.events import ALTERNATIVE_REASONS, BRANCH_COMPARE, Conversation, Event, Kind
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
    conv: Conversation,
    transcript: Sequence[object],
    siblings: Callable[[], list[Conversation]],
) -> dict[int, Alternatives]:
    """The alternatives across branches of the items ``transcript`` shows, by the id of
    the event that shows the switcher: in ``conv``, its first item after each point where
    an edit or a retry branched from it (its own fork notices say where: no read); in a
    branch that is itself such an alternative, its own first item, beside the parent's
    other branches made at the same point (``siblings``: the parent's children, read only
    then)."""
    own: list[Event] = []
    kids: dict[int, list[str]] = {}  # fork point -> the alternative branches made there
    for entry in transcript:
        if not isinstance(entry, Event) or entry.conversation_id != conv.id:
            continue
        if entry.kind == Kind.FORK:
            data = entry.data
            if data.get("role") == "parent" and data.get("reason") in ALTERNATIVE_REASONS:
                point, child = data.get("fork_event_id"), data.get("child_id")
                if isinstance(point, int) and isinstance(child, str):
                    kids.setdefault(point, []).append(child)
        elif shown(entry):
            own.append(entry)
    found: dict[int, Alternatives] = {}
    if conv.branch_reason in ALTERNATIVE_REASONS and conv.parent is not None and own:
        point = conv.fork_event_id or 0
        made = [
            c.id
            for c in sorted(siblings(), key=lambda c: (c.created_at, c.id))
            if c.branch_reason in ALTERNATIVE_REASONS and c.fork_event_id == point
        ]
        options = tuple(Alternative(i) for i in [conv.parent, *made])
        if conv.id in made:
            found[own[0].id] = Alternatives(point, made.index(conv.id) + 1, options)
    elif conv.branch_reason == BRANCH_COMPARE and conv.parent is not None and own:
        # A compared model's answer: the other models' answers (their branches, forked
        # at the same event) are its alternatives, "Continue with this one" having
        # opened one of them; the conversation compared from is not one of them.
        point = conv.fork_event_id or 0
        compared = [
            c.id
            for c in sorted(siblings(), key=lambda c: (c.created_at, c.id))
            if c.branch_reason == BRANCH_COMPARE
            and (c.fork_event_id or 0) == point
            and c.trashed_at is None
        ]
        if len(compared) > 1 and conv.id in compared:
            options = tuple(Alternative(i) for i in compared)
            found[own[0].id] = Alternatives(point, compared.index(conv.id), options)
    for point, children in kids.items():
        after = next((e for e in own if e.id > point), None)
        if after is not None and after.id not in found:
            options = tuple(Alternative(i) for i in [conv.id, *children])
            found[after.id] = Alternatives(point, 0, options)
    return found
