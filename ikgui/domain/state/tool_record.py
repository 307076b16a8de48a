"""What the log records of tool use, in words (SPEC §12): a call (``server.tool`` and its
arguments), its decision (what, by whom, the note) and its result (success, its first
lines) — as ``conv show``, ``conv context`` and the Markdown export say them.

The data comes from the log, which may hold imported or damaged values: every field is
checked for its type, and what a model or a server wrote stays text for the caller to
show plainly (never markup, never a terminal control).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ikgui.domain.events import Event, Kind
from ikgui.domain.state.tool_use import (
    ALWAYS,
    BY_CONFIG,
    BY_CONVERSATION,
    BY_USER,
    CONVERSATION,
    DENY,
    ONCE,
)

#: How many lines of a result ``conv show`` shows (the log keeps it whole).
RESULT_LINES = 5
#: How many characters of one such line.
LINE_CHARS = 200

_ALLOWED = {
    ONCE: "Allowed once",
    CONVERSATION: "Allowed in this conversation",
    ALWAYS: "Always allowed",
}
_BY = {
    BY_USER: "by the user",
    BY_CONVERSATION: "by a grant in this conversation",
    BY_CONFIG: "by always_allow in config.toml",
}


def qualified(data: dict[str, Any]) -> str:
    """``server.tool`` of a call or result (its name alone when no server is known: a
    tool the model named that was not offered, or an imported call)."""
    name, server = data.get("name"), data.get("server")
    name = name if isinstance(name, str) and name else "?"
    return f"{server}.{name}" if isinstance(server, str) and server else name


def arguments_text(arguments: Any, indent: int | None = None) -> str:
    """Arguments as JSON (as the model sent them when they are not JSON)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, indent=indent)


def call_line(event: Event) -> str:
    return f"{qualified(event.data)} {arguments_text(event.data.get('arguments'))}"


def decision_line(event: Event, call: Event | None = None) -> str:
    """``Allowed once by the user``, ``Denied by the user: not now``, ``Refused by
    ikgui: …``; edited arguments after it; the call's ``server.tool`` before it when
    ``call`` is given."""
    data = event.data
    if call is not None:
        return f"{qualified(call.data)}: {decision_line(event)}"
    decision, by, note = data.get("decision"), data.get("by"), data.get("note")
    who = _BY.get(by) if isinstance(by, str) else None
    if decision == DENY:
        line = "Refused by ikgui" if by == "ikgui" else f"Denied {who or 'by the user'}"
    elif isinstance(decision, str) and decision in _ALLOWED:
        line = f"{_ALLOWED[decision]} {who or 'by the user'}"
    else:
        line = f"Decided: {decision}" if isinstance(decision, str) else "Decided"
    if isinstance(note, str) and note:
        line += f": {note}"
    if "arguments" in data and data["arguments"] is not None:
        line += f" (with the arguments edited to {arguments_text(data['arguments'])})"
    return line


def output_text(event: Event) -> str:
    output = event.data.get("output", event.content)
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value)
    return json.dumps(value, ensure_ascii=False)


def question_lines(event: Event) -> list[str]:
    """The server's questions during the call and what the user did, one line each:
    ``Asked: "Pick a colour" → answered: colour = red`` (or ``→ declined``,
    ``→ cancelled``). The message and the answer are untrusted: the caller shows them
    plainly."""
    questions = event.data.get("questions")
    if not isinstance(questions, list):
        return []
    lines = []
    for question in questions:
        if not isinstance(question, dict):
            continue
        message = question.get("message")
        message = " ".join(message.split()) if isinstance(message, str) else ""
        url = question.get("url")
        asked = f"Asked to open {url}" if isinstance(url, str) else "Asked"
        action = question.get("action")
        if action == "accept":
            content = question.get("content")
            if isinstance(content, dict) and content:
                pairs = "; ".join(f"{name} = {_value(v)}" for name, v in content.items())
                how = f"answered: {pairs}"
            else:
                how = "opened" if isinstance(url, str) else "answered (nothing filled in)"
        elif action == "decline":
            how = "declined"
        else:
            how = "cancelled"
        note = question.get("note")
        if isinstance(note, str) and note:
            how += f" ({note})"
        lines.append(f'{asked}: "{message}" → {how}')
    return lines


def result_head(event: Event) -> str:
    """``files.read_text_file: ok in 0.02 s, 12 lines`` (or ``failed``)."""
    data = event.data
    how = "ok" if data.get("success") is True else "failed"
    seconds = data.get("seconds")
    if isinstance(seconds, int | float) and not isinstance(seconds, bool):
        how += f" in {seconds:g} s"
    count = len(output_text(event).splitlines())
    if count > 1:
        how += f", {count:,} lines"
    return f"{qualified(data)}: {how}"


def first_lines(event: Event, count: int = RESULT_LINES) -> list[str]:
    """The result's first lines, each cut to :data:`LINE_CHARS`, and a line saying how
    many more there are."""
    lines = output_text(event).splitlines()
    shown = [line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…" for line in lines]
    if len(lines) > count:
        return [*shown[:count], f"… {len(lines) - count:,} more lines"]
    return shown


def decisions_by_call(events: Iterable[Event]) -> dict[str, Event]:
    """Each call's ``tool_approval`` event, by the call's id."""
    return {str(e.data.get("tool_call_id")): e for e in events if e.kind == Kind.TOOL_APPROVAL}


def calls_by_id(events: Iterable[Event]) -> dict[str, Event]:
    return {str(e.data.get("id")): e for e in events if e.kind == Kind.TOOL_CALL}


def backticks(text: str) -> int:
    """The longest run of backticks in ``text``."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def fence(text: str) -> str:
    """A Markdown code fence longer than any run of backticks in ``text`` (an output
    cannot close its own block)."""
    return "`" * max(3, backticks(text) + 1)
