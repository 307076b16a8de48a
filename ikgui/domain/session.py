"""The session: one current conversation, its replayed state, and every change to it.

All writes go through here (the window and the command line alike). Each change is
appended to the log, committed, folded into the live state with the same ``apply``
that replay uses, and announced to listeners as a fact (:mod:`ikgui.domain.facts`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ikgui.domain import library, sendlock
from ikgui.domain import writes as write_ops
from ikgui.domain.context import Message, build_context
from ikgui.domain.errors import NotFoundError, UsageError, UserError
from ikgui.domain.events import (
    STATUS_KILLED,
    Conversation,
    Event,
    Kind,
)
from ikgui.domain.facts import (
    ConversationChanged,
    ConversationSwitched,
    DeltaReceived,
    EventAppended,
    EventUpdated,
    Fact,
    StreamFinished,
    StreamStarted,
)

#: The old name of a fact's type (benchmarks, older tests).
from ikgui.domain.facts import SessionEvent as SessionEvent
from ikgui.domain.ids import auto_title, new_id, normalize_tag, resolve_ref
from ikgui.domain.library import descendants
from ikgui.domain.pending import PendingWrites
from ikgui.domain.ports import Store
from ikgui.domain.prompt import edit_notice
from ikgui.domain.replay import ReplayState, fold
from ikgui.domain.settings import AgentSettings, Settings
from ikgui.domain.streaming import Provider

Listener = Callable[[Fact], None]
#: Builds the provider configured under a name (raises ``ProviderError`` if it can't).
ProviderFactory = Callable[[str], Provider]
#: Lists the models a provider offers (``None`` when it cannot tell).
ModelLister = Callable[[str], list[str] | None]


class Session:
    def __init__(
        self,
        store: Store,
        settings: Settings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        provider_factory: ProviderFactory | None = None,
        model_lister: ModelLister | None = None,
        export_dir: Path | None = None,
        keep_pending: bool = True,
        send_wait: float | None = None,
    ) -> None:
        from ikgui.domain.commands import default_registry

        self.store = store
        self.settings = settings or Settings()
        self.clock = clock
        self.provider_factory = provider_factory
        self.model_lister = model_lister
        self.export_dir = export_dir or Path.cwd()
        self.registry = default_registry()
        #: Keep changes the store refuses in memory (``writes``) instead of raising.
        self.keep_pending = keep_pending
        self.writes = PendingWrites(store, lambda done: write_ops.flushed(self, done))
        #: How long a send waits for another process's reply in the same conversation.
        self.send_wait = sendlock.default_wait() if send_wait is None else send_wait
        #: The task streaming a reply, per conversation id.
        self.streams: dict[str, asyncio.Task[Any]] = {}
        #: The text so far of each reply streaming now, by event id.
        self.live_text: dict[int, Callable[[], str]] = {}
        self.quit_requested = False
        self.saved = False
        #: A one-off ``provider``/``model`` for the requests of this session only
        #: (``ikgui run -c -p/-m``); never stored, so the conversation keeps its own.
        self.overrides: dict[str, str] = {}
        self._listeners: list[Listener] = []
        self._staged_prompt: str | None = None
        self.conversation = self._blank(None)
        self.state = ReplayState()

    # -- listeners -------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def announce(self, fact: Fact) -> None:
        """Tell every listener ``fact`` (see :mod:`ikgui.domain.facts`)."""
        for listener in list(self._listeners):
            listener(fact)

    def here(self) -> str:
        """The id of the conversation on screen (facts default to it)."""
        return self.conversation.id

    @property
    def streaming(self) -> bool:
        """Whether a reply streams in the current conversation."""
        return self.conversation.id in self.streams

    # -- which conversation ------------------------------------------------------
    def _blank(self, agent: str | None) -> Conversation:
        agent_settings = self.settings.agent(agent)
        provider = (agent_settings and agent_settings.provider) or self.settings.default_provider
        model = (agent_settings and agent_settings.model) or self.settings.default_model
        now = self.clock()
        return Conversation(
            id=new_id(agent, self.store.conversation_exists),
            agent=agent,
            provider=provider,
            model=model,
            created_at=now,
            updated_at=now,
        )

    def new_conversation(self, agent: str | None = None) -> Conversation:
        """Switch to a new, not yet stored conversation (stored on its first event)."""
        agent = agent or None
        if agent is not None and agent not in self.settings.agents:
            raise UserError(f"Unknown agent '{agent}'")
        self.conversation = self._blank(agent)
        self.saved = False
        self.state = ReplayState()
        self._staged_prompt = None
        self.announce(ConversationSwitched(self.conversation.id))
        return self.conversation

    def open(self, conv_id: str) -> Conversation:
        """Switch to a stored conversation and replay it."""
        conv = self.store.get_conversation(conv_id) or self.writes.conversation(conv_id)
        if conv is None:
            raise NotFoundError(f"Conversation not found: {conv_id}")
        self.conversation = conv
        self.saved = True
        self.state = write_ops.replayed(self, conv_id)
        self._show_live_text()
        self._staged_prompt = None
        self.announce(ConversationSwitched(self.conversation.id))
        return conv

    def _show_live_text(self) -> None:
        """A reply still streaming here was saved up to a second ago: show all of it."""
        for items in (self.state.context, self.state.scrollback):
            for index, event in enumerate(items):
                text = self.live_text.get(event.id)
                if text is not None:
                    items[index] = event.with_changes(text(), event.data)

    def open_ref(self, ref: str) -> Conversation:
        return self.open(resolve_ref(self.store, ref))

    def reload(self) -> None:
        """Re-read the current conversation (another process may have written to it)."""
        if self.saved and not self.writes.touches(self.conversation.id):
            self.open(self.conversation.id)  # (the store lacks what still waits)

    def refresh_conversation(self) -> Conversation:
        if self.saved:
            conv = self.store.get_conversation(self.conversation.id)
            if conv is not None:
                self.conversation = conv
        return self.conversation

    # -- derived values ------------------------------------------------------------
    @property
    def agent_settings(self) -> AgentSettings | None:
        return self.settings.agent(self.conversation.agent)

    @property
    def provider(self) -> str:
        return (
            self.overrides.get("provider")
            or self.conversation.provider
            or self.settings.default_provider
        )

    @property
    def model(self) -> str | None:
        return (
            self.overrides.get("model")
            or self.state.model
            or self.conversation.model
            or self.settings.default_model
        )

    @property
    def prompt_mode(self) -> str:
        agent = self.agent_settings
        return agent.prompt_mode if agent else "off"

    @property
    def system_prompt(self) -> str | None:
        if self.state.system_override is not None:
            return self.state.system_override or None
        agent = self.agent_settings
        return agent.system_prompt if agent else None

    def context(self) -> list[Message]:
        """Exactly what the model would receive next (SPEC §7)."""
        return build_context(self.state, self.system_prompt)

    # -- writing ---------------------------------------------------------------
    def _materialize(self) -> None:
        if self.saved:
            return
        conv = self.conversation
        if self.store.conversation_exists(conv.id):
            conv.id = new_id(conv.agent, self.store.conversation_exists)
        conv.created_at = conv.updated_at = self.clock()
        self.store.insert_conversation(conv)
        self.saved = True

    def append(self, kind: str, content: str = "", data: dict[str, Any] | None = None) -> Event:
        """Commit one event to the current conversation and fold it into the state
        (kept in ``writes`` if the store refuses it: see ``ikgui.domain.writes``)."""
        title = None
        if kind == Kind.USER and not self.conversation.title and content.strip():
            title = auto_title(content)
        event = write_ops.append(
            self, self.conversation.id, kind, content, data, title=title, materialize=True
        )
        if title:
            self.conversation.title = title
        change = fold(self.state, event)
        self.conversation.updated_at = event.created_at
        if kind == Kind.USER or (kind == Kind.ASSISTANT and content):
            self.conversation.message_count += 1
        self.announce(EventAppended(self.conversation.id, event, change))
        return event

    def append_to(
        self, conv_id: str, kind: str, content: str = "", data: dict[str, Any] | None = None
    ) -> Event:
        """Append to any conversation; folded into the state only if it is on screen."""
        if conv_id == self.conversation.id:
            return self.append(kind, content, data)
        event = write_ops.append(self, conv_id, kind, content, data)
        self.announce(EventAppended(conv_id, event))
        return event

    def update_event(self, event: Event, content: str, data: dict[str, Any]) -> Event:
        """Grow a streaming event in place (the one row that changes)."""
        updated = write_ops.update(self, event, content, data)
        if event.conversation_id == self.conversation.id:
            write_ops.patch(self.state, (event.id, updated.id), updated)
        self.announce(EventUpdated(event.conversation_id, updated))
        return updated

    def add_usage(self, conv_id: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        write_ops.add_usage(self, conv_id, input_tokens, output_tokens, cost)

    def emit_delta(self, event: Event, text: str) -> None:
        real = self.writes.written.get(event.id)
        if real is not None:  # saved late: the view knows it by its real id now
            event = Event(real, event.conversation_id, event.kind, "", None, event.created_at)
        self.announce(DeltaReceived(event.conversation_id, event, text))

    def update_fields(self, **changes: Any) -> None:
        """Change stored conversation fields (title, tags via ``set_tags``...)."""
        if not write_ops.fields_wait(self, changes):
            with self.store.transaction():
                self._materialize()
                self.store.update_conversation(self.conversation.id, **changes)
        for name, value in changes.items():
            setattr(self.conversation, name, value)
        self.announce(ConversationChanged(self.conversation.id))

    def set_tags(self, tags: list[str]) -> None:
        with self.store.transaction():
            self._materialize()
            self.store.set_tags(self.conversation.id, sorted(set(tags)))
        self.conversation.tags = tuple(sorted(set(tags)))
        self.announce(ConversationChanged(self.conversation.id))

    # -- sending -----------------------------------------------------------------
    async def execute(self, line: str) -> str:
        """Run one line from the prompt editor or ``ikgui run``; returns the output."""
        if line.startswith("//"):
            await self.send(line[1:])
            return ""
        if line.startswith("/"):
            result = self.registry.dispatch(self, line)
            if result.send is not None:
                await self.send(result.send)
            return result.output
        await self.send(line)
        return ""

    async def send(self, text: str) -> Event | None:
        """Send ``text`` and stream the reply into the log; returns the reply event.

        The user event is committed before the request. Failures are recorded as an
        ``error`` event and raised as ``ProviderError``; cancelling keeps the partial
        reply, marked interrupted.
        """
        from ikgui.domain.reply import stream_reply

        if self.provider_factory is None:
            raise UsageError("no provider configured")
        if self.streaming:
            raise UserError("A reply is already streaming in this conversation")
        conv_id = self.conversation.id
        lock = await sendlock.hold(self, conv_id)  # one reply at a time, across processes
        try:
            self.commit_prompt()
            self.append(Kind.USER, text)
            task = asyncio.current_task()
            if task is not None:
                self.streams[conv_id] = task
            self.announce(StreamStarted(conv_id))
            try:
                return await stream_reply(self, conv_id)
            finally:
                self.streams.pop(conv_id, None)
                self.announce(StreamFinished(conv_id))
        finally:
            lock.release()

    def stop(self, conv_id: str | None = None) -> bool:
        """Stop the reply streaming in a conversation (default: the current one)."""
        task = self.streams.get(conv_id or self.conversation.id)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    # -- working prompt ------------------------------------------------------------
    def stage_prompt(self, text: str) -> None:
        """Remember an uncommitted edit of the working prompt (the editor's content)."""
        self._staged_prompt = text

    @property
    def prompt_edited(self) -> bool:
        return self._staged_prompt is not None and self._staged_prompt != self.state.working_prompt

    def commit_prompt(self) -> Event | None:
        """Record the staged edit as one notice, if it differs from the recorded prompt."""
        staged, self._staged_prompt = self._staged_prompt, None
        if staged is None or staged == self.state.working_prompt:
            return None
        return self.append(Kind.PROMPT_EDIT, edit_notice(staged), {"prompt": staged})

    def edit_prompt(self, text: str) -> Event | None:
        self.stage_prompt(text)
        return self.commit_prompt()

    # -- marks -----------------------------------------------------------------
    def mark(self, label: str | None) -> Event:
        return self.append(Kind.MARK, "", {"label": label or None})

    def rewind(self, label: str | None) -> Event:
        if not self.state.marks:
            raise UserError("No marks found")
        target = self.state.find_mark(label)
        if target is None:
            raise UserError(f"Mark not found: {label}")
        return self.append(
            Kind.REWIND,
            "",
            {"target_event_id": target.event_id, "target_label": target.label},
        )

    def rewind_to(self, mark_event_id: int) -> Event:
        """Rewind to a specific live mark (the toolbar's mark menu)."""
        for mark in self.state.marks:
            if mark.event_id == mark_event_id:
                return self.append(
                    Kind.REWIND, "", {"target_event_id": mark.event_id, "target_label": mark.label}
                )
        raise UserError(f"Mark not found: {mark_event_id}")

    def clear(self) -> Event:
        settings = {"model": self.state.model, "system": self.state.system_override}
        return self.append(Kind.CLEAR, "", {k: v for k, v in settings.items() if v is not None})

    # -- forks -------------------------------------------------------------------
    def fork_point(self) -> int | None:
        """The newest event of the current conversation (or what it inherits)."""
        if not self.saved:
            return None
        last = self.store.last_event_id(self.conversation.id)
        return last if last is not None else self.conversation.fork_event_id

    def fork(self, at_event: int | None = None) -> Conversation:
        """Create a child of the current conversation and switch to it."""
        if self.streaming:
            raise UserError("Cannot fork while a reply is streaming")
        if self.writes:
            raise UserError("Cannot fork until the changes not saved yet are written")
        with self.store.transaction():
            self._materialize()
            parent = self.conversation
            point = at_event if at_event is not None else self.fork_point()
            child = Conversation(
                id=new_id(parent.agent, self.store.conversation_exists),
                parent=parent.id,
                fork_event_id=point,
                agent=parent.agent,
                provider=parent.provider,
                model=self.model,
                title=parent.title,
                tags=parent.tags,
                created_at=self.clock(),
                updated_at=self.clock(),
            )
            self.store.insert_conversation(child)
            role_data = {"fork_event_id": point}
            self.append(
                Kind.FORK,
                f"Forked child {child.id}",
                {"child_id": child.id, **role_data, "role": "parent"},
            )
            self.store.append_event(
                child.id,
                Kind.FORK,
                f"Forked from {parent.id}",
                {"parent_id": parent.id, **role_data, "role": "child"},
            )
        self.open(child.id)
        return self.conversation

    def kill(self, ref: str | None, cascade: bool) -> tuple[Conversation, int]:
        """Close a branch (default: the current one); returns it and how many closed."""
        target_id = resolve_ref(self.store, ref) if ref else self.conversation.id
        target = self.store.get_conversation(target_id) if (ref or self.saved) else None
        if target is None or target.parent is None:
            raise UserError("Cannot kill a root conversation")
        victims = [target] + (descendants(self.store, target.id) if cascade else [])
        victims = [v for v in victims if v.status != STATUS_KILLED]
        if not victims:
            raise UserError(f"Conversation already closed: {target.id}")
        killer = self.conversation.id
        content = f"Closed {len(victims)} conversations" if cascade else f"Closed {target.id}"
        data = {"target": target.id, "killed_by": killer, "cascade": cascade, "count": len(victims)}
        with self.store.transaction():
            for victim in victims:
                self.store.update_conversation(victim.id, status=STATUS_KILLED)
            event = self.store.append_event(target.parent, Kind.AGENT_KILLED, content, data)
        closed_ids = {v.id for v in victims}
        if self.conversation.id in closed_ids:
            self.open(target.parent)
        elif self.conversation.id == target.parent:
            self.announce(EventAppended(self.conversation.id, event, fold(self.state, event)))
        self.announce(ConversationChanged(self.conversation.id))
        return target, len(victims)

    # -- managing any conversation (the sidebar) -----------------------------------
    def _changed(self, conv: Conversation) -> Conversation:
        if conv.id == self.conversation.id:
            self.conversation = conv
        self.announce(ConversationChanged(conv.id))
        return conv

    def rename(self, conv_id: str, title: str) -> Conversation:
        return self._changed(library.rename(self.store, conv_id, title))

    def set_tags_of(self, conv_id: str, tags: list[str]) -> Conversation:
        """Replace a conversation's tags (each normalized; raises on a bad one)."""
        clean = sorted({normalize_tag(t) for t in tags if t.strip()})
        self.store.set_tags(conv_id, clean)
        conv = self.store.get_conversation(conv_id)
        if conv is None:
            raise NotFoundError(f"Conversation not found: {conv_id}")
        return self._changed(conv)

    def trash(self, conv_id: str) -> Conversation:
        return self._changed(library.trash(self.store, conv_id, self.clock()))

    def restore(self, conv_id: str) -> Conversation:
        return self._changed(library.restore(self.store, conv_id))
