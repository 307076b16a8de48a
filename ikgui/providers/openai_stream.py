"""OpenAI chat-completions stream chunks (SSE ``data:`` JSON, ending ``[DONE]``) to items.

Handles ``content`` and ``refusal`` deltas, tool-call deltas accumulated by index and
emitted complete when the turn finishes, the usage chunk whether ``choices`` is ``[]``
(OpenAI, llama.cpp) or ``[{"index":0,"delta":{}}]`` (LiteLLM), ``finish_reason``, and
an ``{"error": …}`` object or ``event: error`` inside the stream. Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import Any

from ikgui.domain.streaming import StreamItem, TextDelta
from ikgui.providers.errors import server_message
from ikgui.providers.interpret import Interpreter, ToolParts, as_int, load_object
from ikgui.providers.sse import SSEMessage

DONE = "[DONE]"


class OpenAIInterpreter(Interpreter[SSEMessage]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tools: dict[int, ToolParts] = {}

    def feed(self, message: SSEMessage) -> list[StreamItem]:
        if self.finished:
            return []
        self.received = True
        data = message.data
        if data.startswith(DONE) and data.strip() == DONE:
            return self.stream_end()
        chunk = load_object(data, self.errors)
        if message.event == "error" or chunk.get("error"):
            raise self.errors.in_stream(server_message(chunk))
        items: list[StreamItem] = []
        choices = chunk.get("choices")
        if choices and isinstance(choices, list):
            for choice in choices:
                if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                    continue  # only the first choice (ikgui never asks for n > 1)
                delta = choice.get("delta")
                if delta and isinstance(delta, dict):
                    content = delta.get("content")
                    if content and isinstance(content, str):
                        items.append(TextDelta(content))
                    refusal = delta.get("refusal")
                    if refusal and isinstance(refusal, str):
                        items.append(TextDelta(refusal))
                    calls = delta.get("tool_calls")
                    if calls and isinstance(calls, list):
                        self._add_tool_deltas(calls)
                reason = choice.get("finish_reason")
                if reason:
                    self.finish_reason = str(reason)
                    items.extend(self.flush_tools())
        usage = chunk.get("usage")
        if usage and isinstance(usage, dict):
            self._usage(usage)
        model = chunk.get("model")
        if model and isinstance(model, str):
            self.model = model
        return items

    def _usage(self, usage: dict[str, Any]) -> None:
        prompt = as_int(usage.get("prompt_tokens"))
        completion = as_int(usage.get("completion_tokens"))
        if prompt is not None:
            self.input_tokens = prompt
        if completion is not None:
            self.output_tokens = completion

    def _add_tool_deltas(self, calls: list[Any]) -> None:
        for call in calls:
            if not isinstance(call, dict):
                continue
            index = as_int(call.get("index"))
            if index is None:  # servers that omit the index send each call whole
                index = len(self._tools) + 1000
            parts = self._tools.setdefault(index, ToolParts())
            call_id = call.get("id")
            if call_id and isinstance(call_id, str) and not parts.id:
                parts.id = call_id
            function = call.get("function")
            if not isinstance(function, dict):
                continue
            name = function.get("name")
            if name and isinstance(name, str) and not parts.name:
                parts.name = name
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                parts.pieces.append(arguments)
            elif arguments is not None:
                parts.pieces.append(json.dumps(arguments))

    def flush_tools(self) -> list[StreamItem]:
        tools, self._tools = self._tools, {}
        return [tools[index].assemble(self.new_id()) for index in sorted(tools)]

    def complete(self, body: dict[str, Any]) -> list[StreamItem]:
        """A whole ``chat.completion`` object (a server that ignored ``stream``)."""
        if body.get("error"):
            raise self.errors.in_stream(server_message(body))
        choices = body.get("choices")
        if not isinstance(choices, list):
            raise self.errors.not_a_stream("application/json")
        self.received = True
        items: list[StreamItem] = []
        for choice in choices[:1]:
            message = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(message, dict):
                for key in ("content", "refusal"):
                    text = message.get(key)
                    if text and isinstance(text, str):
                        items.append(TextDelta(text))
                calls = message.get("tool_calls")
                if isinstance(calls, list):
                    self._add_tool_deltas(
                        [{**c, "index": i} for i, c in enumerate(calls) if isinstance(c, dict)]
                    )
            if isinstance(choice, dict) and choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        usage = body.get("usage")
        if isinstance(usage, dict):
            self._usage(usage)
        if isinstance(body.get("model"), str):
            self.model = body["model"]
        return items + self.stream_end()
