"""Every provider failure as one :class:`ProviderError` with one plain sentence (SPEC §8).

This is the only place user-facing provider text is written. Categories come from
``ikgui.domain.streaming.CATEGORIES``:

- ``connect``: nothing listening, name lookup or TLS failure, hung up before answering
- ``timeout``: connect, first byte or idle timeout (which one and how long), HTTP 408
- ``auth``: 401/403 — where to set the key
- ``not_found``: 404/405 — unknown model (named) or wrong URL
- ``rate_limit``: 429, with the ``Retry-After`` seconds when given
- ``overloaded``: 5xx and 529
- ``bad_request``: other 4xx with the server's own message (e.g. context overflow)
- ``stream_error``: an error object sent inside the stream, or instead of a reply
- ``cut``: the body ended before its end marker
- ``protocol``: a malformed line, a body that is not the expected format, a redirect
- ``config``: an invalid URL or provider kind
- ``limit``: the reply passed its time or size limit (``[limits]`` in config.toml)

Every message passes through :func:`redact`, so an API key never appears in it.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ikgui.domain.errors import ProviderError
from ikgui.domain.safetext import one_line

#: The longest server message quoted in a sentence.
MAX_QUOTE = 300
_KEY_SHAPES = re.compile(r"\b(sk-[A-Za-z0-9_\-]{12,}|Bearer\s+[A-Za-z0-9._\-]{12,})")
_OVERFLOW = re.compile(
    r"context.{0,40}(exceed|too long|length|limit|overflow|window|size)|"
    r"(exceed|too long|maximum).{0,40}context|prompt is too long|too many tokens",
    re.IGNORECASE,
)
_DNS = ("name or service not known", "nodename nor servname", "getaddrinfo", "name resolution")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` without the given secrets or anything shaped like an API key."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return _KEY_SHAPES.sub("***", text)


def display_url(url: str) -> str:
    """``url`` as shown to the user: no credentials, query or fragment."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"  # IPv6
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", "")).rstrip("/") or url
    except ValueError:
        return "the server"


def clean(text: str) -> str:
    """A server's message on one line, clipped to :data:`MAX_QUOTE` characters."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1].rstrip() + "…"


def server_message(body: Any) -> str | None:
    """The server's own error text from a JSON body (``error.message``, ``error``,
    ``detail``, ``message``) or a short plain-text body; ``None`` when there is none."""
    if isinstance(body, bytes | bytearray):
        text = bytes(body[:65536]).decode("utf-8", "replace").strip()
        try:
            body = json.loads(text)
        except ValueError:
            if not text or text.startswith("<") or len(text) > 2 * MAX_QUOTE:
                return None
            return clean(text)
    found = _message_in(body)
    return clean(found) if found and found.strip() else None


def _message_in(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [m for m in (_message_in(v) for v in value[:5]) if m]
        return "; ".join(parts) or None
    if not isinstance(value, dict):
        return None
    for key in ("error", "detail", "message", "msg"):
        if key in value:
            found = _message_in(value[key])
            if found:
                return found
    kind = value.get("type")
    return kind if isinstance(kind, str) and kind != "error" else None


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``."""
    value = headers.get("retry-after")
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError):
                when = None
            if when is not None:
                return max(0.0, when.timestamp() - time.time())
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    return None


