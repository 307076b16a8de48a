"""Anthropic Messages API: ``POST /v1/messages`` with named SSE events.

Headers ``x-api-key`` and ``anthropic-version: 2023-06-01``; ``max_tokens`` defaults
to 4096 (``options["max_tokens"]`` overrides). The leading system message becomes the
top-level ``system``; see :func:`ikgui.providers.convert.anthropic_messages` for the
rest. Models: ``GET /v1/models`` (``data[].id``, paged with ``after_id``).
"""

from __future__ import annotations

from typing import Any

from ikgui.domain.streaming import ChatRequest
from ikgui.providers.attachments import Blobs
from ikgui.providers.convert import anthropic_messages, anthropic_tools
from ikgui.providers.http import HTTPProvider
from ikgui.providers.openai import v1_url

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
_RESERVED = ("model", "messages", "stream", "system", "max_tokens", "tools")


class AnthropicProvider(HTTPProvider):
    kind = "anthropic"

    def chat_url(self) -> str:
        return v1_url(self.base_url, "messages")

    def models_url(self) -> str:
        return v1_url(self.base_url, "models")

    def headers(self) -> dict[str, str]:
        headers = {"accept": "text/event-stream", "anthropic-version": API_VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return headers

    def body(self, request: ChatRequest, blobs: Blobs | None = None) -> dict[str, Any]:
        system, messages = anthropic_messages(request.messages, blobs)
        options = request.options
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": options.get("max_tokens") or DEFAULT_MAX_TOKENS,
            "messages": messages,
            "stream": True,
        }
        if system:
            body["system"] = system
        if options.get("tools"):
            body["tools"] = anthropic_tools(options["tools"])
        body.update((k, v) for k, v in options.items() if k not in _RESERVED)
        return body

    def model_names(self, body: Any) -> tuple[list[str], dict[str, str] | None]:
        data = body.get("data") if isinstance(body, dict) else None
        items = data if isinstance(data, list) else []
        names = [str(m["id"]) for m in items if isinstance(m, dict) and m.get("id")]
        last = body.get("last_id") if isinstance(body, dict) else None
        more = isinstance(body, dict) and body.get("has_more") is True and last
        return names, ({"after_id": str(last), "limit": "1000"} if more else None)
