"""What the window shows, as one frozen value, and the one place it is computed.

:class:`WindowState` holds everything the window's chrome draws: which conversation is
on screen and whether a reply streams in it, what each toolbar command can do now (and
why not), the Rewind menu's marks, the window title and the title header, the status
bar's lines, the strip of a closed or trashed conversation, why the window is read-only,
the banner above the transcript (the demo's, a store opened read-only, a model server
that did not answer, config.toml's problems: :func:`banner_of`), the writes waiting, the
model list, the working prompt's state and the tool servers offered (the Tools button).

:func:`reduce` turns the domain's facts (:mod:`ikgui.domain.state.facts`) into the next
value: :func:`touched` (the ONLY place that maps a fact to the parts it can change) says
which parts to compute again, and the others are kept from the last value, so a streamed
delta asks nothing of the session and a rename asks no command whether it can run. The
chrome (:mod:`ikgui.ui.window.chrome`) then redraws only the parts that differ
(:func:`changed`).

This module never loads Qt (an import-linter contract says so): what it reads comes
through :class:`Reading`, which the chrome implements over the session and the window's
Qt-free parts, and tests implement with plain values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Protocol

from ikgui.domain.events import Kind
from ikgui.domain.session.read_only import Reason
from ikgui.domain.state import tool_use
from ikgui.domain.state.catalog import ModelGroup
from ikgui.domain.state.facts import (
    Changed,
    ConversationSwitched,
    DeltaReceived,
    Fact,
    SendWaiting,
    StateReplaced,
    StreamFinished,
    StreamStarted,
    WritesPending,
)
from ikgui.domain.state.usage import usage_text
from ikgui.domain.text.safe import one_line

if TYPE_CHECKING:
    from ikgui.domain.session.read_only import ReadOnly
    from ikgui.domain.session.session import Session

#: What the model selector and the status bar say before a model is known.
NO_MODEL = "no model"


@dataclass(frozen=True)
class CommandState:
    """One toolbar command: its action (object name), whether it can act, and why not."""

    action: str
    command: str
    enabled: bool
    why_not: str = ""


@dataclass(frozen=True)
class Title:
    #: The window's title (before :func:`ikgui.ui.plain.window_title`'s escaping).
    window: str
    #: The header above the transcript, and whether a click there renames.
    header: str
    renamable: bool


@dataclass(frozen=True)
class Status:
    """The status bar's three permanent lines."""

    model: str
    usage: str
    stream: str


@dataclass(frozen=True)
class Writes:
    """Changes the database refused, waiting in memory to be written: how many, why in
    plain words, and the database's own message."""

    count: int = 0
    reason: str = ""
    error: str = ""


DEMO_BANNER = (
    "This is a demo, generated for you and thrown away when you close this "
    "window. It is read-only: browse, search, right-click, show the context."
)


@dataclass(frozen=True)
class Banner:
    """The banner above the transcript: what it says, what it is about (``demo``,
    ``store``, ``server`` or ``config``) and whether it offers the Settings button."""

    text: str
    topic: str
    settings: bool = True


@dataclass(frozen=True)
class Notes:
    """What the window knows for its banner beside the session: config.toml's problems,
    what the open conversation's model server said when the models were asked for
    (``None``: nothing wrong, or an error card says it now), and the banners' topics the
    user dismissed (or Settings put right)."""

    problems: tuple[str, ...] = ()
    server: str | None = None
    down: frozenset[str] = field(default_factory=frozenset)

    def heard(self, server: str) -> Notes:
        """The model server did not answer (``server``: what the banner says)."""
        return replace(self, server=server, down=self.down - {"server"})

    def retired(self, topic: str) -> Notes:
        """The banner about ``topic`` steps aside if it is shown (an error card says it
        now, the selector lists the models): what it covered is not shown again."""
        if topic != "server":
            return self.dismissed(topic)
        if self.server is None:
            return self
        return replace(self, server=None, down=self.down | {"config"})

    def dismissed(self, topic: str) -> Notes:
        return replace(self, down=self.down | {topic})

    def settings_saved(self) -> Notes:
        """New settings: the problems and the server's answer are old news."""
        return replace(self, server=None, down=self.down | {"config"})


@dataclass(frozen=True)
class Models:
    """The model selector: the open conversation's provider and model, the model shown
    for it, and every provider's group of models."""

    provider: str
    model: str | None
    shown: str | None
    groups: tuple[ModelGroup, ...] = ()


