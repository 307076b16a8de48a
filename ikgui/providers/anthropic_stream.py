"""Anthropic ``/v1/messages`` stream events (named SSE events) to items.

``message_start`` carries the input usage (input + cache-creation + cache-read tokens,
so the count matches OpenAI's ``prompt_tokens``); ``content_block_delta`` carries
``text_delta`` text and ``input_json_delta`` pieces of a ``tool_use`` block, which is
emitted whole at its ``content_block_stop``; ``message_delta`` carries the cumulative
output usage and ``stop_reason``; ``message_stop`` ends the stream; ``ping``, thinking
deltas and unknown events are ignored; ``event: error`` raises ``stream_error``.
Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from ikgui.domain.streaming import StreamItem, TextDelta
from ikgui.providers.errors import server_message
from ikgui.providers.interpret import Interpreter, ToolParts, as_int, load_object
from ikgui.providers.sse import SSEMessage

_INPUT_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


class AnthropicInterpreter(Interpreter[SSEMessage]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tools: dict[Any, ToolParts] = {}
        self._usage: dict[str, int] = {}

    def feed(self, message: SSEMessage) -> list[StreamItem]:
        if self.finished:
            return []
        self.received = True
        event = load_object(message.data, self.errors)
        kind = "error" if message.event == "error" else event.get("type", message.event)
        if kind == "content_block_delta":
            delta = event.get("delta")
            if not isinstance(delta, dict):
                return []
            dtype = delta.get("type")
            if dtype == "text_delta":
                text = delta.get("text")
                return [TextDelta(text)] if text and isinstance(text, str) else []
            if dtype == "input_json_delta":
                parts = self._tools.get(event.get("index"))
                piece = delta.get("partial_json")
                if parts is not None and isinstance(piece, str):
                    parts.pieces.append(piece)
            return []
        if kind == "content_block_start":
            return self._block_start(event)
        if kind == "content_block_stop":
            parts = self._tools.pop(event.get("index"), None)
            return [parts.assemble(self.new_id())] if parts is not None else []
        if kind == "message_start":
            body = event.get("message")
            if isinstance(body, dict):
                self._take_usage(body.get("usage"))
                if isinstance(body.get("model"), str):
                    self.model = body["model"]
            return []
        if kind == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason"):
                self.finish_reason = str(delta["stop_reason"])
            self._take_usage(event.get("usage"))
            return []
        if kind == "message_stop":
            return self.stream_end()
        if kind == "error":
            raise self.errors.in_stream(server_message(event))
        return []  # ping, thinking/signature deltas, and event types added later

    def _block_start(self, event: dict[str, Any]) -> list[StreamItem]:
        block = event.get("content_block")
        if not isinstance(block, dict):
            return []
        if block.get("type") == "tool_use":
            self._tools[event.get("index")] = ToolParts(
                id=str(block.get("id") or ""),
                name=str(block.get("name") or ""),
                initial=block.get("input"),
            )
        elif block.get("type") == "text":
            text = block.get("text")
            if text and isinstance(text, str):
                return [TextDelta(text)]
        return []

    def _take_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        for key in (*_INPUT_FIELDS, "output_tokens"):
            value = as_int(usage.get(key))
            if value is not None:
                self._usage[key] = value
        inputs = [self._usage[key] for key in _INPUT_FIELDS if key in self._usage]
        if inputs:
            self.input_tokens = sum(inputs)
        if "output_tokens" in self._usage:
            self.output_tokens = self._usage["output_tokens"]

    def flush_tools(self) -> list[StreamItem]:
        tools, self._tools = self._tools, {}
        return [parts.assemble(self.new_id()) for parts in tools.values()]

    def complete(self, body: dict[str, Any]) -> list[StreamItem]:
        """A whole ``message`` object (a server that ignored ``stream``)."""
        if body.get("type") == "error" or body.get("error"):
            raise self.errors.in_stream(server_message(body))
        content = body.get("content")
        if not isinstance(content, list):
            raise self.errors.not_a_stream("application/json")
        self.received = True
        items: list[StreamItem] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                if block["text"]:
                    items.append(TextDelta(block["text"]))
            elif block.get("type") == "tool_use":
                parts = ToolParts(str(block.get("id") or ""), str(block.get("name") or ""))
                parts.initial = block.get("input")
                items.append(parts.assemble(self.new_id()))
        if body.get("stop_reason"):
            self.finish_reason = str(body["stop_reason"])
        self._take_usage(body.get("usage"))
        if isinstance(body.get("model"), str):
            self.model = body["model"]
        return items + self.stream_end()
