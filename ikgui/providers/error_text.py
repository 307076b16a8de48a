"""The words of provider errors: quoting a server's message, URLs, waits, no secrets.

Small pure helpers shared by :mod:`ikgui.providers.errors` and the stream
interpreters: :func:`redact` removes API keys, :func:`display_url` shows a URL without
credentials, :func:`server_message` finds the server's own error text in a body,
:func:`retry_after` reads how long to wait.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: The longest server message quoted in a sentence.
MAX_QUOTE = 300
_KEY_SHAPES = re.compile(r"\b(sk-[A-Za-z0-9_\-]{12,}|Bearer\s+[A-Za-z0-9._\-]{12,})")


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


def duration(value: float) -> str:
    """A wait or a limit in words: ``0.5 seconds``, ``1 second``, ``3 minutes``."""
    if value < 1:
        return f"{value:.2g} seconds"
    whole = round(value)
    if whole >= 120:
        return f"{round(whole / 60)} minutes"
    return "1 second" if whole == 1 else f"{whole} seconds"


def sentence(text: str) -> str:
    """``text`` ending with a full stop unless it already ends a sentence."""
    return text if text.endswith((".", "!", "?", "…")) else text + "."
