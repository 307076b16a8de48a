"""The open conversation: which one is on screen, its replayed state, and every change
to it (append + fold, the working prompt, marks, rewind, clear, fork, kill).

Every operation ends in :meth:`OpenConversation.apply` with a
:class:`~ikgui.domain.state.changes.Changes`: apply writes its events and fields through
the one writer (:mod:`ikgui.domain.session.writes`: now, or queued in ``writes`` when
the store refuses), folds its events into the live state with the same fold replay
uses, and tells the listeners one :class:`~ikgui.domain.state.facts.Changed` per
conversation. Nothing else assigns this state, except the switches.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from ikgui.domain.attachments import StoredFile
from ikgui.domain.errors import NotFoundError, StorageError, UserError
from ikgui.domain.events import (
    BRANCH_FORK,
    BRANCH_REASONS,
    BY_USER,
    STATUS_KILLED,
    Conversation,
    EncodedData,
    Event,
    Kind,
)
from ikgui.domain.folders import Project, SystemPart, project_of
from ikgui.domain.library.conversations import apply_tag_changes, descendants, retag
from ikgui.domain.ports import Store
from ikgui.domain.session import closing
from ikgui.domain.session import writes as write_ops
from ikgui.domain.session.pending import PendingWrites
from ikgui.domain.session.prompt_edits import PromptEditing
from ikgui.domain.session.read_only import ReadOnly, read_only, refuse
from ikgui.domain.settings import AgentSettings, Settings
from ikgui.domain.state.changes import Changes, Growth, NewEvent, StoreWrite
from ikgui.domain.state.context import Message, build_context
from ikgui.domain.state.facts import (
    Changed,
    ConversationSwitched,
    DeltaReceived,
    Fact,
    StateReplaced,
    TranscriptChange,
    aspects_of,
)
from ikgui.domain.state.ids import new_id, normalize_tag, resolve_ref
from ikgui.domain.state.replay import ReplayState, fold, set_prompt
from ikgui.domain.state.rules import (
    current_model,
    current_provider,
    fork_title,
    title_for_first_message,
)
from ikgui.domain.state.tally import is_message as counts_as_message
from ikgui.domain.state.transcript import replace_event

Listener = Callable[[Fact], None]


def _rows(results: tuple[Any, ...]) -> dict[str, Conversation]:
    """The conversations' rows among what writes returned (one, or a list of them)."""
    rows: dict[str, Conversation] = {}
    for result in results:
        for item in result if isinstance(result, list) else [result]:
            if isinstance(item, Conversation):
                rows[item.id] = item
    return rows


