"""The tool-host port (SPEC §12): the tools of MCP servers as the domain sees them.

The adapter (:mod:`ikgui.tools`) starts the servers, lists their tools and runs calls;
the domain decides which tools a conversation offers, asks the user, and records every
call, decision and result as events. Nothing here knows MCP's wire form.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

#: A server's state: not started yet, starting, running, failed (with its reason).
STOPPED, STARTING, RUNNING, FAILED = "stopped", "starting", "running", "failed"


@dataclass(frozen=True)
class ToolInfo:
    """One tool a server offers."""

    server: str
    name: str
    description: str = ""
    #: The JSON Schema of its arguments (an object schema).
    input_schema: dict[str, Any] = field(default_factory=dict)

    @property
    def qualified(self) -> str:
        """``server.tool``: how the user names it (grants, ``/tools``, ``--allow``)."""
        return f"{self.server}.{self.name}"


@dataclass(frozen=True)
class ServerState:
    """What one configured server is doing, for ``/tools``, ``ikgui tools`` and Settings."""

    name: str
    state: str = STOPPED
    tools: tuple[ToolInfo, ...] = ()
    #: Why it failed, in one line (None unless failed).
    reason: str | None = None
    #: The last lines it wrote to its standard error (a failed start shows them).
    stderr: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolOutcome:
    """A call's result: its output as text (untrusted: shown plain, never rich) and
    whether it succeeded."""

    output: str
    success: bool


# -- a server's question (MCP elicitation) ----------------------------------------------

#: What the user did with a server's question: answered it, declined it, or closed it
#: without choosing (Stop, Escape) — MCP's three actions.
ACCEPT: Final = "accept"
DECLINE: Final = "decline"
CANCEL: Final = "cancel"
#: The kinds of field a question's form has (MCP's form mode: a flat object of these).
TEXT, NUMBER, INTEGER, BOOLEAN, CHOICE, CHOICES = (
    "text",
    "number",
    "integer",
    "boolean",
    "choice",
    "choices",
)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


@dataclass(frozen=True)
class QuestionField:
    """One field of a question's form, read from its schema's property."""

    name: str
    kind: str
    title: str = ""
    description: str = ""
    required: bool = False
    default: Any = None
    #: A choice's (or several choices') values, each with its label.
    choices: tuple[tuple[str, str], ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    #: A text's least and most characters; several choices' least and most.
    least: int | None = None
    most: int | None = None
    #: A text's ``format``: ``email``, ``uri``, ``date``, ``date-time`` (or "").
    format: str = ""

    @property
    def label(self) -> str:
        """What the form calls it: its title, else its name (untrusted: shown plain)."""
        return self.title or self.name

    def hint(self) -> str:
        """Its type in words: ``a whole number from 1 to 100``, ``one of red, blue``."""
        if self.kind in (CHOICE, CHOICES):
            labels = ", ".join(label for _value, label in self.choices)
            if self.kind == CHOICE:
                return f"one of {labels}"
            return f"one or more of {labels} (separated by commas)"
        words = {
            TEXT: "text",
            NUMBER: "a number",
            INTEGER: "a whole number",
            BOOLEAN: "yes or no",
        }[self.kind]
        if self.format:
            words += f" ({self.format})"
        low, high = self.minimum, self.maximum
        if self.kind == TEXT:
            low, high = self.least, self.most
            unit = " characters"
        else:
            unit = ""
        if low is not None and high is not None:
            words += f" from {_number(low)} to {_number(high)}{unit}"
        elif low is not None:
            words += f", at least {_number(low)}{unit}"
        elif high is not None:
            words += f", at most {_number(high)}{unit}"
        return words

    def parse(self, text: str) -> Any:
        """A typed answer's value (``ValueError`` saying why it is not one); the value
        is then checked by :meth:`problem`."""
        text = text.strip()
        if self.kind == BOOLEAN:
            low = text.lower()
            if low in ("y", "yes", "true", "1", "on"):
                return True
            if low in ("n", "no", "false", "0", "off"):
                return False
            raise ValueError("Answer yes or no.")
        if self.kind == INTEGER:
            try:
                return int(text)
            except ValueError:
                raise ValueError("It must be a whole number.") from None
        if self.kind == NUMBER:
            try:
                return int(text)
            except ValueError:
                pass
            try:
                value = float(text)
            except ValueError:
                raise ValueError("It must be a number.") from None
            if not math.isfinite(value):
                raise ValueError("It must be a number.")
            return value
        if self.kind == CHOICE:
            return self._choice(text)
        if self.kind == CHOICES:
            return [self._choice(part.strip()) for part in text.split(",") if part.strip()]
        return text

    def _choice(self, text: str) -> str:
        for value, _label in self.choices:  # a value, or its label (any case)
            if text == value:
                return value
        for value, label in self.choices:
            if text.lower() in (value.lower(), label.lower()):
                return value
        raise ValueError(f"Choose one of {', '.join(label for _v, label in self.choices)}.")

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` for this field (None: nothing; a missing value
        is ``None``)."""
        if value is None:
            return "It is required." if self.required else None
        values = {v for v, _label in self.choices}
        if self.kind == BOOLEAN:
            return None if isinstance(value, bool) else "It must be yes or no."
        if self.kind in (NUMBER, INTEGER):
            if isinstance(value, bool) or not isinstance(value, int | float):
                return "It must be a number."
            if self.kind == INTEGER and not (isinstance(value, int) or value.is_integer()):
                return "It must be a whole number."
            if self.minimum is not None and value < self.minimum:
                return f"It must be at least {_number(self.minimum)}."
            if self.maximum is not None and value > self.maximum:
                return f"It must be at most {_number(self.maximum)}."
            return None
        if self.kind == CHOICE:
            return None if value in values else "Choose one of the choices."
        if self.kind == CHOICES:
            if not isinstance(value, list) or any(v not in values for v in value):
                return "Choose among the choices."
            if self.least is not None and len(value) < self.least:
                return f"Choose at least {self.least}."
            if self.most is not None and len(value) > self.most:
                return f"Choose at most {self.most}."
            if self.required and not value:
                return "It is required."
            return None
        if not isinstance(value, str):
            return "It must be text."
        if self.required and not value:
            return "It is required."
        if self.least is not None and len(value) < self.least:
            return f"It must have at least {self.least} characters."
        if self.most is not None and len(value) > self.most:
            return f"It must have at most {self.most} characters."
        return _format_problem(self.format, value) if value else None


