"""Every provider failure as one :class:`ProviderError` with one plain sentence (SPEC §8).

This module and its two parts, :mod:`~ikgui.providers.status_errors` (an HTTP status)
and :mod:`~ikgui.providers.exception_errors` (an httpx/OS exception), are the only place
user-facing provider text is written; :mod:`~ikgui.providers.error_text` holds the
helpers they share (quoting, URLs, ``Retry-After``). Categories come from
``ikgui.domain.streaming.CATEGORIES``:

- ``connect``: nothing listening, name lookup or TLS failure, hung up before answering
- ``timeout``: connect, first byte or idle timeout (which one and how long), HTTP 408
- ``auth``: 401/403 — where to set the key
- ``not_found``: 404/405 — unknown model (named) or wrong URL
- ``rate_limit``: 429, with the ``Retry-After`` seconds when given
- ``overloaded``: 503 and 529, or an overload error sent inside the stream
- ``server_error``: any other 5xx (500 "internal error", 502, 504…)
- ``bad_request``: other 4xx with the server's own message (e.g. context overflow)
- ``stream_error``: an error object sent inside the stream, or instead of a reply
- ``cut``: the body ended before its end marker
- ``protocol``: a malformed line, a body that is not the expected format, a redirect
- ``config``: an invalid URL or provider kind
- ``limit``: the reply passed its time or size limit (``[limits]`` in config.toml)

Each error says what happened; what the user can do is an
:class:`~ikgui.domain.text.advice.Advice` (a key and its facts), worded by the domain for the
command line or the window. Every message passes through :func:`redact`, so an API key
never appears in it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from ikgui.domain.errors import ProviderError
from ikgui.domain.text.advice import Advice
from ikgui.domain.text.safe import one_line
from ikgui.providers.error_text import (
    MAX_QUOTE,
    clean,
    display_url,
    duration,
    redact,
    retry_after,
    sentence,
    server_message,
)
from ikgui.providers.exception_errors import exception_error
from ikgui.providers.status_errors import status_error

_OVERLOAD = re.compile(r"\boverload", re.IGNORECASE)

__all__ = [
    "MAX_QUOTE",
    "ErrorContext",
    "clean",
    "display_url",
    "redact",
    "retry_after",
    "server_message",
]


@dataclass(frozen=True)
class ErrorContext:
    """What an error message needs to know about the provider that failed."""

    base_url: str = ""
    provider: str = ""  # the configured name, for `ikgui keys set <provider>`
    kind: str = "openai"
    model: str | None = None
    secrets: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return display_url(self.base_url) if self.base_url else "the server"

    @property
    def server(self) -> str:
        """``Ollama at <url>`` / ``The server at <url>``, to start a sentence."""
        name = "Ollama" if self.kind == "ollama" else "The server"
        return f"{name} at {self.url}" if self.base_url else name

    @property
    def provider_name(self) -> str:
        """The provider's configured name (its kind when it has none)."""
        return self.provider or self.kind

    @property
    def who(self) -> str:
        """``the provider "<name>"``, inside a sentence."""
        return f'the provider "{self.provider_name}"'

    def make(
        self,
        what: str,
        category: str,
        status: int | None = None,
        after: float | None = None,
        advice: str | None = None,
        **facts: str,
    ) -> ProviderError:
        """The error: ``what`` happened and the ``advice`` key with its ``facts`` (the
        provider's name is always one)."""
        remedy = None
        if advice is not None:
            facts = {"provider": self.provider_name, **facts}
            remedy = Advice(advice, {k: redact(v, self.secrets) for k, v in facts.items()})
        return ProviderError(redact(what, self.secrets), category, status, after, remedy)

    # -- before any answer ---------------------------------------------------
    def cannot_connect(self) -> ProviderError:
        if self.kind == "ollama":
            return self.make(
                f"Could not connect to Ollama at {self.url}.", "connect", advice="start_ollama"
            )
        return self.make(f"Could not connect to {self.url}.", "connect", advice="start_server")

    def unknown_host(self) -> ProviderError:
        host = urlsplit(self.base_url).hostname or self.url
        return self.make(
            f"Could not find the server {host} (the name lookup failed).",
            "connect",
            advice="check_host",
        )

    def tls_failed(self) -> ProviderError:
        return self.make(
            f"Could not make a secure connection to {self.url} (its certificate was not accepted).",
            "connect",
            advice="check_tls",
        )

    def hung_up(self) -> ProviderError:
        return self.make(
            f"{self.server} closed the connection without answering.",
            "connect",
            advice="check_url",
        )

    def bad_url(self) -> ProviderError:
        return self.make(
            f'The URL "{self.url}" of {self.who} is not a valid http(s) address.',
            "config",
            advice="fix_url",
        )

    def timeout(self, phase: str, seconds: float) -> ProviderError:
        limit = duration(seconds)
        if phase == "connect":
            return self.make(
                f"Connecting to {self.url} timed out after {limit}.",
                "timeout",
                advice="check_network",
            )
        if phase == "first_byte":
            text = (
                f"{self.server} did not start replying within {limit}; the model may still "
                "be loading or the server is busy, so try again."
            )
        else:
            text = (
                f"The reply from {self.url} stalled: nothing arrived for {limit}, "
                "so it was stopped."
            )
        return self.make(text, "timeout")

    # -- inside the body -----------------------------------------------------
    def in_stream(self, message: str | None) -> ProviderError:
        message = re.sub(r"^\s*error:\s*", "", message or "", flags=re.IGNORECASE)
        if message and _OVERLOAD.search(message):  # e.g. Anthropic's overloaded_error
            said = "" if message.strip(" .!").lower() == "overloaded" else f": {clean(message)}"
            return self.make(
                sentence(f"{self.server} is overloaded{said}"),
                "overloaded",
                advice="try_again",
            )
        if message:
            text = sentence(f"{self.server} reported an error during the reply: {clean(message)}")
        else:
            text = f"{self.server} reported an error during the reply without saying what failed."
        return self.make(text, "stream_error")

    def cut(self, received: bool = True) -> ProviderError:
        if received:
            text = (
                f"The reply from {self.url} stopped before it was complete "
                "(the connection closed mid-stream)."
            )
        else:
            text = (
                f"{self.server} closed the connection without sending a reply; check its log "
                "(the conversation may be too long for the model)."
            )
        return self.make(text, "cut")

    def not_a_reply(self, content_type: str, sample: bytes) -> ProviderError:
        """A body in which nothing was a message of this kind: garbage, not a cut."""
        if sample.lstrip()[:1] == b"<":
            return self.not_a_stream(content_type, sample)
        excerpt = one_line(clean(sample.decode("utf-8", "replace"))[:40])
        return self.make(
            f'{self.server} answered with data that is not a model reply ("{excerpt}").',
            "protocol",
            advice="check_url_kind",
        )

    def reply_limit(
        self, *, seconds: float | None = None, size: int | None = None
    ) -> ProviderError:
        """The reply passed the longest time or the most bytes one reply may take."""
        if size is not None:
            what, setting = f"at {size / 1_000_000:g} MB, the most one reply may hold", "reply_mb"
        else:
            what = f"after {duration(seconds or 0.0)}, the longest one reply may take"
            setting = "reply_minutes"
        return self.make(
            f"The reply from {self.url} was stopped {what}.",
            "limit",
            advice="reply_limit",
            setting=setting,
        )

    def too_large(self, size: int, what: str = "the reply") -> ProviderError:
        """The body passed ``size`` bytes once decoded (a decompression bomb, an endless
        list): reading stopped there; a reply keeps the text that arrived."""
        limit = f"{size / 1_000_000:g} MB"
        if what in ("the reply", "one message"):
            where = "for it" if what == "the reply" else "in one message"
            return self.make(
                f"The reply from {self.url} was stopped: the server sent more than {limit} "
                f"(uncompressed) {where}, far more than a reply's text needs.",
                "limit",
                advice="reply_limit",
                setting="reply_mb",
            )
        return self.make(
            f"{self.server} sent more than {limit} (uncompressed) for {what}; ikgui stopped "
            "reading it there.",
            "protocol",
        )

    def undecodable(self, encoding: str) -> ProviderError:
        """The body's ``Content-Encoding`` is unknown or its bytes do not decode."""
        return self.make(
            f"{self.server} sent a body encoded as {clean(encoding)[:40]!r} that could not "
            "be decoded.",
            "protocol",
        )

    def malformed(self, line: str) -> ProviderError:
        excerpt = clean(line)[:80]
        return self.make(
            f'{self.server} sent a line that is not valid JSON ("{excerpt}"), so the reply '
            "could not be read.",
            "protocol",
        )

    def not_a_stream(self, content_type: str, sample: bytes = b"") -> ProviderError:
        start = sample.lstrip()[:15].lower()
        if "html" in content_type or start.startswith((b"<!doctype", b"<html", b"<")):
            return self.make(
                f"{self.server} answered with a web page instead of a model reply.",
                "protocol",
                advice="check_url_v1" if self.kind == "openai" else "check_url",
            )
        shown = content_type.split(";")[0].strip() or "data"
        return self.make(
            f"{self.server} answered with {shown} that is not a {self.kind} reply.",
            "protocol",
            advice="check_kind",
        )

    # -- HTTP status and exceptions (status_errors, exception_errors) --------
    def http_status(
        self, status: int, body: bytes, headers: Mapping[str, str], endpoint: str = ""
    ) -> ProviderError:
        """The error for an answer with HTTP ``status``."""
        return status_error(self, status, body, headers, endpoint)

    def from_exception(
        self, exc: BaseException, *, streaming: bool, connect_timeout: float = 10.0
    ) -> ProviderError:
        """Map an ``httpx``/``OSError`` failure; ``streaming`` once the body has started."""
        return exception_error(self, exc, streaming=streaming, connect_timeout=connect_timeout)
