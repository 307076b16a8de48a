"""The command registry (SPEC §5): one table of commands for the prompt editor's
slash lines, the toolbar and menus, and ``ikgui run``. ``/help`` is generated from it.

A command is run either from a slash line (:meth:`Registry.dispatch`: its ``parse``
turns the text after the name into keyword arguments) or with values
(:meth:`Registry.run`: ``run(target, "model", name="m2")``, no parsing). Either way its
``act`` gets the target (the session) and the arguments, and returns a
:class:`CommandResult`; raising an ``IkguiError`` means "show ``Error: …`` and change
nothing". Output is stored as a ``command`` event unless the command's own event
already shows it. Each command also carries whether it can act now (``enabled``) and,
for the toolbar, how it is presented (``action``).

The registry knows nothing of the session: the commands are built in
:mod:`ikgui.domain.commands.handlers` and handed to the session by the composition root.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ikgui.domain.errors import UsageError
from ikgui.domain.events import Event, Kind


@dataclass
class CommandResult:
    output: str = ""
    #: Command-specific fields stored with the ``command`` event.
    data: dict[str, Any] = field(default_factory=dict)
    #: Store the output even if the conversation is not stored yet.
    materialize: bool = False
    #: Store nothing (an informational command in a conversation not stored yet).
    store: bool = True
    #: A text to send to the model afterwards (``/fork PROMPT``).
    send: str | None = None


class Target(Protocol):
    """What the registry itself needs of the object commands act on (the session)."""

    @property
    def saved(self) -> bool: ...

    @property
    def read_only(self) -> object: ...

    def refusal(self, command: str, when_closed: bool) -> Exception | None: ...

    def append(self, kind: str, content: str = "", data: dict[str, Any] | None = None) -> Event: ...


T = TypeVar("T", bound=Target)


def _always(_: object) -> bool:
    return True


def no_arguments(args: str) -> dict[str, Any]:
    """The parser of a command that takes none (extra words are ignored, as before)."""
    return {}


def text_argument(key: str) -> Callable[[str], dict[str, Any]]:
    """The parser of a command whose argument is the rest of the line (or ``None``)."""

    def parse(args: str) -> dict[str, Any]:
        return {key: args or None}

    return parse


@dataclass(frozen=True)
class Action:
    """How a command is presented as a toolbar action (from the window's old table)."""

    #: The action's object name, e.g. ``actionMark`` (tests and accessibility use it).
    object_name: str
    label: str
    icon: str
    shortcut: str | None
    tooltip: str


@dataclass(frozen=True)
class Command(Generic[T]):
    name: str
    usage: str
    description: str
    #: ``act(target, **arguments)``: does it.
    act: Callable[..., CommandResult]
    #: A slash line's text after the name, as ``act``'s keyword arguments.
    parse: Callable[[str], dict[str, Any]] = no_arguments
    #: Whether the command can act now (the toolbar's actions are enabled by this).
    enabled: Callable[[T], bool] = _always
    #: The command's own event shows what happened: do not store its output too.
    own_event: bool = False
    #: Offered as a slash command (``/help``, the completer, the line parser); a
    #: command that is not is run with values only (``send``, ``stop``, ``trash``...).
    slash: bool = True
    #: Its toolbar action, if it has one.
    action: Action | None = None
    #: It may run while the open conversation is a closed branch (it appends nothing to
    #: its log: it shows, switches, or acts on other conversations); others are refused.
    when_closed: bool = False


def command_line(name: str, arguments: dict[str, Any]) -> str:
    """The slash line equivalent to running ``name`` with ``arguments`` (stored as the
    command event's ``input``, as if it had been typed)."""
    words = [f"/{name}"]
    for key, value in arguments.items():
        if value is True:
            words.append(f"--{key}")
        elif isinstance(value, list | tuple):
            words.extend(str(v) for v in value)
        elif value not in (None, False, ""):
            words.append(str(value))
    return " ".join(words)


def parse(line: str) -> tuple[str, str]:
    """``/name args`` as ``(name, args)``; raises on a bare ``/``."""
    body = line.strip()[1:]
    if not body.strip():
        raise UsageError("Empty command")
    name, _, args = body.strip().partition(" ")
    return name, args.strip()


def unquote_argument(args: str) -> str:
    """An argument whose quotes are optional: ``"a b"``, ``'a b'`` or ``a b``."""
    text = args.strip()
    if text[:1] in ("'", '"'):
        quote = text[0]
        end = 1
        while end < len(text):
            if text[end] == "\\" and end + 1 < len(text):
                end += 2
                continue
            if text[end] == quote:
                break
            end += 1
        if end >= len(text):
            raise UsageError("Unterminated quoted string")
        inner = text[1:end].replace("\\" + quote, quote).replace("\\\\", "\\")
        rest = text[end + 1 :].strip()
        return f"{inner} {rest}" if rest else inner
    return text


class Registry(Generic[T]):
    def __init__(self, commands: Iterable[Command[T]], toolbar: Iterable[str] = ()) -> None:
        self.commands = list(commands)
        self._by_name = {c.name: c for c in self.commands}
        #: The names of the commands shown as toolbar actions, in order.
        self.toolbar = [name for name in toolbar if name in self._by_name]

    def get(self, name: str) -> Command[T] | None:
        return self._by_name.get(name)

    def __iter__(self) -> Iterator[Command[T]]:
        """The slash commands, in ``/help`` order."""
        return (c for c in self.commands if c.slash)

    def actions(self) -> list[Command[T]]:
        """The commands with a toolbar action, in toolbar order."""
        commands = (self._by_name[name] for name in self.toolbar)
        return [c for c in commands if c.action is not None]

    def enabled(self, target: T, name: str) -> bool:
        """Whether ``name`` can act now (an unknown name cannot)."""
        command = self._by_name.get(name)
        if command is None or target.refusal(name, command.when_closed) is not None:
            return False
        return command.enabled(target)

    def help_text(self) -> str:
        lines = ["Available commands:"]
        for c in self:  # a toolbar shortcut as the toolbar and its shortcuts dialog show it
            keys = f" ({c.action.shortcut})" if c.action and c.action.shortcut else ""
            lines.append(f"  /{c.name} - {c.description}{keys}")
        return "\n".join(lines)

    def dispatch(self, target: T, line: str) -> CommandResult:
        """Run one slash line."""
        name, args = parse(line)
        command = self._by_name.get(name)
        if command is None or not command.slash:
            raise UsageError(f"Unknown command '{name}'")
        arguments = command.parse(args)
        refused = target.refusal(command.name, command.when_closed)
        if refused is not None:
            raise refused
        return self._finish(target, command, line.strip(), command.act(target, **arguments))

    def run(self, target: T, name: str, /, **arguments: Any) -> CommandResult:
        """Run a command with values (a toolbar action, a menu, a dialog): nothing is
        parsed, so a value is never read as another command."""
        command = self._by_name.get(name)
        if command is None:
            raise UsageError(f"Unknown command '{name}'")
        refused = target.refusal(command.name, command.when_closed)
        if refused is not None:
            raise refused
        result = command.act(target, **arguments)
        return self._finish(target, command, command_line(name, arguments), result)

    @staticmethod
    def _finish(target: T, command: Command[T], line: str, result: CommandResult) -> CommandResult:
        if target.read_only:
            return result  # a closed branch's (trashed one's) log takes nothing: shown only
        if not command.own_event and result.store and (target.saved or result.materialize):
            data = {"input": line, "ok": True, "command": command.name, **result.data}
            target.append(Kind.COMMAND, result.output, data)
        return result
