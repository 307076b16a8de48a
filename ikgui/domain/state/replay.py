"""Replay: the log folded into a conversation's state (SPEC §4).

``load_segments`` walks the fork chain backwards from a conversation to find the
events that make up its history ("walk backwards"); ``replay`` folds them forwards
into a :class:`ReplayState`; ``apply`` is the one-event step the live session uses
too, so live and restarted state cannot drift.

Beside the context and the scrollback the fold keeps the window's transcript
(:mod:`ikgui.domain.state.transcript`): what a rewind, clear or retry takes out of the
scrollback stays there as one collapsed group.

``retry`` (written by Retry of the last reply; older logs have none, so they replay as
before): ``data.target_event_id`` is the user message being answered again. Context and
scrollback go back to just after it, marks set after it are dropped, and what they held
(the failed or replaced attempt) becomes a "failed attempt" group. A retry whose target
is not a user message in the context is skipped (logged), like a malformed rewind.
An attempt that answered is kept as an alternative instead (SPEC §14,
:mod:`ikgui.domain.state.alternatives`): the transcript shows the newest try, and a
``choose`` event puts an earlier one back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ikgui.domain.events import CONVERSATION_KINDS, Event, Kind
from ikgui.domain.ports import Store
from ikgui.domain.state.alternatives import Alternatives, Attempt, Slot, has_reply
from ikgui.domain.state.alternatives import retry_alternatives as _retry_alternatives
from ikgui.domain.state.facts import TranscriptChange
from ikgui.domain.state.history import load_segments as load_segments
from ikgui.domain.state.reading import failed_before_text
from ikgui.domain.state.tool_use import ToolMemory
from ikgui.domain.state.transcript import (
    Entry,
    Group,
    GroupKind,
    cleared,
    cleared_group,
    collapse,
    find_event,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MarkEntry:
    event_id: int
    label: str | None
    context_len: int
    scrollback_len: int
    working_prompt: str
    transcript_len: int = 0

    @property
    def display(self) -> str:
        return self.label if self.label is not None else "last mark"


@dataclass
class ReplayState:
    context: list[Event] = field(default_factory=list)
    scrollback: list[Event] = field(default_factory=list)
    #: The window's display list: the scrollback plus groups of what left the context.
    transcript: list[Entry] = field(default_factory=list)
    marks: list[MarkEntry] = field(default_factory=list)
    working_prompt: str = ""
    #: Set by ``/model`` commands; ``None``: the conversation's own model.
    model: str | None = None
    #: The provider a ``/model`` chose (every ``/model`` records its provider, so a move
    #: to another provider replays); ``None``: the conversation's own provider.
    provider: str | None = None
    #: Set by ``/system``; ``None``: the agent's prompt, ``""``: no system prompt.
    system_override: str | None = None
    #: Events ignored by the fold (malformed rewinds), for diagnostics.
    skipped: list[int] = field(default_factory=list)
    #: The working prompt before each reply or edit that changed it, by event id (what
    #: the window's prompt cards show the change against).
    prompt_before: dict[int, str] = field(default_factory=dict)
    #: The conversation's tool switches and standing grants (SPEC §12).
    tools: ToolMemory = field(default_factory=ToolMemory)
    #: The user messages a retry answered again, with their attempts (SPEC §14).
    slots: dict[int, Slot] = field(default_factory=dict)

    def retry_alternatives(self) -> dict[int, Alternatives]:
        """The alternatives of retried replies, by the event that shows the switcher."""
        return _retry_alternatives(self.slots, self.context, self.scrollback)

    def find_mark(self, label: str | None) -> MarkEntry | None:
        """The newest live mark, or the newest with exactly ``label``."""
        for mark in reversed(self.marks):
            if label is None or mark.label == label:
                return mark
        return None


def _show(state: ReplayState, event: Event) -> None:
    state.scrollback.append(event)
    state.transcript.append(event)


def _clear(state: ReplayState, event: Event) -> None:
    cleared(state.transcript, event)
    state.context.clear()
    state.scrollback.clear()
    state.marks.clear()
    state.working_prompt = ""
    state.slots.clear()


def _rewind(state: ReplayState, event: Event) -> None:
    target = event.data.get("target_event_id")
    index = None
    if isinstance(target, int) and not isinstance(target, bool):
        for i, mark in enumerate(state.marks):
            if mark.event_id == target:
                index = i
    if index is None:
        log.warning("skipping rewind event %s: target %r is not a live mark", event.id, target)
        state.skipped.append(event.id)
        return
    mark = state.marks[index]
    del state.context[mark.context_len :]
    del state.scrollback[mark.scrollback_len :]
    collapse(state.transcript, mark.transcript_len, GroupKind.REWOUND, event)
    del state.marks[index + 1 :]
    state.working_prompt = mark.working_prompt
    if mark.label is not None and not isinstance(event.data.get("target_label"), str):
        # Written without the label (an older version, an import): show the mark's.
        event = event.with_changes(event.content, {**event.data, "target_label": mark.label})
    _show(state, event)


def _slot_message(state: ReplayState, event: Event, target: object) -> int | None:
    """The index in the context of the user message ``target`` (``None``: skip ``event``)."""
    context = state.context
    index = next(
        (i for i in range(len(context) - 1, -1, -1) if context[i].id == target),
        None,
    )
    if index is None or context[index].kind != Kind.USER:
        log.warning("skipping %s event %s: %r is not a user message", event.kind, event.id, target)
        state.skipped.append(event.id)
        return None
    return index


def _tails(state: ReplayState, index: int) -> tuple[int, int]:
    """Where what follows the context's message ``index`` starts in the scrollback and in
    the transcript."""
    user = state.context[index].id
    at = next((i for i, e in enumerate(state.scrollback) if e.id == user), len(state.scrollback))
    shown_at = find_event(state.transcript, user)
    return at + 1, (shown_at + 1 if shown_at is not None else len(state.transcript))


def _leave(state: ReplayState, slot: Slot, index: int) -> None:
    """Save what follows the slot's message as the attempt shown (a new one if it is
    the newest try), and take it out of the context, scrollback and transcript."""
    at, shown_at = _tails(state, index)
    attempt = Attempt(
        state.context[index + 1 :],
        state.scrollback[at:],
        list(state.transcript[shown_at:]),
        state.working_prompt,
    )
    if slot.current is None:
        slot.attempts.append(attempt)
    else:
        slot.attempts[slot.current] = attempt
    del state.context[index + 1 :]
    del state.scrollback[at:]
    del state.transcript[shown_at:]
    user = slot.user
    state.marks[:] = [mark for mark in state.marks if mark.event_id < user]


def _retry(state: ReplayState, event: Event) -> None:
    index = _slot_message(state, event, event.data.get("target_event_id"))
    if index is None:
        return
    user = state.context[index].id
    at, shown_at = _tails(state, index)
    slot = state.slots.get(user)
    if (slot is not None and slot.current is not None) or has_reply(state.scrollback[at:]):
        slot = state.slots.setdefault(user, Slot(user))
        _leave(state, slot, index)
        slot.current = None  # the new try follows
        return
    del state.context[index + 1 :]
    del state.scrollback[at:]
    state.marks[:] = [mark for mark in state.marks if mark.event_id < user]
    collapse(state.transcript, shown_at, GroupKind.RETRIED, event)


def _choose(state: ReplayState, event: Event) -> None:
    """Show the attempt of ``slot_event_id`` that holds ``chosen_event_id``."""
    data = event.data
    index = _slot_message(state, event, data.get("slot_event_id"))
    slot = state.slots.get(state.context[index].id) if index is not None else None
    chosen = data.get("chosen_event_id")
    if slot is None or index is None:
        if index is not None:
            state.skipped.append(event.id)
        return
    found = next((i for i, a in enumerate(slot.attempts) if a.holds(chosen)), None)  # type: ignore[arg-type]
    if found is None:
        at, _ = _tails(state, index)
        if slot.current is None or not any(e.id == chosen for e in state.scrollback[at:]):
            log.warning("skipping choose event %s: %r is no attempt", event.id, chosen)
            state.skipped.append(event.id)
        return  # (the newest try, shown already)
    if found == slot.current:
        return
    _leave(state, slot, index)
    attempt = slot.attempts[found]
    state.context.extend(attempt.context)
    state.scrollback.extend(attempt.scrollback)
    state.transcript.extend(attempt.transcript)  # type: ignore[arg-type]
    state.working_prompt = attempt.working_prompt
    slot.current = found


def set_prompt(state: ReplayState, event: Event, prompt: str) -> None:
    """``event`` (a reply or an edit) sets the working prompt to ``prompt``."""
    if prompt != state.working_prompt:
        state.prompt_before[event.id] = state.working_prompt
    state.working_prompt = prompt


def apply(state: ReplayState, event: Event) -> None:
    """Fold one event into ``state`` (in place)."""
    kind = event.kind
    if failed_before_text(event):
        return  # its error event says why
    if kind in CONVERSATION_KINDS:
        state.context.append(event)
        state.scrollback.append(event)  # (inlined: replay runs this for every event)
        state.transcript.append(event)
        if kind == Kind.TOOL_CALL:
            state.tools.take(event)
        elif kind == Kind.ASSISTANT:
            prompt = event.data.get("prompt") if event.may_have("prompt") else None
            if isinstance(prompt, str):
                set_prompt(state, event, prompt)
        elif kind == Kind.PROMPT_EDIT:
            prompt = event.data.get("prompt")
            if isinstance(prompt, str):
                set_prompt(state, event, prompt)
    elif kind == Kind.MARK:
        _show(state, event)
        label = event.data.get("label")
        state.marks.append(
            MarkEntry(
                event.id,
                label if isinstance(label, str) else None,
                len(state.context),
                len(state.scrollback),
                state.working_prompt,
                len(state.transcript),
            )
        )
    elif kind == Kind.REWIND:
        _rewind(state, event)
    elif kind == Kind.CLEAR:
        _clear(state, event)
        # A clear carries the settings in force, since replay starts at the newest clear.
        if event.may_have("model") and isinstance(event.data.get("model"), str):
            state.model = event.data["model"]
        if event.may_have("provider") and isinstance(event.data.get("provider"), str):
            state.provider = event.data["provider"]
        if event.may_have("system") and isinstance(event.data.get("system"), str):
            state.system_override = event.data["system"]
        state.tools.take(event)
    elif kind == Kind.RETRY:
        _retry(state, event)
    elif kind == Kind.CHOOSE:
        _choose(state, event)
    elif kind == Kind.COMMAND:
        _show(state, event)
        _command(state, event)
    elif kind == Kind.TOOL_APPROVAL:
        _show(state, event)
        state.tools.take(event)
    else:
        # fork, agent_killed, error and kinds from newer versions: shown, not sent.
        _show(state, event)
        if kind == Kind.FORK and event.data.get("role") == "child":
            _branch_model(state, event)


def _branch_model(state: ReplayState, event: Event) -> None:
    """A branch made for one model (a compared one) uses it, whatever its ancestors'
    ``/model`` chose."""
    model, provider = event.data.get("model"), event.data.get("provider")
    if isinstance(model, str):
        state.model = model
        state.provider = provider if isinstance(provider, str) else state.provider


def _command(state: ReplayState, event: Event) -> None:
    """What a command recorded for good: ``/model``, ``/system``, ``/tools``."""
    data = event.data
    command = data.get("command")
    if command == "model" and isinstance(data.get("model"), str):
        state.model = data["model"]
        if isinstance(data.get("provider"), str):
            state.provider = data["provider"]
    elif command == "system" and (data.get("system") is None or isinstance(data["system"], str)):
        state.system_override = data.get("system")
    elif command == "tools":
        state.tools.take(event)


def fold(state: ReplayState, event: Event) -> TranscriptChange:
    """``apply``, saying how the window's transcript changed (what a view must show)."""
    before = len(state.transcript)
    if event.kind not in (Kind.REWIND, Kind.CLEAR, Kind.RETRY, Kind.CHOOSE):
        apply(state, event)
        return TranscriptChange(_events(state.transcript[before:]))
    old = list(state.transcript)
    apply(state, event)
    new = state.transcript
    kept = _kept(old, new, from_end=event.kind in (Kind.RETRY, Kind.CHOOSE))
    if kept == len(old) == len(new):
        return TranscriptChange()
    tail = new[kept:]
    group = tail[0] if tail and isinstance(tail[0], Group) else None
    if event.kind in (Kind.RETRY, Kind.CHOOSE) and group is None and kept:
        # Alternatives switched: what follows the message is another attempt now.
        after = new[kept - 1]
        if not isinstance(after, Group):
            return TranscriptChange(reshown=tuple(tail), replaced_after=after.id)
    return TranscriptChange(_events(tail[1:] if group else tail), collapsed=group)


