"""How a tool call, its decision and its result read in the transcript (SPEC §12): the
call names its server and tool and shows its arguments as readable JSON, the decision
says who allowed or denied it, the result shows its output (folded when long) and how
long it took. All of it is plain text: a model's arguments and a server's output are
untrusted, never rich. Pure: the same words live and in a replay.
"""

from __future__ import annotations

import json
from typing import Any

from ikgui.domain.events import Event
from ikgui.domain.state import tool_record
from ikgui.domain.state.tool_use import ALWAYS, BY_CONFIG, BY_CONVERSATION, CONVERSATION, DENY, ONCE

#: A decision in words, by who made it.
_ALLOWED = {
    ONCE: "Allowed once",
    CONVERSATION: "Allowed in this conversation",
    ALWAYS: "Always allowed",
}


def arguments_text(arguments: Any) -> str:
    """A call's arguments as readable JSON (as sent, when they were not JSON)."""
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(arguments)


def call_detail(event: Event) -> str:
    """``server · tool`` (the tool alone when the model named no offered one)."""
    data = event.data
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    server = data.get("server")
    return f"{server} · {name}" if isinstance(server, str) and server else str(name)


def call_text(event: Event) -> str:
    """Its arguments; a call stored without them (imported, older) shows its summary."""
    if event.data.get("arguments") is None:
        return event.content
    return arguments_text(event.data["arguments"])


def approval_text(event: Event) -> str:
    """``✓ Allowed once · by you`` / ``✗ Denied by you: note`` / ``✓ Always allowed ·
    by config.toml``; edited arguments say so."""
    data = event.data
    decision, by = data.get("decision"), data.get("by")
    note = data.get("note") if isinstance(data.get("note"), str) else ""
    if decision == DENY:
        who = "by you" if by == "user" else "by ikgui"
        return f"✗ Denied {who}" + (f": {note}" if note else "")
    words = _ALLOWED.get(str(decision), "Allowed")
    who = {
        BY_CONFIG: "by always_allow in config.toml",
        BY_CONVERSATION: "by this conversation's grant",
    }.get(str(by), "by you")
    edited = " · with edited arguments" if "arguments" in data else ""
    return f"✓ {words} · {who}{edited}"


def result_detail(event: Event) -> str:
    """``server · tool · 0.42 s`` (``· failed`` when it did not succeed), as the call's
    header names it."""
    data = event.data
    parts = [str(data.get("server") or ""), str(data.get("name") or "")]
    seconds = data.get("seconds")
    if isinstance(seconds, int | float) and not isinstance(seconds, bool):
        parts.append(f"{seconds:.2f} s")
    if data.get("success") is False:
        parts.append("failed")
    return " · ".join(p for p in parts if p)


def result_text(event: Event) -> str:
    """Its output, after the server's questions and their answers (``Asked: "…" →
    answered: colour = red``), when it asked any."""
    output = event.data.get("output")
    shown = output if isinstance(output, str) else event.content
    asked = tool_record.question_lines(event)
    return "\n".join([*asked, "", shown]) if asked else shown


#: A call that has no result: ikgui stopped (crashed, was closed) before it ran or ended.
INTERRUPTED = "(interrupted: it has no result; it is never run again by itself)"
