"""The domain's OpenAI-form messages and tools in Ollama's and Anthropic's wire forms.

Input (``ikgui.domain.state.context``): roles ``system``/``user``/``assistant``/``tool``;
assistant ``tool_calls`` ``[{"id", "type": "function", "function": {"name",
"arguments": <JSON string>}}]``; tool results ``{"role": "tool", "tool_call_id",
"content"}``; system messages may appear mid-history (edit notices) and last (the
``[current prompt: "…"]`` line). Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import Any

from ikgui.domain.state.context import Message
from ikgui.providers.attachments import Blobs, anthropic_blocks, files_of, ollama_message


def text_of(content: Any) -> str:
    """A message's text (``None`` → ``""``; OpenAI content parts joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def arguments_object(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as the JSON object Ollama and Anthropic expect."""
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return {"value": raw}
    if isinstance(value, dict):
        return value
    return {} if value is None else {"value": value}


def _calls(message: Message) -> list[dict[str, Any]]:
    calls = message.get("tool_calls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _function(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function")
    return function if isinstance(function, dict) else {}


# -- Ollama ------------------------------------------------------------------
def ollama_messages(messages: list[Message], blobs: Blobs | None = None) -> list[dict[str, Any]]:
    """Ollama keeps system messages where they are; tool-call arguments become objects
    and a tool result names its tool (``tool_name``) when the call is in the history;
    a message's images go in its ``images``, other files as text."""
    blobs = blobs or Blobs()
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        role = str(message.get("role") or "user")
        text = text_of(message.get("content"))
        calls = _calls(message)
        if role == "assistant" and calls:
            wire_calls = []
            for call in calls:
                function = _function(call)
                name = str(function.get("name") or "")
                names[str(call.get("id") or "")] = name
                arguments = arguments_object(function.get("arguments"))
                wire_calls.append({"function": {"name": name, "arguments": arguments}})
            out.append({"role": "assistant", "content": text, "tool_calls": wire_calls})
        elif role == "tool":
            result: dict[str, Any] = {"role": "tool", "content": text}
            tool_name = names.get(str(message.get("tool_call_id") or ""))
            if tool_name:
                result["tool_name"] = tool_name
            out.append(result)
        elif files := files_of(message):
            out.append(ollama_message(text, files, blobs))
        else:
            out.append({"role": role, "content": text})
    return out


# -- Anthropic ---------------------------------------------------------------
def anthropic_messages(
    messages: list[Message], blobs: Blobs | None = None
) -> tuple[str | None, list[dict[str, Any]]]:
    """``(system, messages)`` for ``/v1/messages``.

    A leading system message becomes the top-level ``system``; later system messages
    (edit notices, the trailing current-prompt line) become user text, as SPEC §7 says.
    Assistant tool calls become ``tool_use`` blocks, tool results user ``tool_result``
    blocks (placed first in their turn, as the API requires); consecutive messages of
    one role are merged so roles alternate; empty text is dropped (the API refuses it).
    A message's files come first in its turn (``image`` and ``document`` blocks).
    """
    blobs = blobs or Blobs()
    system: str | None = None
    rest = messages
    if messages and messages[0].get("role") == "system":
        system = text_of(messages[0].get("content")) or None
        rest = messages[1:]
    turns: list[dict[str, Any]] = []
    for message in rest:
        role = message.get("role")
        text = text_of(message.get("content"))
        blocks: list[dict[str, Any]] = []
        if role == "tool":
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": str(message.get("tool_call_id") or ""),
                    "content": text,
                }
            )
        else:
            blocks.extend(anthropic_blocks(files_of(message), blobs))
            if text:
                blocks.append({"type": "text", "text": text})
        if role == "assistant":
            for call in _calls(message):
                function = _function(call)
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": str(call.get("id") or ""),
                        "name": str(function.get("name") or ""),
                        "input": arguments_object(function.get("arguments")),
                    }
                )
        wire_role = "assistant" if role == "assistant" else "user"
        if not blocks:
            continue
        if turns and turns[-1]["role"] == wire_role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": wire_role, "content": blocks})
    for turn in turns:
        if turn["role"] == "user":
            turn["content"].sort(key=lambda block: block["type"] != "tool_result")
    return system, turns


def anthropic_tools(tools: Any) -> list[Any]:
    """OpenAI-form tools (``{"type": "function", "function": {…}}``) as Anthropic tools."""
    out: list[Any] = []
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            converted = {
                "name": function.get("name", ""),
                "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
            }
            if function.get("description"):
                converted["description"] = function["description"]
            out.append(converted)
        else:
            out.append(tool)  # already in Anthropic's form
    return out
