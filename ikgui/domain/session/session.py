"""The session: the one object the window and the command line talk to.

It is a facade over three collaborators, each readable on its own:

- :class:`~ikgui.domain.session.open_conversation.OpenConversation` (``session.current``): which
  conversation is on screen, its replayed state and every change to it;
- :class:`~ikgui.domain.session.sender.ReplyStreamer` (``session.streamer``): sending and
  streaming replies, stopping them;
- :class:`~ikgui.domain.session.library.Library` (``session.library``): operations on any
  conversation (rename, tags, Trash, restore, clean, export, import);

plus the command registry, built by the composition root and handed in
(:func:`ikgui.domain.commands.handlers.default_registry`). What happens is announced to
listeners as facts (:mod:`ikgui.domain.state.facts`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ikgui.domain.attachments import Attachment, StoredFile, listed
from ikgui.domain.commands.registry import CommandResult, Registry
from ikgui.domain.errors import StorageError, UsageError, UserError
from ikgui.domain.events import BRANCH_EDIT, BRANCH_FORK, Conversation, Event, Kind
from ikgui.domain.folders import Project, SystemPart
from ikgui.domain.ports import Store
from ikgui.domain.session import comparison as comparing
from ikgui.domain.session.attaching import message_files
from ikgui.domain.session.comparison import Comparison, Contender
from ikgui.domain.session.crashed import (
    INTERRUPTED,
    being_written,
    interrupted_result,
    unanswered,
)
from ikgui.domain.session.library import Library
from ikgui.domain.session.open_conversation import Listener, OpenConversation
from ikgui.domain.session.pending import PendingWrites
from ikgui.domain.session.read_only import ReadOnly, refusal, store_lock
from ikgui.domain.session.reply import ProviderFactory
from ikgui.domain.session.sender import ReplyStreamer
from ikgui.domain.session.tool_loop import ToolLoop
from ikgui.domain.settings import AgentSettings, Settings
from ikgui.domain.state.alternatives import Alternatives, branch_alternatives
from ikgui.domain.state.context import Message
from ikgui.domain.state.context_diff import last_request

# The old name of a fact's type (benchmarks, older tests): see ikgui.domain.state.facts.
from ikgui.domain.state.facts import SessionEvent as SessionEvent
from ikgui.domain.state.prompt_history import RESTORED_FROM, PromptVersion, prompt_versions
from ikgui.domain.state.replay import ReplayState, load_segments
from ikgui.domain.tools import ToolHost

__all__ = ["Listener", "ModelLister", "ProviderFactory", "Session", "SessionEvent"]

#: Lists the models a provider offers (``None`` when it cannot tell).
ModelLister = Callable[[str], list[str] | None]


class Session:
    def __init__(
        self,
        store: Store,
        settings: Settings | None = None,
        *,
        registry: Registry[Session] | None = None,
        clock: Callable[[], float] = time.time,
        provider_factory: ProviderFactory | None = None,
        model_lister: ModelLister | None = None,
        export_dir: Path | None = None,
        keep_pending: bool = True,
        send_wait: float | None = None,
        tool_host: ToolHost | None = None,
    ) -> None:
        self.current = OpenConversation(store, settings, clock=clock, keep_pending=keep_pending)
        self.current.locked = store_lock(store)  # a full disk: nothing can be written
        #: The tool loop, when MCP servers can run (SPEC §12); its ``approver`` asks the
        #: user (the window's card, ``ikgui run``'s terminal).
        self.tools = ToolLoop(tool_host) if tool_host is not None else None
        self.streamer = ReplyStreamer(self.current, provider_factory, send_wait, self.tools)
        self.library = Library(self.current)
        #: The commands (none unless the composition root hands them in).
        self.registry: Registry[Session] = registry or Registry([])
        self.model_lister = model_lister
        self.export_dir = export_dir or Path.cwd()
        self.quit_requested = False
        #: The models ``/compare`` chose for the next message (``None``: it is sent as
        #: usual); the newest comparison; who is told when one starts (the window).
        self.compare_next: list[Contender] | None = None
        self.comparison: Comparison | None = None
        self.comparison_watchers: list[Callable[[Comparison], None]] = []
        #: The open branch's siblings, for its versions across branches (SPEC §14).
        self._sibling_cache: tuple[tuple[str, int], list[Conversation]] | None = None

    # -- collaborators' fields, as before ---------------------------------------------
    @property
    def store(self) -> Store:
        return self.current.store

    @property
    def settings(self) -> Settings:
        return self.current.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        """New settings (Settings → OK). A conversation not stored yet has had no choice
        made (choosing a model stores it): it takes the new defaults, so its first message
        goes where the settings say now, not where they said when it opened."""
        self.current.settings = settings
        if not self.saved:
            provider, model = settings.defaults_for(self.conversation.agent)
            self.current.prepare(provider=provider, model=model)

    @property
    def clock(self) -> Callable[[], float]:
        return self.current.clock

    @property
    def writes(self) -> PendingWrites:
        return self.current.writes

    @property
    def keep_pending(self) -> bool:
        return self.current.keep_pending

    @keep_pending.setter
    def keep_pending(self, keep: bool) -> None:
        self.current.keep_pending = keep

    @property
    def conversation(self) -> Conversation:
        return self.current.conversation

    @property
    def state(self) -> ReplayState:
        return self.current.state

    @property
    def saved(self) -> bool:
        return self.current.saved

    @property
    def closed(self) -> bool:
        """Whether the open conversation is a closed branch (read-only until reopened)."""
        return self.current.closed

    @property
    def trashed(self) -> bool:
        """Whether the open conversation is in the Trash (read-only until restored)."""
        return self.current.trashed

    @property
    def read_only(self) -> ReadOnly | None:
        """Why the session writes nothing now, or its open conversation takes no input
        (the demo, a read-only store, a closed branch, the Trash); ``None``: it may write.
        The domain refuses what it would write; the window and ``ikgui run`` show it."""
        return self.current.read_only

    def lock(self, reason: ReadOnly) -> None:
        """Write nothing from now on (the demo, once generated)."""
        self.current.locked = reason

    def refusal(self, command: str, when_closed: bool) -> UserError | None:
        """The error the command ``command`` meets now (``None``: it may run)."""
        return refusal(self.read_only, command, when_closed)

    def ensure_open(self) -> None:
        """Raise ``ClosedError`` (``TrashedError``) if the open conversation is a closed
        branch (in the Trash)."""
        self.current.ensure_open()

    @property
    def overrides(self) -> dict[str, str]:
        return self.current.overrides

    @property
    def live_text(self) -> dict[int, Callable[[], str]]:
        return self.current.live_text

    @property
    def provider_factory(self) -> ProviderFactory | None:
        return self.streamer.provider_factory

    @property
    def streams(self) -> dict[str, asyncio.Task[Any]]:
        return self.streamer.streams

    @property
    def send_wait(self) -> float:
        return self.streamer.send_wait

    @send_wait.setter
    def send_wait(self, seconds: float) -> None:
        self.streamer.send_wait = seconds

    @property
    def streaming(self) -> bool:
        """Whether a reply streams in the current conversation (or the answers of a
        comparison made from it)."""
        return self.streamer.streaming or self.comparing

    @property
    def comparing(self) -> bool:
        """Whether a comparison made from the current conversation still streams."""
        running = self.comparison
        return (
            running is not None
            and running.running
            and running.parent_id == self.current.conversation.id
        )

    # -- derived values ------------------------------------------------------------
    @property
    def agent_settings(self) -> AgentSettings | None:
        return self.current.agent_settings

    @property
    def provider(self) -> str:
        return self.current.provider

    @property
    def model(self) -> str | None:
        return self.current.model

    @property
    def prompt_mode(self) -> str:
        return self.current.prompt_mode

    @property
    def system_prompt(self) -> str | None:
        return self.current.system_prompt

    def system_parts(self) -> list[SystemPart]:
        """The next request's system prompt part by part, each with its source (agent,
        project, ``/system``): what Show context and ``conv context`` say."""
        return self.current.system_parts()

    @property
    def project(self) -> Project | None:
        """The open conversation's project, if it is in one (its settings as read at the
        last request, or since this session edited them)."""
        return self.current.project

    def project_files(self) -> tuple[Attachment, ...]:
        """The files the first message of a new conversation in a project carries (the
        project's, stored already: ``send(text, files)`` takes them as they are); none
        once the conversation has a message, or outside a project."""
        if self.current.conversation.message_count or any(
            e.kind == Kind.USER for e in self.current.state.context
        ):
            return ()
        project = self.current.project
        return project.files if project is not None else ()

    @property
    def prompt_edited(self) -> bool:
        return self.current.prompt_edited

    def context(self) -> list[Message]:
        """Exactly what the model would receive next (SPEC §7)."""
        return self.current.context()

    # -- listeners -------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self.current.subscribe(listener)

    # -- the open conversation ---------------------------------------------------------
    def new_conversation(
        self, agent: str | None = None, *, project: str | None = None
    ) -> Conversation:
        """A new conversation (stored on its first event); ``project``: a folder whose
        settings it takes and whose tag it carries (SPEC §15)."""
        self.compare_next = None  # (``/compare`` chose models for the one it was given in)
        return self.current.new_conversation(agent, project=project)

    def open(self, conv_id: str) -> Conversation:
        if conv_id != self.current.conversation.id:
            self.compare_next = None
        return self.current.open(conv_id)

    def settle_interrupted_calls(self) -> None:
        """Tool calls a stopped process left without a result get one saying so (shown
        as interrupted), unless a process holds the conversation's send lock (it may be
        running them now). None of them runs again. Called by what opens a conversation
        to act in it (``ikgui run``, the window), not by what only reads it."""
        current = self.current
        calls = unanswered(current.state.context)
        if not calls or self.read_only is not None or self.streaming:
            return
        if being_written(self.store, current.conversation.id):
            return
        for call in calls:
            current.append(Kind.TOOL_RESULT, INTERRUPTED, interrupted_result(call))

    def open_ref(self, ref: str) -> Conversation:
        return self.current.open_ref(ref)

    def reload(self) -> None:
        self.current.reload()

    def refresh_conversation(self) -> Conversation:
        return self.current.refresh_conversation()

    def append(self, kind: str, content: str = "", data: dict[str, Any] | None = None) -> Event:
        return self.current.append(kind, content, data)

    def append_to(
        self, conv_id: str, kind: str, content: str = "", data: dict[str, Any] | None = None
    ) -> Event:
        return self.current.append_to(conv_id, kind, content, data)

    def update_event(self, event: Event, content: str, data: dict[str, Any]) -> Event:
        return self.current.update_event(event, content, data)

    def add_usage(self, conv_id: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        self.current.add_usage(conv_id, input_tokens, output_tokens, cost)

    def emit_delta(self, event: Event, text: str) -> None:
        self.current.emit_delta(event, text)

    def update_fields(self, **changes: Any) -> None:
        self.current.update_fields(**changes)

    def keep_drafts(self, conv_id: str, **drafts: str | None) -> None:
        """Store a conversation's drafts (see ``OpenConversation.keep_drafts``)."""
        self.current.keep_drafts(conv_id, **drafts)

    def retag(self, changes: list[str]) -> tuple[str, ...]:
        """``/tag +a -b`` on the current conversation, atomically (see ``OpenConversation``)."""
        return self.current.retag(changes)

    def stage_prompt(self, text: str) -> None:
        self.current.stage_prompt(text)

    @property
    def staged_prompt(self) -> str | None:
        return self.current.staged_prompt

    def commit_prompt(self) -> Event | None:
        return self.current.commit_prompt()

    def revert_prompt(self) -> None:
        self.current.revert_prompt()

    def take_set_aside_prompt(self) -> str | None:
        """The unsaved prompt edit the last ``/clear`` ended, once (``None``: none)."""
        return self.current.take_set_aside()

    def edit_prompt(self, text: str) -> Event | None:
        return self.current.edit_prompt(text)

    def prompt_versions(self) -> list[PromptVersion]:
        """Every version of the working prompt this conversation's log set, oldest first."""
        if not self.saved:
            return []
        return prompt_versions(load_segments(self.store, self.conversation.id))

    def last_request(self) -> list[Message] | None:
        """What the newest reply (or failed attempt) was asked with; ``None``: never asked."""
        if not self.saved:
            return None
        return last_request(load_segments(self.store, self.conversation.id), self.system_prompt)

    def restore_prompt(self, text: str, from_event: int) -> Event | None:
        """Make an earlier version (``text``, set by event ``from_event``) the working
        prompt: a new edit that says so (history is never rewritten). ``None``: it is the
        working prompt already."""
        return self.current.edit_prompt(text, {RESTORED_FROM: from_event})

    def mark(self, label: str | None) -> Event:
        return self.current.mark(label)

    def rewind(self, label: str | None = None, *, mark: int | None = None) -> Event:
        return self.current.rewind(label, mark=mark)

    def clear(self) -> Event:
        return self.current.clear()

    def fork_point(self) -> int | None:
        return self.current.fork_point()

    def fork(
        self, at_event: int | None = None, prompt: str | None = None, reason: str = BRANCH_FORK
    ) -> Conversation:
        """Create a child of the current conversation and switch to it. Refused while a
        reply streams into it, here or in another process (``ikgui run -c``, another
        window: it holds the send lock), which would fork at a reply still growing."""
        if self.streaming or (self.saved and being_written(self.store, self.conversation.id)):
            raise UserError("Cannot fork while a reply is streaming")
        return self.current.fork(at_event, prompt, reason)

    def kill(self, ref: str | None, cascade: bool) -> tuple[Conversation, int]:
        return self.current.kill(ref, cascade)

    def reopen(self, ref: str | None = None) -> Conversation:
        """Reopen a closed branch (default: the open one)."""
        return self.current.reopen(ref)

    # -- the library ------------------------------------------------------------------
    def rename(self, conv_id: str, title: str) -> Conversation:
        return self.library.rename(conv_id, title)

    def set_tags_of(self, conv_id: str, tags: list[str]) -> Conversation:
        return self.library.set_tags(conv_id, tags)

    def retag_of(self, conv_id: str, changes: list[str]) -> Conversation:
        """``+a -b`` changes to any conversation's tags, atomically."""
        return self.library.retag(conv_id, changes)

    def trash(self, conv_id: str) -> Conversation:
        return self.library.trash(conv_id)

    def restore(self, conv_id: str) -> Conversation:
        return self.library.restore(conv_id)

    # -- sending and commands ------------------------------------------------------------
    async def send(self, text: str, files: Sequence[StoredFile | Attachment] = ()) -> Event | None:
        """Send ``text`` as it is, with ``files``, and stream the reply (see
        ``ReplyStreamer.send``); after ``/compare``, to each model chosen (no reply
        event is returned: each answer is in its own branch)."""
        picked, self.compare_next = self.compare_next, None
        if picked is not None:
            await self.compare(text, picked, files)
            return None
        if self.comparing:
            raise UserError("The models compared are still answering: wait, or stop them")
        return await self.streamer.send(text, files)

    def contenders(self, models: Sequence[str]) -> list[Contender]:
        """The models ``models`` names (``name`` or ``provider/name``), checked."""
        return comparing.contenders(models, self.settings, self.provider, self.model_lister)

    async def compare(
        self,
        text: str,
        models: Sequence[str | Contender],
        files: Sequence[StoredFile | Attachment] = (),
    ) -> Comparison:
        """Send ``text`` to each of ``models`` at once, each answer in a branch of its
        own forked at the same event; returns when every answer has ended (SPEC §14).
        One failing model does not stop the others (its answer says why)."""
        self.current.ensure_open()
        if self.streaming or (self.saved and being_written(self.store, self.conversation.id)):
            raise UserError("Cannot compare while a reply is streaming")
        factory = self.provider_factory
        if factory is None:
            raise UsageError("no provider configured")
        picked = [m for m in models if isinstance(m, Contender)]
        if len(picked) != len(models):
            picked = self.contenders([m for m in models if isinstance(m, str)])
        elif len(picked) < 2:
            raise UsageError(comparing.USAGE)
        message_files(self.current, files)  # a file that cannot go refuses it all first
        comparison = comparing.prepare(self.current, text, picked, files)
        comparison.running = True  # (its watchers see it busy from the start)
        self.comparison = comparison
        for watcher in list(self.comparison_watchers):
            watcher(comparison)
        return await comparing.run(comparison, self.current, factory, files, self.send_wait)

    def continue_with(self, branch_id: str) -> Conversation:
        """ "Continue with this one": open a compared answer's branch (the others stay
        its alternatives)."""
        return self.open(branch_id)

    async def resend(self, text: str, files: Sequence[Attachment] = ()) -> Event | None:
        """Send a stored message again (Retry, "edit and resend"): never parsed, so a
        message that reads ``/help`` is sent as text, not run as the command; ``files``:
        the files it listed (stored already)."""
        return await self.streamer.send(text, files)

    async def edit_and_resend(self, event_id: int, text: str) -> Event | None:
        """ "Edit and resend" the message ``event_id``: fork just before it and send
        ``text`` in the new branch with the files the message listed (SPEC §6, §13)."""
        event = self.store.get_event(event_id)
        if event is None or event.kind != Kind.USER:
            raise UserError("Only a message of yours can be edited and resent")
        self.fork(event_id - 1, reason=BRANCH_EDIT)
        return await self.resend(text, listed(event.data))

    # -- alternatives (SPEC §14) ---------------------------------------------------------
    def alternatives(self) -> dict[int, Alternatives]:
        """Each shown item with alternatives, by its event id: retried replies (in this
        conversation) and edited or regenerated turns (across branches). None while
        the replay is deferred (a preview is on screen: this never forces it)."""
        if not self.current.replayed:
            return {}
        found = branch_alternatives(self.conversation, self.state.transcript, self._siblings)
        found.update(self.state.retry_alternatives())  # (a reply in both: its retries)
        return found

    def _siblings(self) -> list[Conversation]:
        """The open branch's parent's children, read once per state shown (a branch made
        meanwhile is another conversation, opened with a state of its own)."""
        key = (self.conversation.id, id(self.state))
        if self._sibling_cache is None or self._sibling_cache[0] != key:
            parent = self.conversation.parent
            try:
                children = self.store.children(parent) if parent is not None else []
            except StorageError:  # (the versions elsewhere are shown once it answers)
                return []
            self._sibling_cache = (key, children)
        return self._sibling_cache[1]

    def switch_alternative(self, alternatives: Alternatives, index: int) -> None:
        """Show the ``index``-th version of a turn: a retried reply is chosen (a
        ``choose`` event, replayed ever after); a branch is opened."""
        option = alternatives.options[index]
        if option.event_id is None:
            if option.conversation_id != self.conversation.id:
                self.open(option.conversation_id)
            return
        if index == alternatives.index:
            return
        if self.streaming:
            raise UserError("Cannot switch alternatives while a reply is streaming")
        slot = self.state.slots.get(alternatives.slot_event_id)
        attempt = (
            next((a for a in slot.attempts if a.holds(option.event_id)), None) if slot else None
        )
        if attempt is None:
            raise UserError("That alternative is no longer there")
        data = {
            "slot_event_id": alternatives.slot_event_id,
            "chosen_event_id": option.event_id,
            "context_event_id": max(e.id for e in attempt.scrollback),
        }
        self.current.append(Kind.CHOOSE, "", data)

    def show_alternative_of(self, event_id: int) -> bool:
        """A search found ``event_id`` in a retried reply's attempt not shown: choose
        that attempt (SPEC §14). Returns whether one was chosen."""
        context_ids = {event.id for event in self.state.context}
        for slot in self.state.slots.values():
            if slot.user not in context_ids:
                continue
            for index, attempt in enumerate(slot.attempts):
                if index != slot.current and attempt.holds(event_id):
                    data = {
                        "slot_event_id": slot.user,
                        "chosen_event_id": attempt.first,
                        "context_event_id": max(e.id for e in attempt.scrollback),
                    }
                    self.current.append(Kind.CHOOSE, "", data)
                    return True
        return False

    async def retry(self, event_id: int) -> Event | None:
        """Retry: answer the exchange of ``event_id`` (a reply or an error) again, in
        place for the last one, never sending its message twice (see
        ``ReplyStreamer.retry``)."""
        return await self.streamer.retry(event_id)

    def use_tools(self, host: ToolHost) -> ToolHost | None:
        """Run tools on ``host`` from now on (Settings changed the servers): the loop,
        its approver and its grants stay; returns the host it replaces (to be closed)."""
        if self.tools is None:
            self.tools = self.streamer.tools = ToolLoop(host)
            return None
        old, self.tools.host = self.tools.host, host
        return old

    def stop(self, conv_id: str | None = None) -> bool:
        running = self.comparison
        if running is not None and running.running:
            ids = {running.parent_id, *(a.branch_id for a in running.answers)}
            if (conv_id or self.conversation.id) in ids:
                return running.stop()
        return self.streamer.stop(conv_id)

    async def execute(self, line: str) -> str:
        """Run one line from the prompt editor or ``ikgui run``; returns the output."""
        if line.startswith("//"):
            await self.send(line[1:])
            return ""
        if line.startswith("/"):
            return await self._then_send(self.registry.dispatch(self, line))
        await self.send(line)
        return ""

    async def run(self, name: str, /, **arguments: Any) -> str:
        """Run the command ``name`` with values (``await session.run("model",
        name="m2")``, ``run("rewind", mark=event_id)``, ``run("send", text=...)``): the
        toolbar, menus and dialogs use this, never composed lines. Returns the output."""
        return await self._then_send(self.registry.run(self, name, **arguments))

    def can_run(self, name: str) -> bool:
        """Whether the command ``name`` can act now (a toolbar action's enabled state)."""
        return self.registry.enabled(self, name)

    async def _then_send(self, result: CommandResult) -> str:
        if result.send is not None:
            await self.send(result.send)
        return result.output
