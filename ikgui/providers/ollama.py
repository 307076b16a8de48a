"""Ollama's native chat API: ``POST /api/chat`` streaming newline-delimited JSON.

Messages are converted by :func:`ikgui.providers.convert.ollama_messages`. Request
options: ``tools``, ``format``, ``keep_alive`` and ``think`` go at the top level,
``max_tokens`` becomes ``options.num_predict``, anything else goes into ``options``
(temperature, num_ctx, seed…). A key, when set, is sent as ``Authorization: Bearer``
(Ollama behind a proxy, ollama.com). Models: ``GET /api/tags`` (``models[].name``).
"""

from __future__ import annotations

from typing import Any

from ikgui.domain.streaming import ChatRequest
from ikgui.providers.attachments import Blobs
from ikgui.providers.convert import ollama_messages
from ikgui.providers.http import HTTPProvider

_TOP_LEVEL = ("tools", "format", "keep_alive", "think")


class OllamaProvider(HTTPProvider):
    kind = "ollama"
    accept = "application/x-ndjson"

    def _root(self) -> str:
        base = self.base_url
        return base[: -len("/api")] if base.endswith("/api") else base

    def chat_url(self) -> str:
        return f"{self._root()}/api/chat"

    def models_url(self) -> str:
        return f"{self._root()}/api/tags"

    def body(self, request: ChatRequest, blobs: Blobs | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": ollama_messages(request.messages, blobs),
            "stream": True,
        }
        options: dict[str, Any] = {}
        for key, value in request.options.items():
            if key in _TOP_LEVEL:
                body[key] = value
            elif key == "max_tokens":
                options["num_predict"] = value
            elif key == "options" and isinstance(value, dict):
                options.update(value)
            elif key not in ("model", "messages", "stream"):
                options[key] = value
        if options:
            body["options"] = options
        return body

    def model_names(self, body: Any) -> tuple[list[str], dict[str, str] | None]:
        models = body.get("models") if isinstance(body, dict) else None
        items = models if isinstance(models, list) else []
        names = [str(m.get("name") or m.get("model") or "") for m in items if isinstance(m, dict)]
        return [n for n in names if n], None
