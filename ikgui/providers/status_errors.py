"""Provider errors for an HTTP status other than 2xx: auth, not found, rate limit, 5xx…

:func:`status_error` is what :meth:`ErrorContext.http_status` returns: one plain
sentence per status family (SPEC §8), quoting the server's own message when it sent one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ikgui.domain.errors import ProviderError
from ikgui.providers.error_text import display_url, duration, retry_after, sentence, server_message

if TYPE_CHECKING:
    from ikgui.providers.errors import ErrorContext

_OVERFLOW = re.compile(
    r"context.{0,40}(exceed|too long|length|limit|overflow|window|size)|"
    r"(exceed|too long|maximum).{0,40}context|prompt is too long|too many tokens",
    re.IGNORECASE,
)
_SERVER_TROUBLE = {
    502: "could not reach its model backend",
    503: "is unavailable or overloaded",
    504: "timed out waiting for its model backend",
    529: "is overloaded",
}


def status_error(
    ctx: ErrorContext, status: int, body: bytes, headers: Mapping[str, str], endpoint: str = ""
) -> ProviderError:
    """The error for an answer with HTTP ``status`` (its ``body`` and ``headers``)."""
    said = server_message(body)
    code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
    if status in (401, 403):
        return _auth(ctx, status, said)
    if status in (404, 405):
        return _not_found(ctx, status, said, endpoint)
    if status == 408:
        return ctx.make(
            f"{ctx.server} gave up waiting for the request ({code}).", "timeout", status
        )
    if status == 429:
        return _rate_limited(ctx, status, code, retry_after(headers))
    if status >= 500:
        what = _SERVER_TROUBLE.get(status, "had an internal error")
        return ctx.make(
            f"{ctx.server} {what} ({code}); try again in a moment.",
            "overloaded",
            status,
            retry_after(headers),
        )
    if 300 <= status < 400:
        where = headers.get("location", "another address")
        return ctx.make(
            f"{ctx.server} redirected the request to {where} (HTTP {status}); put the "
            f"right address in the URL of {ctx.who} in Settings.",
            "protocol",
            status,
        )
    if status >= 400:
        return _refused(ctx, status, code, said)
    return ctx.make(
        f"{ctx.server} answered with HTTP {status} instead of a reply.", "protocol", status
    )


def _rate_limited(ctx: ErrorContext, status: int, code: str, after: float | None) -> ProviderError:
    wait = f"wait {duration(after)}" if after is not None and after >= 1 else "wait a moment"
    return ctx.make(
        f"{ctx.server} is limiting how many requests it accepts ({code}); {wait} before retrying.",
        "rate_limit",
        status,
        after,
    )


def _refused(ctx: ErrorContext, status: int, code: str, said: str | None) -> ProviderError:
    if said and _OVERFLOW.search(said):
        return ctx.make(
            f"The conversation is too long for the model at {ctx.url} ({code}); "
            "shorten it with /rewind or /clear, or choose a model with a larger context.",
            "bad_request",
            status,
        )
    return ctx.make(sentence(f"{ctx.server} refused the request ({code})"), "bad_request", status)


def _auth(ctx: ErrorContext, status: int, said: str | None) -> ProviderError:
    code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
    where = f"`ikgui keys set {ctx.provider_name}` or in Settings"
    if not ctx.secrets:
        text = f"{ctx.server} needs an API key ({code}) and none is set: set it with {where}."
    elif status == 401:
        text = f"{ctx.server} rejected the API key of {ctx.who} ({code}): set it with {where}."
    else:
        text = (
            f"{ctx.server} refused access with the API key of {ctx.who} ({code}): "
            f"check the key's permissions, or set another with {where}."
        )
    return ctx.make(text, "auth", status)


def _not_found(ctx: ErrorContext, status: int, said: str | None, endpoint: str) -> ProviderError:
    code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
    model = ctx.model
    lowered = (said or "").lower()
    if model and said and ("model" in lowered or model.lower() in lowered):
        hint = f"pull it with `ollama pull {model}` or " if ctx.kind == "ollama" else ""
        return ctx.make(
            f'{ctx.server} does not have the model "{model}" ({code}); '
            f"{hint}choose another with /model.",
            "not_found",
            status,
        )
    place = display_url(endpoint) if endpoint else ctx.url
    text = f"Nothing answers at {place} ({code}); check the URL of {ctx.who} in Settings"
    if model:
        text += f' and that the model "{model}" exists'
    return ctx.make(text + ".", "not_found", status)