class OpenConversation(PromptEditing):
    def __init__(
        self,
        store: Store,
        settings: Settings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        keep_pending: bool = True,
    ) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.clock = clock
        #: Keep changes the store refuses in memory (``writes``) instead of raising.
        self.keep_pending = keep_pending
        self.writes = PendingWrites(store, lambda done: write_ops.flushed(self, done))
        #: The text so far of each reply streaming now, by event id.
        self.live_text: dict[int, Callable[[], str]] = {}
        #: A one-off ``provider``/``model`` for the requests of this session only
        #: (``ikgui run -c -p/-m``); never stored, so the conversation keeps its own.
        self.overrides: dict[str, str] = {}
        self.saved = False
        #: Why nothing at all is written (the demo, a read-only store): see ``read_only``.
        self.locked: ReadOnly | None = None
        #: How many times another conversation came on screen: a view tells "still the
        #: one I saw" by it (the conversation is a value; storing it may change its id).
        self.switches = 0
        self._listeners: list[Listener] = []
        self._staged_prompt: str | None = None
        self.conversation = self._blank(None)
        #: The replayed state (``None``: opened with its replay deferred, see ``state``).
        self._state: ReplayState | None = ReplayState()
        #: Every project's settings as last read (``None``: not read yet). The window
        #: reads the project on every state read, so the store is read once, then again
        #: at each request (another process may edit them: :meth:`reread_projects`) and
        #: after this session edits them (a ``StoreWrite`` with the ``project`` aspect).
        self._projects: tuple[Project, ...] | None = None

    @property
    def state(self) -> ReplayState:
        """The open conversation's state: always its full replay. Opened with the replay
        deferred (the window's first paint shows a preview meanwhile:
        :mod:`ikgui.domain.session.tail_first`), it is replayed on first use, and said."""
        if self._state is None:
            self._state = write_ops.replayed(self, self.conversation.id)
            self.show_live_text()
            self.announce(StateReplaced(self.conversation.id, deferred=True))
        return self._state

    @state.setter
    def state(self, state: ReplayState) -> None:
        self._state = state

    @property
    def replayed(self) -> bool:
        """Whether the state is known (``False``: its replay is deferred until read)."""
        return self._state is not None

    # -- listeners -------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    @property
    def listeners(self) -> tuple[Listener, ...]:
        """Who is told this conversation's facts (a compared model's branch tells them
        its changes too: :mod:`ikgui.domain.session.comparison`)."""
        return tuple(self._listeners)

    def announce(self, fact: Fact) -> None:
        """Tell every listener ``fact`` (see :mod:`ikgui.domain.state.facts`)."""
        for listener in list(self._listeners):
            listener(fact)

    def apply(self, changes: Changes) -> tuple[Any, ...]:
        """Take in one operation (:class:`~ikgui.domain.state.changes.Changes`): the one
        place that writes its events and changes of fields (now, or queued when the store
        refuses them), folds its events into the live state, takes the conversation's new
        fields and tells the listeners, in one :class:`~ikgui.domain.state.facts.Changed`
        per conversation. Returns what each of ``changes.writes`` gave: the event written
        (under a provisional id while it waits), the reply grown, or a ``StoreWrite``'s
        answer (``None``: it waits)."""
        results: list[Any] = []
        conv_id = changes.conversation_id
        appended, updated = list(changes.appended), list(changes.updated)
        for write in changes.writes:
            if isinstance(write, NewEvent):
                data: dict[str, Any] | None = (
                    write.data  # (its JSON is made already: kept as it is)
                    if isinstance(write.data, EncodedData)
                    else dict(write.data)
                    if write.data is not None
                    else None
                )
                event = write_ops.append(
                    self,
                    conv_id,
                    write.kind,
                    write.content,
                    data,
                    title=write.title,
                    materialize=write.materialize,
                    fields=write.fields,
                    new=write.new,
                    files=write.files,
                )
                conv_id = event.conversation_id  # (a taken id is replaced when stored)
                appended.append(event)
                results.append(event)
            elif isinstance(write, Growth):
                grown = write_ops.update(self, write.event, write.content, dict(write.data))
                updated.append((write.event, grown))
                results.append(grown)
            else:
                results.append(write_ops.store(self, write))
                if "project" in write.aspects:
                    self._projects = None  # (edited: read again when next asked)
        if changes.writes:
            changes = dataclasses.replace(
                changes, conversation_id=conv_id, appended=tuple(appended), updated=tuple(updated)
            )
        rows = _rows(tuple(results))
        for each in (changes, *changes.others):
            row = rows.get(each.conversation_id)
            if row is not None:  # the store's answer: the row as written
                each = dataclasses.replace(each, fields=self._differs(row), conversation=row)
            fact = self._take(each)
            if fact is not None:
                self.announce(fact)
        return tuple(results)

    def _take(self, changes: Changes) -> Changed | None:
        """Fold ``changes`` into the live state; the fact that tells them (``None``:
        nothing changed)."""
        conv_id = changes.conversation_id
        here = conv_id == self.conversation.id
        if changes.projects is not None:
            self._projects = changes.projects
        if here and changes.fields:
            self.conversation = dataclasses.replace(self.conversation, **changes.fields)
        if here and changes.replayed:  # (folded from the store: its rows, what waits)
            self.state = write_ops.replayed(self, conv_id)
            self.show_live_text()
        appended: list[tuple[Event, TranscriptChange | None]] = []
        for event in changes.appended:
            change = None
            if here:
                change = fold(self.state, event)
                step = 1 if counts_as_message(event.kind, event.content) else 0
                self.conversation = dataclasses.replace(
                    self.conversation,
                    updated_at=event.created_at,
                    message_count=self.conversation.message_count + step,
                )
            appended.append((event, change))
        for before, event in changes.updated:
            if here:
                self._patch(before, event)
        aspects = changes.aspects()
        if not aspects:
            return None
        updated = tuple(event for _, event in changes.updated)
        summary = self._summary(changes)
        return Changed(conv_id, summary, tuple(appended), updated, changes.elsewhere, aspects)

    def _patch(self, before: Event, after: Event) -> None:
        """Put a grown event into the state; a reply's first text counts as a message, as
        the store counts it (``before``: the event as last written)."""
        write_ops.patch(self.state, (before.id, after.id), after)
        was = counts_as_message(before.kind, before.content)
        now = counts_as_message(after.kind, after.content)
        if was != now:
            count = self.conversation.message_count + (1 if now else -1)
            self.conversation = dataclasses.replace(self.conversation, message_count=count)

    def _summary(self, changes: Changes) -> Conversation | None:
        """The conversation as the store holds it now: the open one when the changes are
        its own, made here and all written; another when the operation knows its row
        (``None``: a reader must read the row)."""
        conv_id = changes.conversation_id
        if conv_id != self.conversation.id:
            return changes.conversation if not self.writes.touches(conv_id) else None
        if changes.elsewhere or not changes.fields_known:
            return None
        if not self.saved or self.writes.touches(conv_id):
            return None
        return self.conversation

    @property
    def closed(self) -> bool:
        """Whether the conversation on screen is a closed branch (read-only)."""
        return self.saved and closing.is_closed(self.conversation)

    @property
    def trashed(self) -> bool:
        """Whether the conversation on screen is in the Trash (read-only)."""
        return self.saved and closing.is_trashed(self.conversation)

    @property
    def read_only(self) -> ReadOnly | None:
        """Why nothing is written (the demo, a read-only store) or the conversation on
        screen takes no input (closed, in the Trash); ``None``: it may be written."""
        return read_only(self.locked, self.conversation, self.saved)

    def ensure_open(self) -> None:
        """Refuse input when :attr:`read_only` says so (see
        :mod:`ikgui.domain.session.read_only`)."""
        refuse(self.read_only)

    def here(self) -> str:
        """The id of the conversation on screen."""
        return self.conversation.id

    # -- which conversation ------------------------------------------------------
    def _blank(self, agent: str | None) -> Conversation:
        provider, model = self.settings.defaults_for(agent)
        now = self.clock()
        return Conversation(
            id=new_id(agent, self.store.conversation_exists),
            agent=agent,
            provider=provider,
            model=model,
            created_at=now,
            updated_at=now,
        )

    def prepare(self, **fields: Any) -> None:
        """Set fields of the conversation not stored yet (stored with it on its first
        event): the new settings' defaults, the demo's agents."""
        if self.saved:
            raise UserError("This conversation is stored already")
        self.conversation = dataclasses.replace(self.conversation, **fields)

    def new_conversation(
        self, agent: str | None = None, *, project: str | None = None
    ) -> Conversation:
        """Switch to a new, not yet stored conversation (stored on its first event).
        ``project``: a folder; the conversation is tagged with it and takes its
        project's agent, provider and model (``agent`` wins); its files are the first
        message's (``Session.project_files``), its system prompt and tools are read at
        each request (SPEC §15)."""
        folder = normalize_tag(project) if project else None
        if folder is not None:  # (read now: the defaults it takes are the store's)
            self._projects = tuple(self.store.projects())
        # The folder's own settings, or those of the project it is inside.
        settings = project_of((folder,), self.projects) if folder else None
        agent = agent or (settings.agent if settings else None) or None
        if agent is not None and agent not in self.settings.agents:
            raise UserError(f"Unknown agent '{agent}'")
        conv = self._blank(agent)
        if folder is not None:
            conv = dataclasses.replace(
                conv,
                tags=(folder,),
                provider=(settings and settings.provider) or conv.provider,
                model=(settings and settings.model) or conv.model,
            )
        self.conversation = conv
        self.switches += 1
        self.saved = False
        self.state = ReplayState()
        self._staged_prompt = self.set_aside_prompt = None
        self.announce(ConversationSwitched(self.conversation.id))
        return self.conversation

    def open(self, conv_id: str, *, replay_later: bool = False) -> Conversation:
        """Switch to a stored conversation and replay it (``replay_later``: when its state
        is first read, see ``state``)."""
        conv = self.store.get_conversation(conv_id) or self.writes.conversation(conv_id)
        if conv is None:
            raise NotFoundError(f"Conversation not found: {conv_id}")
        previous = self.conversation.id
        self.switches += conv.id != previous
        self.conversation = conv
        self.saved = True
        self._state = None
        if not replay_later:
            self.state = write_ops.replayed(self, conv_id)
            self.show_live_text()
        self._staged_prompt = None
        if conv.id != previous:
            self.set_aside_prompt = None  # (the window keeps it with its conversation)
        self.announce(ConversationSwitched(conv.id))
        return conv

    def show_live_text(self) -> None:
        """A reply still streaming here was saved up to a second ago: show all of it."""
        for items in (self.state.context, self.state.scrollback):
            for index, event in enumerate(items):
                text = self.live_text.get(event.id)
                if text is not None:
                    items[index] = event.with_changes(text(), event.data)
        for event in self.state.scrollback:  # the transcript shows the same
            if event.id in self.live_text:
                replace_event(self.state.transcript, event.id, event)

    def open_ref(self, ref: str) -> Conversation:
        return self.open(resolve_ref(self.store, ref))

    def reload(self) -> None:
        """Re-read the current conversation (another process may have written to it)."""
        if self.saved and not self.writes.touches(self.conversation.id):
            self.open(self.conversation.id)  # (the store lacks what still waits)

    def replay_again(self) -> None:
        """Replay the current conversation from the store (another process wrote to it)."""
        conv_id = self.conversation.id
        if not self.writes.touches(conv_id):
            row = self.store.get_conversation(conv_id) if self.saved else None
            fields = self._differs(row) if row is not None else {}
            self.apply(Changes(conv_id, fields=fields, replayed=True, fields_known=False))

    def refresh_conversation(self) -> Conversation:
        """Re-read the open conversation's row, telling no one (whoever changed it told)."""
        if self.saved:
            conv = self.store.get_conversation(self.conversation.id)
            if conv is not None:
                self._take(Changes(conv.id, fields=self._differs(conv)))
        return self.conversation

    def _differs(self, conv: Conversation) -> dict[str, Any]:
        """The fields in which ``conv`` differs from the open conversation (none: it is
        another)."""
        if conv.id != self.conversation.id:
            return {}
        shown = self.conversation
        return {
            f.name: getattr(conv, f.name)
            for f in dataclasses.fields(conv)
            if getattr(shown, f.name) != getattr(conv, f.name)
        }

    # -- derived values ------------------------------------------------------------
    @property
    def agent_settings(self) -> AgentSettings | None:
        return self.settings.agent(self.conversation.agent)

    @property
    def provider(self) -> str:
        return self.overrides.get("provider") or current_provider(
            self.state, self.conversation, self.settings
        )

    @property
    def model(self) -> str | None:
        """The model of the next request: the replayed state's ``/model`` wins over the
        conversation's column (see :func:`ikgui.domain.state.rules.current_model`)."""
        return self.overrides.get("model") or current_model(
            self.state, self.conversation, self.settings
        )

    @property
    def prompt_mode(self) -> str:
        agent = self.agent_settings
        return agent.prompt_mode if agent else "off"

    @property
    def projects(self) -> tuple[Project, ...]:
        """Every project's settings, as last read from the store (read now if never: a
        store that cannot answer has none until the next request reads them again)."""
        if self._projects is None:
            try:
                self._projects = tuple(self.store.projects())
            except StorageError:
                self._projects = ()
        return self._projects

    @property
    def project(self) -> Project | None:
        """The project the conversation is in (the deepest project folder holding one
        of its tags): its settings are never copied into the conversation, and are
        read from the store at each request (:meth:`reread_projects`)."""
        if not self.conversation.tags:
            return None
        return project_of(self.conversation.tags, self.projects)

    def reread_projects(self) -> None:
        """Read the projects' settings from the store again (before each request:
        another process may have edited them); the conversation on screen is told
        (the ``project`` aspect) when its project's settings changed. A store that
        cannot answer leaves those last read."""
        try:
            fresh = tuple(self.store.projects())
        except StorageError:
            return
        if self._projects is None or not self.conversation.tags:
            self._projects = fresh  # (nobody was shown the old ones)
            return
        tags = self.conversation.tags
        told = project_of(tags, fresh) != project_of(tags, self._projects)
        aspects = frozenset({"project"}) if told else frozenset()
        self.apply(Changes(self.conversation.id, also=aspects, projects=fresh))

    def system_parts(self) -> list[SystemPart]:
        """The system prompt of the next request, part by part with where each came
        from: the agent's, then the project's; a ``/system`` of the conversation's own
        replaces both (an empty one: no system prompt)."""
        if self.state.system_override is not None:
            text = self.state.system_override
            return [SystemPart("/system", text)] if text else []
        parts: list[SystemPart] = []
        agent = self.agent_settings
        if agent is not None and agent.system_prompt:
            parts.append(SystemPart("agent", agent.system_prompt, agent.name))
        project = self.project
        if project is not None and project.system_prompt:
            parts.append(SystemPart("project", project.system_prompt, project.folder))
        return parts

    @property
    def system_prompt(self) -> str | None:
        """The parts of :meth:`system_parts` as the request carries them: one text."""
        return "\n\n".join(p.text for p in self.system_parts()) or None

    def context(self) -> list[Message]:
        """Exactly what the model would receive next (SPEC §7)."""
        return build_context(self.state, self.system_prompt, self.settings.tool_output_kb)

    # -- writing ---------------------------------------------------------------
    def materialize(self) -> None:
        """Store the current conversation if it is not stored yet."""
        if self.saved:
            return
        conv = self.conversation
        if self.store.conversation_exists(conv.id):
            conv = dataclasses.replace(conv, id=new_id(conv.agent, self.store.conversation_exists))
        now = self.clock()
        self.conversation = conv = dataclasses.replace(conv, created_at=now, updated_at=now)
        self.store.insert_conversation(conv)
        self.saved = True

    def mark_stored(self, saved: bool) -> None:
        """Say whether the conversation is stored after a write the store refused: not
        if its insert was undone and nothing may wait, yes if it waits in the queue."""
        self.saved = saved

    def replay_written(self) -> None:
        """Everything of the open conversation that waited is written: its state is a
        fresh replay again (the provisional ids are gone)."""
        self.apply(Changes(self.conversation.id, replayed=True, fields_known=False))

    def append(
        self,
        kind: str,
        content: str = "",
        data: dict[str, Any] | None = None,
        files: Sequence[StoredFile] = (),
    ) -> Event:
        """Commit one event to the current conversation and fold it into the state
        (kept in ``writes`` if the store refuses it: see ``ikgui.domain.session.writes``).
        ``files``: the bytes of files ``data["attachments"]`` lists, stored with it in
        one transaction (and kept with it while it waits)."""
        refuse(self.locked)  # (a reply under way may still end in a closed branch)
        if self.saved:
            closing.refuse_closed(self.conversation, kind)
        title = title_for_first_message(self.conversation, kind, content, data)
        write = NewEvent(kind, content, data, title=title, materialize=True, files=tuple(files))
        fields = {"title": title} if title else {}
        (event,) = self.apply(Changes(self.conversation.id, fields=fields, writes=(write,)))
        return cast(Event, event)

    def append_to(
        self, conv_id: str, kind: str, content: str = "", data: dict[str, Any] | None = None
    ) -> Event:
        """Append to any conversation; folded into the state only if it is on screen."""
        if conv_id == self.conversation.id:
            return self.append(kind, content, data)
        (event,) = self.apply(Changes(conv_id, writes=(NewEvent(kind, content, data),)))
        return cast(Event, event)

    def update_event(self, event: Event, content: str, data: dict[str, Any]) -> Event:
        """Grow a streaming event in place (the one row that changes)."""
        grown = Growth(event, content, data)
        (updated,) = self.apply(Changes(event.conversation_id, writes=(grown,)))
        return cast(Event, updated)

    def add_usage(self, conv_id: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        """Count a reply's tokens and cost (also in the fields shown, if on screen)."""

        def adding(store: Store) -> None:
            store.add_usage(conv_id, input_tokens, output_tokens, cost)

        fields: dict[str, Any] = {}
        if conv_id == self.conversation.id:
            conv = self.conversation
            fields = {
                "tokens_input": conv.tokens_input + input_tokens,
                "tokens_output": conv.tokens_output + output_tokens,
                "cost": conv.cost + cost,
            }
        what = f"usage: +{input_tokens} tokens in, +{output_tokens} out, +{cost:g} cost"
        write = StoreWrite((conv_id,), what, adding, frozenset({"usage"}))
        self.apply(Changes(conv_id, fields=fields, also=write.aspects, writes=(write,)))

    def emit_delta(self, event: Event, text: str) -> None:
        real = self.writes.written.get(event.id)
        if real is not None:  # saved late: the view knows it by its real id now
            event = Event(real, event.conversation_id, event.kind, "", None, event.created_at)
        self.announce(DeltaReceived(event.conversation_id, event, text))

    def set_reply_prompt(self, reply: Event, prompt: str) -> None:
        """A finished reply of the current conversation set the working prompt: set it as
        replay would, even if events followed the reply."""
        context = self.state.context
        last = bool(context) and context[-1].id == reply.id
        if last and not any(m.event_id > reply.id for m in self.state.marks):
            set_prompt(self.state, reply, prompt)
        else:  # (replayed quietly: only the reply's draft is told, below)
            self._take(Changes(self.conversation.id, replayed=True))
        if reply.id in self.state.prompt_before:  # the view shows the draft under it
            self.apply(Changes(reply.conversation_id, updated=((reply, reply),)))

    def update_fields(self, **changes: Any) -> None:
        """Change stored conversation fields (title, model...)."""
        if write_ops.fields_wait(self, changes):  # drafts, while changes wait: in memory
            self.apply(Changes(self.conversation.id, fields=changes))
            return
        self._store_first()
        conv_id = self.conversation.id

        def setting(store: Store) -> None:
            store.update_conversation(conv_id, **changes)

        aspects = aspects_of(changes)
        what = "; ".join(f"{name}: {value}" for name, value in changes.items())
        write = StoreWrite((conv_id,), what, setting, aspects)
        self.apply(Changes(conv_id, fields=changes, writes=(write,)))

    def _store_first(self) -> None:
        """Store the conversation on screen before a change of its fields (its insert is
        not queued: a store that refuses it refuses the change)."""
        if not self.saved:
            with self.store.transaction():
                self.materialize()

    def keep_drafts(self, conv_id: str, **drafts: str | None) -> None:
        """Store drafts of conversation ``conv_id`` (the open one, or one the window has
        just left): the message typed and not sent, the working prompt's unsaved edit and
        the edit a Clear set aside (``write_ops.DRAFTS``). Session state, not a change of
        the conversation: nothing is announced (the window holds them as typed). While
        other changes wait to be written, the open conversation's stay in memory."""
        unknown = sorted(set(drafts) - write_ops.DRAFTS)
        if unknown:
            raise ValueError(f"Not a draft: {', '.join(unknown)}")
        if not drafts:
            return
        here = conv_id == self.conversation.id
        if here and not self.saved:
            raise UserError("This conversation is not saved yet; its drafts stay in the window")
        if not (here and write_ops.fields_wait(self, drafts)):
            self.store.update_conversation(conv_id, **drafts)
        if here:  # (folded, and nothing told: see above)
            self._take(Changes(conv_id, fields=drafts))

    def retag(self, changes: list[str]) -> tuple[str, ...]:
        """Apply ``+a -b`` to the tags as stored now, atomically: others' tags are kept
        (while the change waits in the queue, the tags shown are those known here)."""
        apply_tag_changes((), changes)  # a bad tag is refused before anything is written
        self._store_first()
        conv_id = self.conversation.id
        known = tuple(apply_tag_changes(self.conversation.tags, changes))
        tags = frozenset({"tags"})
        what = f"tags: {' '.join(changes)}"
        write = StoreWrite((conv_id,), what, lambda store: retag(store, conv_id, changes), tags)
        self.apply(Changes(conv_id, fields={"tags": known}, also=tags, writes=(write,)))
        return self.conversation.tags

    # -- marks -----------------------------------------------------------------
    def mark(self, label: str | None) -> Event:
        return self.append(Kind.MARK, "", {"label": label or None})

    def rewind(self, label: str | None = None, *, mark: int | None = None) -> Event:
        """Roll the context back to the newest mark called ``label`` (default: the
        newest mark), or to the live mark whose event id is ``mark``."""
        if mark is not None:
            target = next((m for m in self.state.marks if m.event_id == mark), None)
            if target is None:
                raise UserError(f"Mark not found: {mark}")
        else:
            if not self.state.marks:
                raise UserError("No marks found")
            target = self.state.find_mark(label)
            if target is None:
                raise UserError(f"Mark not found: {label}")
        data = {"target_event_id": target.event_id, "target_label": target.label}
        return self.append(Kind.REWIND, "", data)

    def clear(self) -> Event:
        """Empty the context; an unsaved edit of the working prompt ends with it (set
        aside, see :mod:`ikgui.domain.session.prompt_edits`): the prompt it edited is gone."""
        edit = self.staged_prompt
        s = self.state  # the settings in force (replay starts at the newest clear)
        settings = {"model": s.model, "provider": s.provider, "system": s.system_override}
        data = {k: v for k, v in settings.items() if v is not None} | s.tools.carried()
        event = self.append(Kind.CLEAR, "", data)
        self.set_aside(edit)
        return event

    # -- forks -------------------------------------------------------------------
    def fork_point(self) -> int | None:
        """The newest event of the current conversation (or what it inherits)."""
        if not self.saved:
            return None
        last = self.store.last_event_id(self.conversation.id)
        return last if last is not None else self.conversation.fork_event_id

    def fork(
        self, at_event: int | None = None, prompt: str | None = None, reason: str = BRANCH_FORK
    ) -> Conversation:
        """Create a child of the current conversation and switch to it; its title is
        :func:`~ikgui.domain.state.rules.fork_title` (``prompt``: ``/fork PROMPT``'s text);
        ``reason``: why (``BRANCH_FORK``, ``BRANCH_EDIT``…), kept on the row and both
        fork events (SPEC §14)."""
        self.open(self.branch(at_event, prompt=prompt, reason=reason).id)
        return self.conversation

    def branch(
        self,
        at_event: int | None = None,
        *,
        prompt: str | None = None,
        title: str | None = None,
        model: tuple[str, str] | None = None,
        reason: str = BRANCH_FORK,
        inherit: bool = True,
    ) -> Conversation:
        """Create a child of the current conversation at ``at_event`` (default: its
        newest event; ``inherit=False``: it inherits nothing) without switching to it.
        ``title``: its own (default: :func:`~ikgui.domain.state.rules.fork_title`);
        ``model``: ``(provider, name)`` it uses from its first request on, whatever its
        ancestors chose (a compared model: recorded on its side of the fork, so replay
        agrees); ``reason``: why it was made, on the row and both fork events."""
        if reason not in BRANCH_REASONS:
            raise ValueError(f"Unknown branch reason: {reason}")
        if self.writes:
            raise UserError("Cannot fork until the changes not saved yet are written")
        with self.store.transaction():
            self.materialize()
            parent = self.conversation
            point = at_event if at_event is not None else self.fork_point()
            point = point if inherit else None
            provider = current_provider(self.state, parent, self.settings)  # (moved)
            name = current_model(self.state, parent, self.settings)  # not a one-off
            if model is not None:
                provider, name = model
            number = len(self.store.children(parent.id)) + 1
            child = Conversation(
                id=new_id(parent.agent, self.store.conversation_exists),
                parent=parent.id,
                fork_event_id=point,
                agent=parent.agent,
                provider=provider,
                model=name,
                title=title or fork_title(parent.title, number, prompt),
                tags=parent.tags,
                created_at=self.clock(),
                updated_at=self.clock(),
                branch_reason=reason,
            )
            role_data: dict[str, Any] = {"fork_event_id": point, "reason": reason}
            self.append(
                Kind.FORK,
                f"Forked child {child.id}",
                {"child_id": child.id, **role_data, "role": "parent"},
            )
            data = {"parent_id": parent.id, **role_data, "role": "child"}
            if model is not None:
                data |= {"provider": provider, "model": name}
            born = NewEvent(Kind.FORK, f"Forked from {parent.id}", data, new=child)
            self.apply(Changes(child.id, writes=(born,)))
        return child

    def reopen(self, ref: str | None) -> Conversation:
        """Reopen a closed branch (default: this one): see :mod:`ikgui.domain.session.closing`."""
        return closing.reopen(self, ref)

    def kill(self, ref: str | None, cascade: bool) -> tuple[Conversation, int]:
        """Close a branch (default: the current one); returns it and how many closed."""
        target_id = resolve_ref(self.store, ref) if ref else self.conversation.id
        target = self.store.get_conversation(target_id) if (ref or self.saved) else None
        target = self.writes.fields(target) if target is not None else None
        if target is None or target.parent is None:
            raise UserError("Cannot kill a root conversation")
        victims = [target] + (descendants(self.store, target.id) if cascade else [])
        victims = [v for v in victims if v.status != STATUS_KILLED]
        if not victims:
            raise UserError(f"Conversation already closed: {target.id}")
        content = f"Closed {len(victims)} conversations" if cascade else f"Closed {target.id}"
        data = {
            "target": target.id,
            "killed_by": BY_USER,  # who; ``from``: where the command was given
            "from": self.conversation.id,
            "cascade": cascade,
            "count": len(victims),
        }
        closing_fields = tuple((v.id, {"status": STATUS_KILLED}) for v in victims)
        write = NewEvent(Kind.AGENT_KILLED, content, data, fields=closing_fields)
        closed = tuple(
            Changes(v.id, also=frozenset({"status"}), fields_known=False) for v in victims
        )
        self.apply(Changes(target.parent, writes=(write,), others=closed))
        if self.conversation.id in {v.id for v in victims}:
            self.open(target.parent)
        return target, len(victims)