def _kept(old: Sequence[Entry], new: Sequence[Entry], from_end: bool) -> int:
    """How many entries ``old`` and ``new`` share from the start. A retry or a choose
    changes only what follows one message, near the end: looked for from there (a
    10,000-item transcript is not walked for a switch of alternatives)."""
    shortest = min(len(old), len(new))
    if from_end:
        at = shortest
        while at and old[at - 1] is not new[at - 1]:
            at -= 1
        return at
    kept = 0
    while kept < shortest and old[kept] is new[kept]:
        kept += 1
    return kept


def _events(entries: Sequence[Entry]) -> tuple[Event, ...]:
    return tuple(e for e in entries if not isinstance(e, Group))


def replay(
    segments: Sequence[Sequence[Event]],
    step: Callable[[ReplayState, Event], None] = apply,
) -> ReplayState:
    """Fold the segments (oldest ancestor first) into a fresh state; ``step`` folds one
    event (``apply``, or a reader's wrapper around it that watches each change).

    Marks are not inherited: the mark stack is emptied at each boundary from an
    ancestor's range to a descendant's.
    """
    state = ReplayState()
    for index, segment in enumerate(segments):
        if index:
            state.marks.clear()
        for event in segment:
            step(state, event)
    return state


def replay_conversation(store: Store, conv_id: str) -> ReplayState:
    segments = load_segments(store, conv_id)
    state = replay(segments)
    group = cleared_group(store, segments)
    if group is not None:  # first, as the live fold has it: the marks count it too
        state.transcript.insert(0, group)
        state.marks[:] = [replace(m, transcript_len=m.transcript_len + 1) for m in state.marks]
    return state
