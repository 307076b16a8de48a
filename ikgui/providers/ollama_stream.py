"""Ollama ``/api/chat`` NDJSON lines to items.

Each line carries ``message.content`` and, whole, ``message.tool_calls``; the last
line has ``done: true`` with ``done_reason``, ``prompt_eval_count`` and ``eval_count``.
``{"error": …}`` (Ollama, also mid-stream as a bare line; LightRAG puts it beside a
``message``) and LightRAG's ``{"detail": …}`` raise ``stream_error``. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from ikgui.domain.streaming import StreamItem, TextDelta
from ikgui.providers.errors import server_message
from ikgui.providers.interpret import Interpreter, ToolParts, as_int, load_object


class OllamaInterpreter(Interpreter[str]):
    def feed(self, message: str) -> list[StreamItem]:
        if self.finished:
            return []
        self.received = True
        return self.complete(load_object(message, self.errors), final=False)

    def complete(self, body: dict[str, Any], final: bool = True) -> list[StreamItem]:
        """One line; with ``final`` it is a whole non-streaming reply."""
        if body.get("error") or ("detail" in body and "done" not in body):
            raise self.errors.in_stream(server_message(body))
        if final and "message" not in body and "done" not in body:
            raise self.errors.not_a_stream("application/json")
        self.received = True
        items: list[StreamItem] = []
        message = body.get("message")
        if message and isinstance(message, dict):
            content = message.get("content")
            if content and isinstance(content, str):
                items.append(TextDelta(content))
            calls = message.get("tool_calls")
            if calls and isinstance(calls, list):
                for call in calls:
                    function = call.get("function") if isinstance(call, dict) else None
                    if isinstance(function, dict):
                        parts = ToolParts(
                            id=str(call.get("id") or ""),
                            name=str(function.get("name") or ""),
                            initial=function.get("arguments"),
                        )
                        items.append(parts.assemble(self.new_id()))
        if body.get("done") or final:
            if isinstance(body.get("model"), str):
                self.model = body["model"]
            reason = body.get("done_reason")
            self.finish_reason = str(reason) if reason else None
            self.input_tokens = as_int(body.get("prompt_eval_count"))
            self.output_tokens = as_int(body.get("eval_count"))
            items.extend(self.stream_end())
        return items
