"""Provider errors for an exception: httpx's transport failures and ``OSError``.

:func:`exception_error` is what :meth:`ErrorContext.from_exception` returns: which
connection step failed (name lookup, TLS, proxy, connect, timeout, a cut stream), said in
one sentence without the exception's own jargon.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from ikgui.domain.errors import ProviderError
from ikgui.providers.error_text import clean, sentence

if TYPE_CHECKING:
    from ikgui.providers.errors import ErrorContext

_DNS = ("name or service not known", "nodename nor servname", "getaddrinfo", "name resolution")


def exception_error(
    ctx: ErrorContext, exc: BaseException, *, streaming: bool, connect_timeout: float = 10.0
) -> ProviderError:
    """Map an ``httpx``/``OSError`` failure; ``streaming`` once the body has started."""
    if isinstance(exc, ProviderError):
        return exc
    text = str(exc).lower()
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return ctx.timeout("connect", connect_timeout)
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ctx.bad_url()
    if isinstance(exc, httpx.ProxyError):
        return ctx.make(
            f"Could not reach {ctx.url} through the configured proxy ({clean(str(exc))}); "
            "check the HTTPS_PROXY and NO_PROXY environment variables.",
            "connect",
        )
    if isinstance(exc, httpx.ConnectError):
        if any(marker in text for marker in _DNS):
            return ctx.unknown_host()
        if "ssl" in text or "certificate" in text:
            return ctx.tls_failed()
        return ctx.cannot_connect()
    if isinstance(exc, httpx.WriteTimeout):
        return ctx.make(
            f"Sending the request to {ctx.url} timed out; the network may be too slow "
            "for a conversation this long.",
            "timeout",
        )
    if isinstance(exc, httpx.TimeoutException):
        return ctx.make(f"{ctx.server} stopped answering in time.", "timeout")
    if isinstance(exc, httpx.DecodingError):
        return ctx.make(
            f"{ctx.server} sent a reply that could not be decoded ({clean(str(exc))}).",
            "protocol",
        )
    if isinstance(exc, httpx.TooManyRedirects):
        return ctx.make(f"{ctx.server} redirected the request too many times.", "protocol")
    if isinstance(exc, httpx.TransportError | OSError):
        return ctx.cut() if streaming else ctx.hung_up()
    reason = clean(str(exc)) or type(exc).__name__
    return ctx.make(sentence(f"The request to {ctx.url} failed ({reason})"), "connect")
