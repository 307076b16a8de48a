"""The command registry (SPEC §5): one table of commands for the prompt editor's
slash lines, the toolbar and menus, and ``ikgui run``. ``/help`` is generated from it.

A command's handler returns a :class:`CommandResult`; raising an ``IkguiError`` means
"show ``Error: …`` and change nothing". Output is stored as a ``command`` event unless
the command's own event already shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import UsageError
from ikgui.domain.events import Kind

if TYPE_CHECKING:
    from ikgui.domain.session import Session


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


Handler = Callable[["Session", str], CommandResult]


def _always(_: Session) -> bool:
    return True


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    description: str
    handler: Handler
    #: Whether the command can act now (toolbar actions are enabled by this).
    enabled: Callable[[Session], bool] = _always
    #: The command's own event shows what happened: do not store its output too.
    own_event: bool = False


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


class Registry:
    def __init__(self, commands: list[Command]) -> None:
        self.commands = list(commands)
        self._by_name = {c.name: c for c in commands}

    def get(self, name: str) -> Command | None:
        return self._by_name.get(name)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.commands)

    def help_text(self) -> str:
        lines = ["Available commands:"]
        lines += [f"  /{c.name} - {c.description}" for c in self.commands]
        return "\n".join(lines)

    def dispatch(self, session: Session, line: str) -> CommandResult:
        name, args = parse(line)
        command = self._by_name.get(name)
        if command is None:
            raise UsageError(f"Unknown command '{name}'")
        result = command.handler(session, args)
        if not command.own_event and result.store and (session.saved or result.materialize):
            data = {"input": line.strip(), "ok": True, "command": name, **result.data}
            session.append(Kind.COMMAND, result.output, data)
        return result


def default_registry() -> Registry:
    from ikgui.domain.command_handlers import COMMANDS

    return Registry(COMMANDS)
