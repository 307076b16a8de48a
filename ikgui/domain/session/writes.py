"""The session's writes of events, and what it does when the store refuses one (SPEC §11).

A write goes straight to the store while nothing waits; when the store raises
``StorageError`` (disk full, locked) the change is queued in ``OpenConversation.writes``
(:mod:`ikgui.domain.session.pending`) instead, the live state is folded as usual, and the
listeners hear ``writes_pending``. Once nothing waits, the queue's conversations are
replayed from the store again (so the live state equals a fresh replay) and
a ``Changed`` says it was ``replayed``: provisional ids are gone from the state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol

from ikgui.domain.attachments import StoredFile
from ikgui.domain.errors import StorageError, UserError
from ikgui.domain.events import Conversation, Event
from ikgui.domain.ports import Store
from ikgui.domain.session.pending import Append, PendingWrites, is_provisional
from ikgui.domain.state.changes import Changes, StoreWrite
from ikgui.domain.state.facts import Fact, TranscriptChange, WritesPending
from ikgui.domain.state.reading import failed_before_text
from ikgui.domain.state.replay import ReplayState, apply, replay_conversation
from ikgui.domain.state.transcript import replace_event


class Writer(Protocol):
    """What these writes need of the open conversation
    (:class:`ikgui.domain.session.open_conversation.OpenConversation`)."""

    store: Store
    writes: PendingWrites
    keep_pending: bool
    saved: bool
    conversation: Conversation
    state: ReplayState
    clock: Callable[[], float]
    live_text: dict[int, Callable[[], str]]

    def materialize(self) -> None: ...
    def mark_stored(self, saved: bool) -> None: ...
    def replay_written(self) -> None: ...
    def announce(self, fact: Fact) -> None: ...
    def apply(self, changes: Changes) -> tuple[TranscriptChange | None, ...]: ...
    def here(self) -> str: ...
    def show_live_text(self) -> None: ...


def replay_first(session: Writer, conv_id: str) -> None:
    """Before writing to the open conversation, replay it if its replay was deferred
    (``OpenConversation.state``): a replay after the write would read the new row, and
    folding the change into it would show it twice."""
    if conv_id == session.here():
        session.state  # noqa: B018


def append(
    session: Writer,
    conv_id: str,
    kind: str,
    content: str,
    data: dict[str, Any] | None,
    *,
    title: str | None = None,
    materialize: bool = False,
    fields: tuple[tuple[str, dict[str, Any]], ...] = (),
    new: Conversation | None = None,
    files: tuple[StoredFile, ...] = (),
) -> Event:
    """Commit one event, or queue it when the store refuses (or earlier changes wait);
    ``fields``: conversations' fields set in the same transaction (conversation id,
    fields), as a ``/kill`` closes branches with its event; ``new``: a conversation
    stored with its first event (a fork's child); ``files``: the bytes of the files it
    lists, stored with it (and queued with it: a full disk loses none)."""
    replay_first(session, conv_id)
    store, writes = session.store, session.writes
    was_saved = session.saved
    if not writes:
        try:
            with store.transaction():
                if materialize:
                    session.materialize()
                    conv_id = session.conversation.id  # a taken id was replaced
                if new is not None:
                    store.insert_conversation(new)
                for other, changes in fields:
                    store.update_conversation(other, **changes)
                event = store.append_event(conv_id, kind, content, data, files=files)
                if title:
                    store.update_conversation(conv_id, title=title)
            return event
        except StorageError as exc:
            if not session.keep_pending:
                session.mark_stored(was_saved)
                raise
            writes.failed(exc)
    conversation = new
    if materialize and not was_saved:  # its insert was undone with the failed append
        conversation = dataclasses.replace(session.conversation)  # as it is now: no counts
        conv_id = conversation.id
        session.mark_stored(True)  # (saved: its insert waits, first in the queue)
    event = writes.append(
        conv_id,
        kind,
        content,
        data,
        session.clock(),
        conversation=conversation,
        title=title,
        fields=fields,
        files=files,
    )
    _waits(session, conv_id)
    return event


def update(session: Writer, event: Event, content: str, data: dict[str, Any]) -> Event:
    """Save a growing reply's text; returns it under its real id once it has one."""
    replay_first(session, event.conversation_id)
    writes = session.writes
    event_id = writes.real_id(event.id)
    queued = bool(writes) or is_provisional(event_id)
    if not queued:
        try:
            session.store.update_event(event_id, content, data)
        except StorageError as exc:
            if not session.keep_pending:
                raise
            writes.failed(exc)
            queued = True
    if queued:
        writes.update(event.conversation_id, event_id, content, data)
        _waits(session, event.conversation_id)
    return Event(event_id, event.conversation_id, event.kind, content, data, event.created_at)


def store(session: Writer, write: StoreWrite) -> Any:
    """Make a change of conversations' fields now, in one transaction, or queue it when
    the store refuses it (or earlier changes wait). Returns what ``write.call``
    returned (``None``: it waits in the queue)."""
    writes = session.writes
    if writes and not write.may_wait:
        raise UserError(f"Cannot change {write.what} until the changes not saved yet are written")
    if not writes:
        try:
            with session.store.transaction():
                return write.call(session.store)
        except StorageError as exc:
            if not (session.keep_pending and write.may_wait):
                raise
            writes.failed(exc)
    writes.later(write)
    _waits(session, write.conv_id)
    return None


def _waits(session: Writer, conv_id: str) -> None:
    """A change waits in the queue: retry it, and say the queue changed."""
    session.writes.schedule()
    session.announce(WritesPending(conv_id))


#: A conversation's drafts: session state kept with it (the message typed and not sent,
#: the working prompt's unsaved edit, the edit a Clear set aside, the files attached to
#: the message and not sent).
DRAFTS = frozenset({"draft", "prompt_draft", "prompt_set_aside", "draft_files"})


def fields_wait(session: Writer, changes: dict[str, Any]) -> bool:
    """Whether conversation fields stay in memory instead of being written: drafts
    while changes wait (they are only a convenience); anything else of a conversation
    that is not stored yet is refused."""
    writes = session.writes
    if not writes:
        return False
    if set(changes) <= DRAFTS:
        return True
    if writes.conversation(session.conversation.id) is not None:
        raise UserError("This conversation is not saved yet; try again when it is")
    return False


def patch(state: ReplayState, ids: tuple[int, int], updated: Event) -> None:
    """Replace a grown event in a replayed state, as replay would show it."""
    gone = failed_before_text(updated)  # replay skips it
    for items in (state.context, state.scrollback):
        for index in range(len(items) - 1, -1, -1):
            if items[index].id in ids:
                if gone:
                    del items[index]
                else:
                    items[index] = updated
                break
    top = replace_event(state.transcript, ids[0], None if gone else updated)
    if ids[1] != ids[0] and not top:
        top = replace_event(state.transcript, ids[1], None if gone else updated)
    if gone:  # marks set after it counted it; replay never saw it
        state.marks[:] = [
            dataclasses.replace(
                mark,
                context_len=mark.context_len - 1,
                scrollback_len=mark.scrollback_len - 1,
                transcript_len=mark.transcript_len - top,
            )
            if mark.event_id > updated.id
            else mark
            for mark in state.marks
        ]


def replayed(session: Writer, conv_id: str) -> ReplayState:
    """The conversation's state from the store, with what still waits folded in."""
    writes = session.writes
    state = replay_conversation(session.store, conv_id)
    for item in writes.of(conv_id):
        if isinstance(item, Append):
            apply(state, item.event)
            continue
        known = next((e for e in state.scrollback if e.id == item.event_id), None)
        if known is not None:
            grown = known.with_changes(item.content, item.data)
            patch(state, (item.event_id, item.event_id), grown)
    return state


def flushed(session: Writer, done: dict[int, int]) -> None:
    """After an attempt: move live texts to their real ids; once all is written, make
    the state a fresh replay again and say so."""
    for provisional, real in done.items():
        text = session.live_text.pop(provisional, None)
        if text is not None:
            session.live_text[real] = text
    if done and not session.writes.touches(session.conversation.id):
        session.replay_written()
    saved, session.writes.just_saved = session.writes.just_saved, {}
    for conv_id, aspects in sorted(saved.items()):  # e.g. a new one: listed now
        session.apply(Changes(conv_id, also=frozenset(aspects), fields_known=False))
    session.announce(WritesPending(session.here()))
