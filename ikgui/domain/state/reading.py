"""How a reader sees a conversation, in one place for the window, the command line and
exports: which events are shown, the label of each role, the context as text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ikgui.domain.attachments import Attachment, size_text
from ikgui.domain.events import Event, Kind
from ikgui.domain.folders import SystemPart

#: The heading of each kind of message (``You``, ``Assistant``...); other kinds are
#: notices. Each reader picks the kinds it heads (see ``labels``).
ROLE_LABELS: dict[str, str] = {
    Kind.USER: "You",
    Kind.ASSISTANT: "Assistant",
    Kind.SYSTEM: "System",
    Kind.TOOL_CALL: "Tool call",
    Kind.TOOL_RESULT: "Tool result",
    Kind.ERROR: "Error",
}

#: What the context dialog says when the next request carries only the user's message.
EMPTY_CONTEXT = "(empty: the next request carries only your message)"


def labels(*kinds: str) -> dict[str, str]:
    """The labels of ``kinds`` only (a reader that heads fewer kinds than the window)."""
    return {kind: ROLE_LABELS[kind] for kind in kinds}


#: Kinds no reader sees as an item (plain strings: ``shown`` runs for every event).
_UNSHOWN = frozenset({Kind.CLEAR.value, Kind.RETRY.value, Kind.CHOOSE.value})


def failed_before_text(event: Event) -> bool:
    """A reply that failed before any text: no reader shows it (its error event says
    why), and replay leaves it out of the context."""
    return (
        event.kind == Kind.ASSISTANT
        and not event.content
        and event.may_have("failed")  # (no parsing when it certainly is not)
        and bool(event.data.get("failed"))
    )


def shown(event: Event) -> bool:
    """Whether a reader of the scrollback sees ``event`` (a clear only empties it; a
    retry only turns the attempt it replaces into a collapsed group)."""
    return event.kind not in _UNSHOWN and not failed_before_text(event)


def visible(events: Iterable[Event]) -> list[Event]:
    return [event for event in events if shown(event)]


def message_text(message: dict[str, Any], arrow: str = "→", gap: str = "  ") -> str:
    """One context message's text: its content, then one line per attached file and
    per tool call."""
    body = message.get("content") or ""
    for entry in message.get("attachments") or ():
        file = Attachment.from_data(entry)
        if file is not None:
            body += f"\n(attached: {file.name}, {file.mime}, {size_text(file.size)})"
    for call in message.get("tool_calls", []):
        fn = call["function"]
        body += f"\n{arrow} {fn['name']}({fn['arguments']}){gap}[{call['id']}]"
    return str(body)


def system_sources(
    messages: list[dict[str, Any]], parts: Sequence[SystemPart]
) -> list[SystemPart] | None:
    """The parts the context's leading system message was made of (each with where it
    came from: agent, project, ``/system``), or ``None`` when it is not theirs."""
    if not parts or not messages or messages[0].get("role") != "system":
        return None
    joined = "\n\n".join(p.text for p in parts)
    return list(parts) if messages[0].get("content") == joined else None


def format_context(messages: list[dict[str, Any]], parts: Sequence[SystemPart] = ()) -> str:
    """The context as readable text: one block per message (the window's "show context"
    dialog; ``ikgui conv context`` prints one line per message with ``message_text``).
    With the system prompt's ``parts``, each part is a block of its own naming its
    source (``[system: project work/acme]``)."""
    blocks = []
    sources = system_sources(messages, parts)
    if sources is not None:
        blocks = [f"[system: {p.label()}]\n{p.text.strip()}" for p in sources]
        messages = messages[1:]
    for message in messages:
        head = f"[{message['role']}]"
        if message.get("tool_call_id"):
            head += f" (result of {message['tool_call_id']})"
        blocks.append(f"{head}\n{message_text(message).strip()}")
    return "\n\n".join(blocks) if blocks else EMPTY_CONTEXT
