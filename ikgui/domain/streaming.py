"""The provider port: what a model server yields while it streams a reply.

Providers (``ikgui.providers``) turn their wire formats into these plain values;
the session turns them into events. Failures are raised as
:class:`~ikgui.domain.errors.ProviderError` with a category (SPEC §8) and, when the user
can act, an advice (:mod:`ikgui.domain.text.advice`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ikgui.domain.state.context import Message

#: ProviderError categories, one per kind of failure the user can act on.
CATEGORIES = (
    "connect",  # nothing listening / DNS / refused: name the URL
    "timeout",  # connect, first byte or idle timeout
    "auth",  # 401/403: key rejected or missing
    "not_found",  # 404: unknown model or wrong URL
    "rate_limit",  # 429 (with retry-after when given)
    "overloaded",  # 503 / 529, or the provider's own overload error
    "server_error",  # any other 5xx: "The server had an internal error (500)"
    "bad_request",  # 400 (e.g. context overflow)
    "stream_error",  # an error object sent inside the stream
    "cut",  # the stream ended before its end marker
    "protocol",  # a malformed line or a body that is not the expected format
    "config",  # no provider / no model configured, an invalid URL or kind
    "limit",  # the reply passed its time or size limit ([limits] in config.toml)
)


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A complete tool call, assembled by the provider from its streamed pieces."""

    id: str
    name: str
    arguments: Any  # parsed JSON when it parses, else the raw string


@dataclass(frozen=True)
class StreamEnd:
    """The normal end of a stream: usage and why it finished."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    model: str | None = None


StreamItem = TextDelta | ToolCallDelta | StreamEnd


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: list[Message]
    options: dict[str, Any] = field(default_factory=dict)


class ItemStream(Protocol):
    """An async iterator of stream items that can be closed early."""

    def __aiter__(self) -> AsyncIterator[StreamItem]: ...

    async def __anext__(self) -> StreamItem: ...

    async def aclose(self) -> None: ...


class Provider(Protocol):
    """One configured model server."""

    name: str
    kind: str
    base_url: str

    def stream(self, request: ChatRequest) -> ItemStream:
        """Yield deltas as they arrive, ending with exactly one ``StreamEnd``.

        Raises ``ProviderError`` on any failure, including a stream that stops before
        its end marker (category ``cut``). Cancelling the consuming task closes the
        connection promptly.
        """
        ...

    async def list_models(self) -> list[str]: ...

    async def aclose(self) -> None: ...