def _number(value: float) -> str:
    return f"{value:g}"


def _format_problem(form: str, value: str) -> str | None:
    if form == "email" and not _EMAIL.match(value):
        return "It must be an email address."
    if form == "uri" and not _URI.match(value):
        return "It must be an address (URI) such as https://example.org."
    if form == "date":
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return "It must be a date such as 2026-12-31."
    if form == "date-time":
        try:
            datetime.datetime.fromisoformat(value)
        except ValueError:
            return "It must be a date and time such as 2026-12-31T18:00."
    return None


def _bound(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok and math.isfinite(value) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _choices(spec: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """``enum`` (with the older ``enumNames`` as labels) or ``oneOf``/``anyOf`` of
    ``{const, title}``."""
    options = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(options, list):
        found = [
            (str(o["const"]), str(o.get("title") or o["const"]))
            for o in options
            if isinstance(o, dict) and "const" in o
        ]
        return tuple(found)
    values = spec.get("enum")
    if not isinstance(values, list):
        return ()
    names = spec.get("enumNames")
    names = names if isinstance(names, list) and len(names) == len(values) else values
    return tuple((str(v), str(n)) for v, n in zip(values, names, strict=True))


def fields_of(schema: dict[str, Any]) -> tuple[QuestionField, ...]:
    """The form of a question's schema, one field per property in its order. A property
    of a type MCP's form mode has not (a nested object) is asked as text."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return ()
    required = schema.get("required")
    needed = {str(r) for r in required} if isinstance(required, list) else set()
    fields = []
    for name, spec in properties.items():
        spec = spec if isinstance(spec, dict) else {}
        kind_of = spec.get("type")
        choices = _choices(spec)
        items = spec.get("items")
        if kind_of == "array" and isinstance(items, dict):
            kind, choices = CHOICES, _choices(items)
        elif choices:
            kind = CHOICE
        else:
            kind = {"number": NUMBER, "integer": INTEGER, "boolean": BOOLEAN}.get(
                str(kind_of), TEXT
            )
        text_kind = kind == TEXT
        fields.append(
            QuestionField(
                name=str(name),
                kind=kind,
                title=str(spec.get("title") or ""),
                description=str(spec.get("description") or ""),
                required=str(name) in needed,
                default=spec.get("default"),
                choices=choices,
                minimum=_bound(spec.get("minimum")),
                maximum=_bound(spec.get("maximum")),
                least=_count(spec.get("minLength" if text_kind else "minItems")),
                most=_count(spec.get("maxLength" if text_kind else "maxItems")),
                format=str(spec.get("format") or "") if text_kind else "",
            )
        )
    return tuple(fields)


@dataclass(frozen=True)
class Question:
    """A server's question to the user during a call: a form built from ``schema``, or
    (MCP's url mode) an address the user may open. Its message and titles are the
    server's (untrusted: shown plain)."""

    server: str
    message: str
    schema: dict[str, Any] = field(default_factory=dict)
    #: URL mode: the page the server asks the user to open (no form then).
    url: str | None = None

    @property
    def fields(self) -> tuple[QuestionField, ...]:
        return fields_of(self.schema)

    def problems(self, content: dict[str, Any]) -> dict[str, str]:
        """What is wrong with an answer, by field name (empty: it fits the form)."""
        found = {f.name: p for f in self.fields if (p := f.problem(content.get(f.name)))}
        return found

    def record(self, answer: Answer) -> dict[str, Any]:
        """The question and its answer as the call's result keeps them (``questions``)."""
        data: dict[str, Any] = {"message": self.message, "action": answer.action}
        if self.url is not None:
            data["url"] = self.url
        else:
            data["schema"] = self.schema
        if answer.action == ACCEPT and answer.content is not None:
            data["content"] = answer.content
        if answer.note:
            data["note"] = answer.note
        return data


@dataclass(frozen=True)
class Answer:
    """The user's answer: ``accept`` with the form's ``content`` (None in url mode),
    ``decline``, or ``cancel``; ``note`` says why when ikgui answered by itself."""

    action: str
    content: dict[str, Any] | None = None
    note: str = ""


#: Asks the user a server's question (the window's form, ``ikgui run``'s terminal).
Asker = Callable[[Question], Coroutine[Any, Any, Answer]]


async def decline_question(question: Question) -> Answer:
    """Nobody to ask: the question is declined."""
    return Answer(DECLINE, note="no one was there to answer")


class ToolHost(Protocol):
    """The configured MCP servers: started on first need, kept running, stopped on close."""

    def states(self) -> list[ServerState]:
        """Every configured server's state, in configuration order."""
        ...

    async def start(self, names: Sequence[str]) -> list[ServerState]:
        """Start the named servers that are not running (all at once) and say how each
        is; a server that fails says why in its state, never raises."""
        ...

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        ask: Asker = decline_question,
    ) -> ToolOutcome:
        """Run one tool; a failure (server gone, time limit, bad reply) is an unsuccessful
        outcome with one line saying why. Cancelling the awaiting task cancels the call.
        A question the server asks meanwhile goes to ``ask``, awaited on the caller's
        loop; an answer that does not fit its form is sent as ``cancel``."""
        ...

    async def close(self) -> None: ...