@dataclass(frozen=True)
class Prompt:
    """The working prompt panel's inputs: the agent's prompt mode, the recorded prompt,
    an unsaved edit, an edit a Clear set aside (waiting to be kept), and whether the
    conversation takes no input (closed or trashed: its editor is read-only)."""

    mode: str
    working: str | None
    edited: bool
    set_aside: bool
    closed: bool = False


@dataclass(frozen=True)
class NewRow:
    """The sidebar's "New conversation" row and the empty transcript's hint."""

    new: bool
    switches: int
    agent: str | None
    empty: bool
    typed: bool


@dataclass(frozen=True)
class ToolServer:
    """One configured tool server in the toolbar's Tools menu: turned on in Settings,
    and offered in this conversation."""

    name: str
    enabled: bool
    offered: bool


@dataclass(frozen=True)
class ToolSwitches:
    """The toolbar's Tools button: the configured servers (none: the button is hidden)
    and whether this conversation can switch them (not closed, trashed nor read-only)."""

    servers: tuple[ToolServer, ...] = ()
    switchable: bool = False

    @property
    def text(self) -> str:
        offered = sum(1 for s in self.servers if s.offered)
        return f"Tools {offered}/{len(self.servers)}"


@dataclass(frozen=True)
class WindowState:
    conversation_id: str = ""
    #: Nothing stored yet and nothing on screen: the welcome instead of the transcript.
    welcome: bool = False
    streaming: bool = False
    commands: tuple[CommandState, ...] = ()
    #: The Rewind menu's live marks: (event id, label).
    marks: tuple[tuple[int, str | None], ...] = ()
    title: Title = Title("ikgui", "", False)
    status: Status = Status("", "", "Ready")
    #: The strip above the prompt: ``closed``, ``trashed`` or ``None``.
    strip: str | None = None
    #: Why this window writes nothing ("": it does): the demo, or a store opened read-only.
    read_only: str = ""
    banner: Banner | None = None
    writes: Writes = Writes()
    models: Models = Models("", None, None)
    prompt: Prompt = Prompt("", None, False, False)
    new_row: NewRow = NewRow(False, 0, None, False, False)
    tools: ToolSwitches = ToolSwitches()
    #: The newest item shown: (event id, kind) — what a screen reader is told of.
    newest: tuple[int | None, str] = (None, "")

    def command(self, action: str) -> CommandState | None:
        return next((c for c in self.commands if c.action == action), None)


#: Every part of the state, by field name.
EVERYTHING = frozenset(f.name for f in fields(WindowState))
#: What a conversation's fields (title, tags, status, trash) can change.
_FIELDS = frozenset({"title", "strip", "commands", "status", "new_row", "read_only", "prompt"})
#: What a reply starting or ending can change (the transcript itself is not chrome).
_STREAM = frozenset({"streaming", "commands", "status", "newest", "models", "prompt", "title"})
#: What each aspect of a :class:`Changed` (:data:`ikgui.domain.state.facts.ASPECTS`) can
#: change of the chrome: a rename asks no command whether it can run.
_ASPECT_PARTS: dict[str, frozenset[str]] = {
    "events": frozenset(),  # (the events appended or updated say what they change)
    "title": frozenset({"title"}),
    "tags": frozenset({"tools"}),  # (filed into a project or out: its tools)
    "pinned": frozenset(),
    "trash": frozenset({"strip", "commands", "prompt", "tools"}),
    "status": frozenset({"strip", "commands", "prompt", "tools"}),
    "usage": frozenset({"status"}),
    "model": frozenset({"status", "models", "prompt", "new_row"}),
    "project": frozenset({"tools"}),
    "drafts": frozenset(),  # (the prompt editors hold them; the chrome reads none)
    "listed": _FIELDS | {"welcome"},
    "fields": _FIELDS,
    "replayed": EVERYTHING,
}


class Reading(Protocol):
    """What :func:`reduce` reads: the session, and the window's Qt-free answers."""

    @property
    def session(self) -> Session: ...

    @property
    def demo(self) -> bool:
        """Whether this is the read-only demo window."""
        ...

    @property
    def title_suffix(self) -> str: ...

    def first_run(self) -> bool:
        """Nothing stored at all (and nothing on screen)."""
        ...

    def models(self) -> tuple[str | None, tuple[ModelGroup, ...]]:
        """The model shown for the open conversation, and the selector's groups."""
        ...

    def typed(self) -> bool:
        """Whether a new conversation's draft holds text."""
        ...

    def waiting_for_approval(self) -> bool:
        """Whether a tool call of the conversation on screen waits for the user."""
        ...

    def notes(self) -> Notes:
        """What the window knows for its banner (see :class:`Notes`)."""
        ...