def _seconds(value: float) -> str:
    if value < 1:
        return f"{value:.2g} seconds"
    whole = round(value)
    if whole >= 120:
        return f"{round(whole / 60)} minutes"
    return "1 second" if whole == 1 else f"{whole} seconds"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


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
    def _name(self) -> str:
        return self.provider or self.kind

    @property
    def _who(self) -> str:
        return f'the provider "{self._name}"'

    def make(
        self, message: str, category: str, status: int | None = None, after: float | None = None
    ) -> ProviderError:
        return ProviderError(redact(message, self.secrets), category, status, after)

    # -- before any answer ---------------------------------------------------
    def cannot_connect(self) -> ProviderError:
        if self.kind == "ollama":
            text = (
                f"Could not connect to Ollama at {self.url}. "
                "Is Ollama running? Start it with `ollama serve`."
            )
        else:
            text = (
                f"Could not connect to {self.url}; check that the server is running "
                f"and that the URL of {self._who} in Settings is right."
            )
        return self.make(text, "connect")

    def unknown_host(self) -> ProviderError:
        host = urlsplit(self.base_url).hostname or self.url
        return self.make(
            f"Could not find the server {host} (the name lookup failed); check the URL of "
            f"{self._name} in Settings and your network connection.",
            "connect",
        )

    def tls_failed(self) -> ProviderError:
        return self.make(
            f"Could not make a secure connection to {self.url} (its certificate was not "
            "accepted); check the URL, or use http:// for a server on this machine.",
            "connect",
        )

    def hung_up(self) -> ProviderError:
        return self.make(
            f"{self.server} closed the connection without answering; check that the URL "
            f"of {self._who} points to a model server.",
            "connect",
        )

    def bad_url(self) -> ProviderError:
        return self.make(
            f'The URL "{self.url}" of {self._who} is not a valid http(s) address; '
            "fix it in Settings.",
            "config",
        )

    def timeout(self, phase: str, seconds: float) -> ProviderError:
        limit = _seconds(seconds)
        if phase == "connect":
            text = f"Connecting to {self.url} timed out after {limit}; check the URL and network."
        elif phase == "first_byte":
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

    # -- HTTP status ---------------------------------------------------------
    def http_status(
        self, status: int, body: bytes, headers: Mapping[str, str], endpoint: str = ""
    ) -> ProviderError:
        said = server_message(body)
        code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
        after = retry_after(headers)
        if status in (401, 403):
            return self._auth(status, said)
        if status in (404, 405):
            return self._not_found(status, said, endpoint)
        if status == 408:
            return self.make(
                f"{self.server} gave up waiting for the request ({code}).", "timeout", status
            )
        if status == 429:
            wait = (
                f"wait {_seconds(after)}" if after is not None and after >= 1 else "wait a moment"
            )
            return self.make(
                f"{self.server} is limiting how many requests it accepts ({code}); {wait} "
                "before retrying.",
                "rate_limit",
                status,
                after,
            )
        if status >= 500:
            what = {
                502: "could not reach its model backend",
                503: "is unavailable or overloaded",
                504: "timed out waiting for its model backend",
                529: "is overloaded",
            }.get(status, "had an internal error")
            return self.make(
                f"{self.server} {what} ({code}); try again in a moment.",
                "overloaded",
                status,
                after,
            )
        if 300 <= status < 400:
            where = headers.get("location", "another address")
            return self.make(
                f"{self.server} redirected the request to {where} (HTTP {status}); put the "
                f"right address in the URL of {self._who} in Settings.",
                "protocol",
                status,
            )
        if status >= 400:
            if said and _OVERFLOW.search(said):
                return self.make(
                    f"The conversation is too long for the model at {self.url} ({code}); "
                    "shorten it with /rewind or /clear, or choose a model with a larger context.",
                    "bad_request",
                    status,
                )
            return self.make(
                _sentence(f"{self.server} refused the request ({code})"), "bad_request", status
            )
        return self.make(
            f"{self.server} answered with HTTP {status} instead of a reply.", "protocol", status
        )

    def _auth(self, status: int, said: str | None) -> ProviderError:
        code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
        where = f"`ikgui keys set {self._name}` or in Settings"
        if not self.secrets:
            text = f"{self.server} needs an API key ({code}) and none is set: set it with {where}."
        elif status == 401:
            text = (
                f"{self.server} rejected the API key of {self._who} ({code}): set it with {where}."
            )
        else:
            text = (
                f"{self.server} refused access with the API key of {self._who} ({code}): "
                f"check the key's permissions, or set another with {where}."
            )
        return self.make(text, "auth", status)

    def _not_found(self, status: int, said: str | None, endpoint: str) -> ProviderError:
        code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
        model = self.model
        lowered = (said or "").lower()
        if model and said and ("model" in lowered or model.lower() in lowered):
            hint = f"pull it with `ollama pull {model}` or " if self.kind == "ollama" else ""
            return self.make(
                f'{self.server} does not have the model "{model}" ({code}); '
                f"{hint}choose another with /model.",
                "not_found",
                status,
            )
        place = display_url(endpoint) if endpoint else self.url
        text = f"Nothing answers at {place} ({code}); check the URL of {self._who} in Settings"
        if model:
            text += f' and that the model "{model}" exists'
        return self.make(text + ".", "not_found", status)

    # -- inside the body -----------------------------------------------------
    def in_stream(self, message: str | None) -> ProviderError:
        message = re.sub(r"^\s*error:\s*", "", message or "", flags=re.IGNORECASE)
        if message:
            text = _sentence(f"{self.server} reported an error during the reply: {clean(message)}")
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
            f'{self.server} answered with data that is not a model reply ("{excerpt}"); '
            f"check the URL and the kind of {self._who} in Settings.",
            "protocol",
        )

    def reply_limit(
        self, *, seconds: float | None = None, size: int | None = None
    ) -> ProviderError:
        """The reply passed the longest time or the most bytes one reply may take."""
        if size is not None:
            what = f"at {size / 1_000_000:g} MB, the most one reply may hold (reply_mb"
        else:
            what = (
                f"after {_seconds(seconds or 0.0)}, the longest one reply may take (reply_minutes"
            )
        return self.make(
            f"The reply from {self.url} was stopped {what} under [limits] in config.toml); "
            "the text that arrived is kept.",
            "limit",
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
            hint = " (OpenAI-compatible URLs usually end in /v1)" if self.kind == "openai" else ""
            return self.make(
                f"{self.server} answered with a web page instead of a model reply; check the "
                f"URL of {self._who} in Settings{hint}.",
                "protocol",
            )
        shown = content_type.split(";")[0].strip() or "data"
        return self.make(
            f"{self.server} answered with {shown} that is not a {self.kind} reply; check that "
            f"the kind of {self._who} in Settings matches the server.",
            "protocol",
        )

    # -- exceptions ----------------------------------------------------------
    def from_exception(
        self, exc: BaseException, *, streaming: bool, connect_timeout: float = 10.0
    ) -> ProviderError:
        """Map an ``httpx``/``OSError`` failure; ``streaming`` once the body has started."""
        if isinstance(exc, ProviderError):
            return exc
        text = str(exc).lower()
        if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
            return self.timeout("connect", connect_timeout)
        if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
            return self.bad_url()
        if isinstance(exc, httpx.ProxyError):
            return self.make(
                f"Could not reach {self.url} through the configured proxy ({clean(str(exc))}); "
                "check the HTTPS_PROXY and NO_PROXY environment variables.",
                "connect",
            )
        if isinstance(exc, httpx.ConnectError):
            if any(marker in text for marker in _DNS):
                return self.unknown_host()
            if "ssl" in text or "certificate" in text:
                return self.tls_failed()
            return self.cannot_connect()
        if isinstance(exc, httpx.WriteTimeout):
            return self.make(
                f"Sending the request to {self.url} timed out; the network may be too slow "
                "for a conversation this long.",
                "timeout",
            )
        if isinstance(exc, httpx.TimeoutException):
            return self.make(f"{self.server} stopped answering in time.", "timeout")
        if isinstance(exc, httpx.DecodingError):
            return self.make(
                f"{self.server} sent a reply that could not be decoded ({clean(str(exc))}).",
                "protocol",
            )
        if isinstance(exc, httpx.TooManyRedirects):
            return self.make(f"{self.server} redirected the request too many times.", "protocol")
        if isinstance(exc, httpx.TransportError | OSError):
            return self.cut() if streaming else self.hung_up()
        reason = clean(str(exc)) or type(exc).__name__
        return self.make(_sentence(f"The request to {self.url} failed ({reason})"), "connect")
