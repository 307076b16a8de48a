"""Writes the store refused (disk full, database locked), kept in order until it takes them.

SPEC §11: when a write fails the session keeps working in memory. Each change it could
not commit is queued here: a new event gets a provisional id (above every real id, so
"later" still compares as greater), a growing reply's saves merge into its queued row,
a change of fields (a rename, tags, the Trash, usage: a ``StoreWrite``) waits as the
one store call it is, and nothing is written ahead of an earlier queued change.
:meth:`PendingWrites.flush` writes the queue in order (the retry loop calls it with
back-off, or at once on "Retry now") and returns which provisional ids became which real ones.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ikgui.domain.attachments import StoredFile
from ikgui.domain.errors import IkguiError, StorageError
from ikgui.domain.events import Conversation, Event
from ikgui.domain.ports import Store
from ikgui.domain.state.changes import StoreWrite
from ikgui.domain.state.facts import aspects_of

#: Provisional event ids start here: above any real id, still exact as a JSON number.
PROVISIONAL_BASE = 1 << 52
#: Seconds between retries: doubling from the first to the last.
FIRST_DELAY = 1.0
MAX_DELAY = 30.0
#: Event data fields that name another event by id (remapped once that one is written).
_ID_FIELDS = ("target_event_id", "fork_event_id")


def is_provisional(event_id: int) -> bool:
    return event_id >= PROVISIONAL_BASE


@dataclass
class Append:
    """A new event; ``conversation`` is inserted first when it is not stored yet, and
    ``fields`` (conversation id, fields to set: the branches a ``/kill`` closes) are
    written in the same transaction."""

    event: Event
    conversation: Conversation | None = None
    title: str | None = None
    fields: tuple[tuple[str, dict[str, Any]], ...] = ()
    #: The bytes of the files the event lists (SPEC §13), stored with it.
    files: tuple[StoredFile, ...] = ()

    @property
    def conv_id(self) -> str:
        return self.event.conversation_id


@dataclass
class Update:
    """The newest content and data of a growing (or finished) reply."""

    conv_id: str
    event_id: int
    content: str
    data: dict[str, Any]


Write = Append | Update | StoreWrite


class PendingWrites:
    """The queue of unwritten changes, in the order they happened."""

    def __init__(self, store: Store, on_flushed: Callable[[dict[int, int]], None]) -> None:
        self.store = store
        self.on_flushed = on_flushed
        self.queue: list[Write] = []
        #: Provisional id -> real id, for every event written after waiting.
        self.written: dict[int, int] = {}
        #: Why the last attempt failed (one plain line, for the window).
        self.error = ""
        #: Why, in plain words without the database's name (``StorageError.reason``).
        self.reason = ""
        #: When the retry loop tries next (``time.monotonic()``), while it waits.
        self.next_retry: float | None = None
        #: The conversations changed by the last ``flush``, with what changed.
        self.just_saved: dict[str, set[str]] = {}
        self._next_id = PROVISIONAL_BASE
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None

    def __len__(self) -> int:
        return len(self.queue)

    def __bool__(self) -> bool:
        return bool(self.queue)

    # -- what waits ----------------------------------------------------------------
    def waiting_files(self) -> dict[str, StoredFile]:
        """The files of events that wait (a message sent while the disk is full is
        sent with its files all the same: they are here, not in the store yet)."""
        return {f.sha256: f for w in self.queue if isinstance(w, Append) for f in w.files}

    def touches(self, conv_id: str) -> bool:
        return any(
            conv_id in w.conv_ids if isinstance(w, StoreWrite) else w.conv_id == conv_id
            for w in self.queue
        )

    def conversation(self, conv_id: str) -> Conversation | None:
        """A conversation whose insert still waits (it is not in the store yet)."""
        for item in self.queue:
            if isinstance(item, Append) and item.conversation and item.conv_id == conv_id:
                return item.conversation
        return None

    def fields(self, conv: Conversation) -> Conversation:
        """``conv`` as stored, with the fields still waiting to be set (a close that
        waits: the branch is closed already for the next ``/reopen``)."""
        for item in self.queue:
            if isinstance(item, Append):
                for conv_id, fields in item.fields:
                    if conv_id == conv.id:
                        conv = dataclasses.replace(conv, **fields)
        return conv

    def of(self, conv_id: str) -> Iterator[Append | Update]:
        """The queued events and updates of one conversation, in order."""
        for item in self.queue:
            if item.conv_id == conv_id and isinstance(item, Append | Update):
                yield item

    def real_id(self, event_id: int) -> int:
        return self.written.get(event_id, event_id)

    def events(self) -> list[Event]:
        """Every queued event and reply text as it stands now, and each change of fields
        in words (kind ``change``), for a recovery file."""
        found: list[Event] = []
        for item in self.queue:
            if isinstance(item, Append):
                found.append(item.event)
            elif isinstance(item, Update):
                found.append(
                    Event(item.event_id, item.conv_id, "assistant", item.content, item.data, 0)
                )
            else:  # a change of fields: what it was, in words
                for conv_id in item.conv_ids or ("ikgui",):
                    found.append(Event(0, conv_id, "change", item.what, None, 0))
        return found

    # -- queueing --------------------------------------------------------------------
    def append(
        self,
        conv_id: str,
        kind: str,
        content: str,
        data: dict[str, Any] | None,
        created_at: float,
        *,
        conversation: Conversation | None = None,
        title: str | None = None,
        fields: tuple[tuple[str, dict[str, Any]], ...] = (),
        files: tuple[StoredFile, ...] = (),
    ) -> Event:
        """Queue a new event; returns it with a provisional id."""
        event = Event(
            self._next_id, conv_id, kind, content, dict(data) if data else None, created_at
        )
        self._next_id += 1
        self.queue.append(Append(event, conversation, title, fields, files))
        return event

    def update(self, conv_id: str, event_id: int, content: str, data: dict[str, Any]) -> None:
        """Queue a reply's new content, folding it into what already waits for that row."""
        for item in self.queue:
            if isinstance(item, Append) and item.event.id == event_id:
                item.event = item.event.with_changes(content, data)
                return
            if isinstance(item, Update) and item.event_id == event_id:
                item.content, item.data = content, data
                return
        self.queue.append(Update(conv_id, event_id, content, data))

    def later(self, write: StoreWrite) -> None:
        """Queue a change of fields, after what waits already."""
        self.queue.append(write)

    # -- writing -----------------------------------------------------------------------
    def _data(self, data: dict[str, Any] | None) -> dict[str, Any] | None:
        if not data:
            return data
        fixed = dict(data)
        for name in _ID_FIELDS:
            value = fixed.get(name)
            if isinstance(value, int) and value in self.written:
                fixed[name] = self.written[value]
        return fixed

    def _write(self, item: Write) -> None:
        store = self.store
        if isinstance(item, Append):
            event = item.event
            with store.transaction():
                conv = item.conversation
                if conv is not None and not store.conversation_exists(conv.id):
                    store.insert_conversation(conv)
                for conv_id, fields in item.fields:
                    store.update_conversation(conv_id, **fields)
                real = store.append_event(
                    event.conversation_id,
                    event.kind,
                    event.content,
                    self._data(event.data),
                    created_at=event.created_at,
                    files=item.files,
                )
                if item.title:
                    store.update_conversation(event.conversation_id, title=item.title)
            self.written[event.id] = real.id
        elif isinstance(item, Update):
            store.update_event(self.real_id(item.event_id), item.content, self._data(item.data))
        else:
            with store.transaction():
                item.call(store)

    def flush(self) -> bool:
        """Write what waits, in order, until the store refuses; ``True`` when all is written."""
        done: dict[int, int] = {}
        self.just_saved = {}
        while self.queue:
            item = self.queue[0]
            try:
                self._write(item)
            except StorageError as exc:
                self.error, self.reason = exc.message, exc.reason
                break
            except IkguiError as exc:  # e.g. its conversation was deleted elsewhere
                self.error = self.reason = exc.message
            if isinstance(item, Append) and item.event.id in self.written:
                done[item.event.id] = self.written[item.event.id]
                self._saved(item.conv_id, "listed")
                for conv_id, fields in item.fields:
                    self._saved(conv_id, *aspects_of(fields))
            elif isinstance(item, StoreWrite):
                for conv_id in item.conv_ids:
                    self._saved(conv_id, *item.aspects)
            self.queue.pop(0)
        if not self.queue:
            self.error = self.reason = ""
        self.on_flushed(done)
        return not self.queue

    def _saved(self, conv_id: str, *aspects: str) -> None:
        self.just_saved.setdefault(conv_id, set()).update(aspects)

    def failed(self, exc: StorageError) -> None:
        """A direct write failed: remember why, and start retrying (if a loop runs)."""
        self.error, self.reason = exc.message, exc.reason
        self.schedule()

    # -- retrying ------------------------------------------------------------------------
    def schedule(self) -> None:
        """Start the retry loop unless it runs (without an event loop the caller flushes)."""
        if self._task is not None and not self._task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._wake = asyncio.Event()
        self._task = loop.create_task(self._retry(), name="pending-writes")

    def retry_now(self) -> None:
        """Try at once (the window's "Retry now")."""
        if self._task is not None and not self._task.done() and self._wake is not None:
            self._wake.set()
        elif self.queue and not self.flush():
            self.schedule()

    def seconds_to_retry(self) -> float | None:
        if self.next_retry is None:
            return None
        return max(0.0, self.next_retry - time.monotonic())

    async def _retry(self) -> None:
        delay = FIRST_DELAY
        assert self._wake is not None
        try:
            while self.queue:
                self.next_retry = time.monotonic() + delay
                self.on_flushed({})  # listeners see the countdown start
                while not self._wake.is_set() and time.monotonic() < self.next_retry:
                    await asyncio.sleep(min(0.1, self.next_retry - time.monotonic()))
                self._wake.clear()
                self.next_retry = None
                if self.flush():
                    return
                delay = min(delay * 2, MAX_DELAY)
        finally:
            self.next_retry = None

    async def stop(self) -> None:
        """End the retry loop (shutdown); what still waits stays queued."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task], timeout=1.0)