def touched(fact: Fact | None, on_screen: str) -> frozenset[str]:
    """The parts of the window's state ``fact`` can change (``None``: a change the
    window made itself, or one not known: every part). The one fact → state mapping."""
    match fact:
        case None | ConversationSwitched() | StateReplaced():
            return EVERYTHING
        case DeltaReceived():
            return frozenset()  # the transcript appends it; nothing of the chrome changes
        case WritesPending():
            return frozenset({"writes", "banner"})  # (a store can turn read-only)
        case SendWaiting():
            return frozenset()  # (the status bar's message says it, for a while)
        case StreamStarted() | StreamFinished():
            return _STREAM if fact.conversation_id == on_screen else frozenset({"commands"})
        case Changed(conversation_id=conv_id):
            return _changed(fact) if conv_id == on_screen else frozenset()
    return EVERYTHING


def _changed(fact: Changed) -> frozenset[str]:
    """The parts a change of the conversation on screen can change."""
    if fact.appended or "replayed" in fact.aspects:
        return EVERYTHING
    parts: frozenset[str] = frozenset()
    if fact.updated:
        growing = not fact.elsewhere and all(Changed.growing(e) for e in fact.updated)
        parts = frozenset({"status"}) if growing else _STREAM | {"newest", "strip"}
    for aspect in fact.aspects:
        parts |= _ASPECT_PARTS.get(aspect, _FIELDS)  # (an aspect not known: every field's)
    return parts


def reduce(
    previous: WindowState | None, facts: Iterable[Fact | None], reading: Reading
) -> WindowState:
    """The state after ``facts`` (from ``previous``; ``None``: compute every part)."""
    on_screen = previous.conversation_id if previous is not None else ""
    parts = frozenset().union(*(touched(fact, on_screen) for fact in facts))
    return compute(previous, parts, reading)


def compute(previous: WindowState | None, parts: Iterable[str], reading: Reading) -> WindowState:
    """``previous`` with ``parts`` read again (``previous`` ``None``: every part)."""
    parts = frozenset(parts)
    if previous is None or reading.session.conversation.id != previous.conversation_id:
        parts = EVERYTHING  # (another conversation is on screen, whatever said so)
    if not parts and previous is not None:
        return previous
    values: dict[str, Any] = {name: _PARTS[name](reading) for name in sorted(parts)}
    return replace(previous, **values) if previous is not None else WindowState(**values)


def changed(old: WindowState | None, new: WindowState) -> frozenset[str]:
    """The parts that differ (``old`` ``None``: all of them)."""
    if old is None:
        return EVERYTHING
    if old is new:
        return frozenset()
    return frozenset(f.name for f in fields(new) if getattr(old, f.name) != getattr(new, f.name))


# -- one function per part -------------------------------------------------------------
def _conversation_id(reading: Reading) -> str:
    return reading.session.conversation.id


def _welcome(reading: Reading) -> bool:
    session = reading.session
    if reading.demo or session.saved or session.state.scrollback:
        return False
    return reading.first_run()


def _streaming(reading: Reading) -> bool:
    return reading.session.streaming


def _commands(reading: Reading) -> tuple[CommandState, ...]:
    session = reading.session
    strip = _strip(reading)
    commands = []
    for command in session.registry.actions():
        action = command.action
        assert action is not None  # (``actions()`` lists only commands that have one)
        enabled = session.can_run(command.name)
        commands.append(
            CommandState(
                action.object_name,
                command.name,
                enabled,
                "" if enabled else _why_not(strip, session.streaming),
            )
        )
    return tuple(commands)


def _why_not(strip: str | None, streaming: bool) -> str:
    if strip == "trashed":
        return "In the Trash: restore it first"
    if strip == "closed":
        return "This branch is closed: reopen it first"
    if streaming:
        return "A reply is streaming"
    return "Nothing to act on here yet"


def _marks(reading: Reading) -> tuple[tuple[int, str | None], ...]:
    return tuple((m.event_id, m.label) for m in reading.session.state.marks)


