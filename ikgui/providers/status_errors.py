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
#: A refusal that speaks of a file's type ("does not support image input", "image_url is
#: only supported by certain models", "This model does not support PDF input").
_FILE_TYPE = re.compile(
    r"image|vision|multimodal|mmproj|pdf|document|attachment|media|content.?type|file",
    re.IGNORECASE,
)
_REFUSING = re.compile(
    r"not (be )?supported|unsupported|does ?n[o']t (support|accept|handle|read)|"
    r"cannot|can't|unable|only|invalid|missing data|not (allowed|enabled|available|accepted)",
    re.IGNORECASE,
)
#: What the model is told a file is, by the words a refusal uses for it.
_PDF_WORDS = re.compile(r"pdf|document", re.IGNORECASE)
_IMAGE_WORDS = re.compile(r"image|vision|mmproj|multimodal", re.IGNORECASE)
#: The statuses that mean "overloaded"; any other 5xx is a server error.
_OVERLOADED = (503, 529)


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
        return _server_trouble(ctx, status, said, retry_after(headers))
    if 300 <= status < 400:
        where = headers.get("location", "another address")
        return ctx.make(
            f"{ctx.server} redirected the request to {where} (HTTP {status}).",
            "protocol",
            status,
            advice="check_url",
        )
    if status >= 400:
        return _refused(ctx, status, code, said)
    return ctx.make(
        f"{ctx.server} answered with HTTP {status} instead of a reply.", "protocol", status
    )


def file_type_refusal(
    ctx: ErrorContext, status: int, body: bytes, mimes: frozenset[str]
) -> ProviderError | None:
    """A request carrying files (of types ``mimes``) refused because the model cannot
    read one of their types: one plain error naming the model and the type (SPEC §13);
    ``None`` for any other refusal."""
    said = server_message(body)
    if not said or status in (401, 403, 404, 405, 408, 429) or not (400 <= status <= 501):
        return None
    if not (_FILE_TYPE.search(said) and _REFUSING.search(said)):
        return None
    if _PDF_WORDS.search(said) and not _IMAGE_WORDS.search(said):
        kind = "PDF documents"
    elif _IMAGE_WORDS.search(said) or any(m.startswith("image/") for m in mimes):
        kind = "images"
    else:
        kind = "PDF documents"
    model = ctx.model or "the model"
    return ctx.make(
        f'The model "{model}" at {ctx.url} cannot read {kind} (HTTP {status}: {said}).',
        "bad_request",
        status,
        advice="file_type",
        model=model,
        kind=kind,
    )


def _server_trouble(
    ctx: ErrorContext, status: int, said: str | None, after: float | None
) -> ProviderError:
    """5xx: "overloaded" only for 503 and 529; a 500 "had an internal error"."""
    trouble = _SERVER_TROUBLE.get(status)
    name = "Ollama" if ctx.kind == "ollama" else "The server"
    if trouble is None:  # 500 and the rest: the server failed, not the network
        quoted = f": {said}" if said else ""
        what = sentence(f"{name} had an internal error ({status}) at {ctx.url}{quoted}")
    else:
        what = sentence(f"{ctx.server} {trouble} (HTTP {status}{f': {said}' if said else ''})")
    category = "overloaded" if status in _OVERLOADED else "server_error"
    return ctx.make(what, category, status, after, advice="try_again")


def _rate_limited(ctx: ErrorContext, status: int, code: str, after: float | None) -> ProviderError:
    wait = duration(after) if after is not None and after >= 1 else "a moment"
    return ctx.make(
        f"{ctx.server} is limiting how many requests it accepts ({code}).",
        "rate_limit",
        status,
        after,
        advice="wait",
        wait=wait,
    )


def _refused(ctx: ErrorContext, status: int, code: str, said: str | None) -> ProviderError:
    if said and _OVERFLOW.search(said):
        return ctx.make(
            f"The conversation is too long for the model at {ctx.url} ({code}).",
            "bad_request",
            status,
            advice="shorten",
        )
    return ctx.make(sentence(f"{ctx.server} refused the request ({code})"), "bad_request", status)


def _auth(ctx: ErrorContext, status: int, said: str | None) -> ProviderError:
    code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
    if not ctx.secrets:
        what = f"{ctx.server} needs an API key ({code}) and none is set."
    elif status == 401:
        what = f"{ctx.server} rejected the API key of {ctx.who} ({code})."
    else:
        what = f"{ctx.server} refused access with the API key of {ctx.who} ({code})."
        return ctx.make(what, "auth", status, advice="key_permissions")
    return ctx.make(what, "auth", status, advice="set_key")


def _not_found(ctx: ErrorContext, status: int, said: str | None, endpoint: str) -> ProviderError:
    code = f"HTTP {status}: {said}" if said else f"HTTP {status}"
    model = ctx.model
    lowered = (said or "").lower()
    if model and said and ("model" in lowered or model.lower() in lowered):
        return ctx.make(
            f'{ctx.server} does not have the model "{model}" ({code}).',
            "not_found",
            status,
            advice="pull_model" if ctx.kind == "ollama" else "choose_model",
            model=model,
        )
    place = display_url(endpoint) if endpoint else ctx.url
    what = f"Nothing answers at {place} ({code})."
    if model:
        return ctx.make(what, "not_found", status, advice="check_url_model", model=model)
    return ctx.make(what, "not_found", status, advice="check_url")
