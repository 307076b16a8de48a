"""The context of the next request, in OpenAI chat form (SPEC §7).

Order: the system prompt (the agent's or the ``/system`` override; never stored),
the replayed context with notices where they happened, and, when the working prompt
is not empty, a trailing ``[current prompt: "…"]`` system line (never stored).
Providers translate this list to their own wire forms.
"""

from __future__ import annotations

import json
from typing import Any

from ikgui.domain.attachments import Attachment, StoredFile, listed
from ikgui.domain.events import Event, Kind
from ikgui.domain.state.replay import ReplayState
from ikgui.domain.state.tool_use import capped, wire_name
from ikgui.domain.state.working_prompt import current_prompt_line

Message = dict[str, Any]


def _arguments(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


def _tool_output(event: Event, kilobytes: int | None) -> str:
    """A tool's output as the model reads it: capped at ``kilobytes`` KiB (None: whole;
    the event keeps it whole either way)."""
    output = event.data.get("output", event.content)
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    return text if kilobytes is None else capped(text, kilobytes)


def _tool_name(data: dict[str, Any]) -> str:
    """The name the model knows a call by: a server's tool by its wire name (what ikgui
    offered), an imported or older call by the name it was stored with."""
    name, server = data.get("name"), data.get("server")
    if isinstance(server, str) and isinstance(name, str):
        return wire_name(server, name)
    return str(name or "unknown")


def _tool_call(event: Event) -> dict[str, Any]:
    data = event.data
    return {
        "id": str(data.get("id") or f"call_{event.id}"),
        "type": "function",
        "function": {
            "name": _tool_name(data),
            "arguments": _arguments(data.get("arguments")),
        },
    }


def context_messages(events: list[Event], tool_output_kb: int | None = None) -> list[Message]:
    """The replayed context events as chat messages (tool calls join their turn)."""
    messages: list[Message] = []
    for event in events:
        kind = event.kind
        if kind in (Kind.SYSTEM, Kind.PROMPT_EDIT):
            messages.append({"role": "system", "content": event.content})
        elif kind == Kind.USER:
            message: Message = {"role": "user", "content": event.content}
            attached = listed(event.data)
            if attached:  # by reference: the bytes are read at send time (with_files)
                message["attachments"] = [a.data() for a in attached]
            messages.append(message)
        elif kind == Kind.ASSISTANT:
            if event.content:
                messages.append({"role": "assistant", "content": event.content})
        elif kind == Kind.TOOL_CALL:
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(_tool_call(event))
            else:
                messages.append(
                    {"role": "assistant", "content": None, "tool_calls": [_tool_call(event)]}
                )
        elif kind == Kind.TOOL_RESULT:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": str(event.data.get("tool_call_id") or ""),
                    "content": _tool_output(event, tool_output_kb),
                }
            )
    return messages


def attached_shas(messages: list[Message]) -> list[str]:
    """The hashes of the files the context's messages list, each once, in order."""
    shas: dict[str, None] = {}
    for message in messages:
        for entry in message.get("attachments") or ():
            attachment = Attachment.from_data(entry)
            if attachment is not None:
                shas.setdefault(attachment.sha256)
    return list(shas)


def with_files(messages: list[Message], found: dict[str, StoredFile]) -> list[Message]:
    """The context as it is sent: each message that lists files carries them
    (``files``: the stored file, or its :class:`Attachment` alone when the store no
    longer has it), under the name it was attached as. Providers put them in their
    wire forms."""
    sent: list[Message] = []
    for message in messages:
        entries = message.get("attachments")
        if not entries:
            sent.append(message)
            continue
        files: list[StoredFile | Attachment] = []
        for entry in entries:
            attachment = Attachment.from_data(entry)
            if attachment is None:
                continue
            stored = found.get(attachment.sha256)
            files.append(
                StoredFile(attachment, stored.content, stored.text) if stored else attachment
            )
        sent.append({**{k: v for k, v in message.items() if k != "attachments"}, "files": files})
    return sent


def build_context(
    state: ReplayState, system_prompt: str | None, tool_output_kb: int | None = None
) -> list[Message]:
    """Exactly what the next request carries (before the new user message)."""
    messages: list[Message] = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    messages.extend(context_messages(state.context, tool_output_kb))
    if state.working_prompt:
        messages.append({"role": "system", "content": current_prompt_line(state.working_prompt)})
    return messages