def _title(reading: Reading) -> Title:
    session = reading.session
    conv = session.conversation
    title = conv.title or ("New conversation" if not session.saved else conv.id)
    named = conv.title or ("Untitled conversation" if session.saved else "New conversation")
    return Title(
        f"{title}{reading.title_suffix} — ikgui", named, session.saved and not reading.demo
    )


def _status(reading: Reading) -> Status:
    session = reading.session
    shown, _ = reading.models()
    shown_events = session.state.scrollback
    failed = bool(shown_events) and shown_events[-1].kind == Kind.ERROR  # its card says why
    return Status(
        one_line(f"{session.provider} · {shown or NO_MODEL}"),
        usage_text(session.conversation, session.settings, session.model),
        "Waiting for your approval"
        if reading.waiting_for_approval()
        else "Streaming…"
        if session.streaming
        else "Failed"
        if failed
        else "Ready",
    )


def _strip(reading: Reading) -> str | None:
    session = reading.session
    return "trashed" if session.trashed else "closed" if session.closed else None


def _read_only(reading: Reading) -> str:
    if reading.demo:
        return "the demo"
    return str(getattr(reading.session.store, "read_only", None) or "")


def banner_of(reading: Reading) -> Banner | None:
    """The banner: the demo's, else a store opened read-only, else the model server's
    (nothing could be sent), else config.toml's last problem — unless the user dismissed
    that one."""
    notes, answer = reading.notes(), reading.session.read_only
    shown: Banner | None
    if answer is not None and answer.reason is Reason.STORE:
        fix = "free some space" if "disk is full" in answer.detail else "make it writable"
        shown = Banner(
            f"{answer.message[:-1]}. Browsing, searching and "
            f"exporting work; {fix} and restart ikgui to write again.",
            "store",
            False,
        )
    elif reading.demo:
        shown = Banner(DEMO_BANNER, "demo", False)
    elif notes.server is not None:
        shown = Banner(notes.server, "server")
    elif notes.problems:
        shown = Banner(f"config.toml: {notes.problems[-1]} (defaults are used)", "config")
    else:
        shown = None
    return None if shown is None or shown.topic in notes.down else shown


def writes_of(reading: Reading) -> Writes:
    writes = reading.session.writes
    return Writes(len(writes), writes.reason, writes.error) if writes else Writes()


def _models(reading: Reading) -> Models:
    session = reading.session
    shown, groups = reading.models()
    return Models(session.provider, session.model, shown, groups)


def _takes_no_input(answer: ReadOnly | None) -> bool:
    """The conversation on screen is closed or in the Trash (the demo and a read-only
    store are the whole window's, shown by its policy)."""
    return answer is not None and not answer.whole


def _prompt(reading: Reading) -> Prompt:
    session = reading.session
    return Prompt(
        session.prompt_mode,
        session.state.working_prompt,
        session.prompt_edited,
        session.current.set_aside_prompt is not None,
        _takes_no_input(session.read_only),
    )


def _new_row(reading: Reading) -> NewRow:
    session = reading.session
    new = not session.saved
    return NewRow(
        new,
        session.current.switches,
        session.conversation.agent,
        new and not session.state.scrollback,
        reading.typed(),
    )


def _newest(reading: Reading) -> tuple[int | None, str]:
    shown = reading.session.state.scrollback
    return (shown[-1].id, str(shown[-1].kind)) if shown else (None, "")


def _tools(reading: Reading) -> ToolSwitches:
    session = reading.session
    configured = session.settings.tool_servers
    if not configured:
        return ToolSwitches()
    memory = session.state.tools
    project = session.project  # (its settings as last read: never a store read here)
    servers, tools = tool_use.chosen(
        session.settings,
        session.conversation.agent,
        memory.switches,
        project.tools if project is not None else None,
    )
    return ToolSwitches(
        tuple(
            ToolServer(
                name,
                config.enabled,
                config.enabled
                and (name in servers or any(t.split(".", 1)[0] == name for t in tools)),
            )
            for name, config in configured.items()
        ),
        not reading.demo and session.read_only is None,
    )


_PARTS: dict[str, Callable[[Reading], Any]] = {
    "conversation_id": _conversation_id,
    "welcome": _welcome,
    "streaming": _streaming,
    "commands": _commands,
    "marks": _marks,
    "title": _title,
    "status": _status,
    "strip": _strip,
    "read_only": _read_only,
    "banner": banner_of,
    "writes": writes_of,
    "models": _models,
    "prompt": _prompt,
    "new_row": _new_row,
    "newest": _newest,
    "tools": _tools,
}
