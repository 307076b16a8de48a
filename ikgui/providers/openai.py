"""OpenAI-compatible chat completions: OpenAI, OpenRouter, LM Studio, llama.cpp, vLLM, LiteLLM.

``POST {base}/chat/completions`` when the base URL ends in ``/v1``, else
``{base}/v1/chat/completions``; SSE with ``stream_options.include_usage`` so the
usage arrives in the stream; ``Authorization: Bearer`` when a key is set. Models:
``GET …/models`` (``data[].id``).
"""

from __future__ import annotations

from typing import Any

from ikgui.domain.streaming import ChatRequest
from ikgui.providers.attachments import Blobs, openai_messages
from ikgui.providers.http import HTTPProvider

_RESERVED = ("model", "messages", "stream", "stream_options")


def v1_url(base_url: str, path: str) -> str:
    """``{base}/v1/<path>``, or ``{base}/<path>`` when the base already ends in ``/v1``."""
    base = base_url.rstrip("/")
    return f"{base}/{path}" if base.endswith("/v1") else f"{base}/v1/{path}"


class OpenAIProvider(HTTPProvider):
    kind = "openai"

    def chat_url(self) -> str:
        return v1_url(self.base_url, "chat/completions")

    def models_url(self) -> str:
        return v1_url(self.base_url, "models")

    def body(self, request: ChatRequest, blobs: Blobs | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": openai_messages(request.messages, blobs or Blobs()),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        body.update((k, v) for k, v in request.options.items() if k not in _RESERVED)
        return body

    def model_names(self, body: Any) -> tuple[list[str], dict[str, str] | None]:
        data = body.get("data") if isinstance(body, dict) else None
        items = data if isinstance(data, list) else []
        return [str(m["id"]) for m in items if isinstance(m, dict) and m.get("id")], None
