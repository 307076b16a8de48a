"""Model providers: OpenAI-compatible, Ollama and Anthropic over httpx (SPEC §8).

Each implements :class:`ikgui.domain.streaming.Provider`. :func:`make_provider` builds
one from its settings. Module map: ``sse``/``ndjson`` decode bytes, the
``*_stream`` interpreters turn messages into stream items, ``parser`` joins the two,
``convert`` writes each provider's message form, ``http`` holds the client and
timeouts, ``reply_stream`` reads one streamed reply within them, ``errors`` (with
``status_errors``, ``exception_errors`` and ``error_text``) writes every user-facing
sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.settings import ProviderSettings
from ikgui.providers.anthropic import AnthropicProvider
from ikgui.providers.errors import ErrorContext
from ikgui.providers.http import (
    CONNECT_TIMEOUT,
    FIRST_BYTE_TIMEOUT,
    IDLE_TIMEOUT,
    REPLY_BYTES,
    REPLY_SECONDS,
    ClientPool,
    HTTPProvider,
    ReplyStream,
    warm_up,
)
from ikgui.providers.ollama import OllamaProvider
from ikgui.providers.openai import OpenAIProvider

__all__ = [
    "CONNECT_TIMEOUT",
    "FIRST_BYTE_TIMEOUT",
    "IDLE_TIMEOUT",
    "AnthropicProvider",
    "ClientPool",
    "HTTPProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "ReplyStream",
    "make_provider",
    "warm_up",
]

PROVIDER_CLASSES: dict[str, type[HTTPProvider]] = {
    "openai": OpenAIProvider,
    "ollama": OllamaProvider,
    "anthropic": AnthropicProvider,
}


def make_provider(
    settings: ProviderSettings,
    api_key: str | None = None,
    *,
    connect_timeout: float = CONNECT_TIMEOUT,
    first_byte_timeout: float = FIRST_BYTE_TIMEOUT,
    idle_timeout: float = IDLE_TIMEOUT,
    reply_seconds: float = REPLY_SECONDS,
    reply_bytes: float = REPLY_BYTES,
    pool: ClientPool | None = None,
) -> HTTPProvider:
    """The provider for ``settings`` (``api_key`` already looked up by the caller).

    Raises ``ProviderError`` (category ``config``) for an unknown kind or a URL that is
    not http(s).
    """
    cls = PROVIDER_CLASSES.get(settings.kind)
    errors = ErrorContext(settings.base_url, settings.name, settings.kind)
    if cls is None:
        known = ", ".join(PROVIDER_CLASSES)
        raise errors.make(
            f'The provider {settings.name} has the unknown kind "{settings.kind}".',
            "config",
            advice="known_kind",
            kinds=known,
        )
    if not settings.base_url.strip().lower().startswith(("http://", "https://")):
        raise errors.bad_url()
    return cls(
        settings.name,
        settings.base_url,
        api_key,
        connect_timeout=connect_timeout,
        first_byte_timeout=first_byte_timeout,
        idle_timeout=idle_timeout,
        reply_seconds=reply_seconds,
        reply_bytes=int(reply_bytes),
        pool=pool,
    )


if TYPE_CHECKING:  # mypy checks that every provider satisfies the domain's port
    from ikgui.domain.streaming import Provider

    _ports: tuple[Provider, ...] = (
        OpenAIProvider("", ""),
        OllamaProvider("", ""),
        AnthropicProvider("", ""),
    )
