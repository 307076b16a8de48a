"""The one place provider failures become sentences: categories, wording, no secrets."""

from __future__ import annotations

import email.utils
import time

import httpx
import pytest

from ikgui.domain.errors import ProviderError
from ikgui.domain.settings import ProviderSettings
from ikgui.domain.streaming import CATEGORIES
from ikgui.providers import AnthropicProvider, OllamaProvider, OpenAIProvider, make_provider
from ikgui.providers.errors import (
    ErrorContext,
    display_url,
    redact,
    retry_after,
    server_message,
)

KEY = "sk-live-abcdefghijklmnopqrstuvwxyz"
CTX = ErrorContext("https://user:pw@api.example.com/v1?token=x", "work", "openai", "gpt-x", (KEY,))


def test_display_url_drops_credentials_query_and_slash() -> None:
    assert display_url("https://user:pw@api.example.com:8443/v1/?key=1#f") == (
        "https://api.example.com:8443/v1"
    )
    assert CTX.url == "https://api.example.com/v1"
    assert display_url("http://[::1]:11434/") == "http://[::1]:11434"


def test_redact_known_secrets_and_key_shapes() -> None:
    assert redact(f"bad key {KEY}!", (KEY,)) == "bad key ***!"
    assert redact("Authorization: Bearer abcdefghijklmnop1234") == "Authorization: ***"
    assert redact("key sk-proj-1234567890abcdefXYZ rejected") == "key *** rejected"
    assert redact("short sk-1 stays") == "short sk-1 stays"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"error":{"message":"ctx too big","type":"x"}}', "ctx too big"),
        (
            b'{"error":"model \\"x\\" not found, try pulling it first"}',
            'model "x" not found, try pulling it first',
        ),
        (b'{"detail":"Not Found"}', "Not Found"),
        (b'{"detail":[{"loc":["body"],"msg":"field required"}]}', "field required"),
        (
            b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            "Overloaded",
        ),
        (b'{"type":"error","error":{"type":"overloaded_error"}}', "overloaded_error"),
        (b'{"message":"plain"}', "plain"),
        (b"Service Unavailable", "Service Unavailable"),
        (b"<html><body>502</body></html>", None),
        (b"", None),
        (b'{"ok":true}', None),
        (b'{"error":{"message":"a\\n\\n  b"}}', "a b"),
    ],
)
def test_server_message(body: bytes, expected: str | None) -> None:
    assert server_message(body) == expected


def test_server_message_is_clipped() -> None:
    said = server_message(b'{"error":"' + b"x" * 1000 + b'"}')
    assert said is not None and len(said) == 300 and said.endswith("…")


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "20"}) == 20.0
    assert retry_after({"retry-after-ms": "1500"}) == 1.5
    assert retry_after({}) is None
    assert retry_after({"retry-after": "soon"}) is None
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    value = retry_after({"retry-after": when})
    assert value is not None and 25 < value <= 31


def _http(status: int, body: bytes = b"", **headers: str) -> ProviderError:
    return CTX.http_status(status, body, headers, "https://api.example.com/v1/chat/completions")


@pytest.mark.parametrize(
    ("status", "category"),
    [
        (301, "protocol"),
        (400, "bad_request"),
        (401, "auth"),
        (403, "auth"),
        (404, "not_found"),
        (405, "not_found"),
        (408, "timeout"),
        (409, "bad_request"),
        (413, "bad_request"),
        (422, "bad_request"),
        (429, "rate_limit"),
        (500, "server_error"),
        (502, "server_error"),
        (503, "overloaded"),
        (504, "server_error"),
        (529, "overloaded"),
        (204, "protocol"),
    ],
)
def test_every_status_has_a_category_and_one_plain_line(status: int, category: str) -> None:
    error = _http(status, b'{"error":{"message":"said ' + KEY.encode() + b'"}}')
    assert error.category == category and error.category in CATEGORIES
    assert error.status == status
    assert "\n" not in error.message and KEY not in error.message
    assert error.message[0].isupper() and error.message.endswith(".")
    assert "pw@" not in error.message and "token" not in error.message


def test_status_wording() -> None:
    assert _http(401).message == (
        "The server at https://api.example.com/v1 rejected the API key of the provider "
        '"work" (HTTP 401). Set it with `ikgui keys set work`.'
    )
    assert "Wait 2 minutes before retrying" in _http(429, **{"retry-after": "120"}).message
    assert _http(429, **{"retry-after": "7"}).retry_after == 7.0
    assert "redirected the request to https://x/v1" in _http(301, location="https://x/v1").message
    assert _http(404, b'{"error":{"message":"model gpt-x does not exist"}}').message == (
        'The server at https://api.example.com/v1 does not have the model "gpt-x" '
        "(HTTP 404: model gpt-x does not exist). Choose another with /model."
    )
    ollama = ErrorContext("http://localhost:11434", "ollama", "ollama", "llama3")
    missing = ollama.http_status(404, b'{"error":"model \\"llama3\\" not found"}', {})
    assert "Pull it with `ollama pull llama3`" in missing.message
    overflow = _http(400, b'{"error":{"message":"prompt is too long: 204658 tokens > 200000"}}')
    assert overflow.message.startswith("The conversation is too long for the model")


@pytest.mark.parametrize(
    ("exc", "streaming", "category", "says"),
    [
        (
            httpx.ConnectTimeout("t"),
            False,
            "timeout",
            "Connecting to https://api.example.com/v1 timed out after 10 seconds",
        ),
        (httpx.PoolTimeout("t"), False, "timeout", "timed out"),
        (
            httpx.ConnectError("[Errno -2] Name or service not known"),
            False,
            "connect",
            "Could not find the server api.example.com",
        ),
        (
            httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED]"),
            False,
            "connect",
            "secure connection",
        ),
        (
            httpx.ConnectError("[Errno 111] Connection refused"),
            False,
            "connect",
            "Could not connect to https://api.example.com/v1",
        ),
        (httpx.UnsupportedProtocol("ftp"), False, "config", "not a valid http(s) address"),
        (
            httpx.RemoteProtocolError("Server disconnected"),
            False,
            "connect",
            "closed the connection without answering",
        ),
        (
            httpx.RemoteProtocolError("incomplete chunked read"),
            True,
            "cut",
            "stopped before it was complete",
        ),
        (httpx.ReadError("reset"), True, "cut", "stopped before it was complete"),
        (httpx.WriteTimeout("w"), False, "timeout", "Sending the request"),
        (httpx.ReadTimeout("r"), True, "timeout", "stopped answering in time"),
        (httpx.DecodingError("bad gzip"), True, "protocol", "could not be decoded"),
        (httpx.TooManyRedirects("loop"), False, "protocol", "redirected"),
        (httpx.ProxyError("407 Proxy Authentication Required"), False, "connect", "proxy"),
        (OSError("boom"), False, "connect", "closed the connection"),
        (RuntimeError("weird"), False, "connect", "failed (weird)"),
    ],
)
def test_exceptions(exc: BaseException, streaming: bool, category: str, says: str) -> None:
    error = CTX.from_exception(exc, streaming=streaming)
    assert error.category == category
    assert says in error.message
    assert "\n" not in error.message


def test_timeout_wording() -> None:
    assert CTX.timeout("first_byte", 120).message == (
        "The server at https://api.example.com/v1 did not start replying within 2 minutes; "
        "the model may still be loading or the server is busy, so try again."
    )
    assert "nothing arrived for 60 seconds" in CTX.timeout("idle", 60).message
    assert "after 0.25 seconds" in CTX.timeout("connect", 0.25).message


def test_ollama_connect_names_ollama_serve() -> None:
    ctx = ErrorContext("http://localhost:11434", "ollama", "ollama")
    assert ctx.cannot_connect().message == (
        "Could not connect to Ollama at http://localhost:11434. "
        "Is Ollama running? Start it with `ollama serve`."
    )


def test_make_provider_kinds_and_config_errors() -> None:
    made = [
        make_provider(ProviderSettings("a", kind, "http://h:1"), "k")
        for kind in ("openai", "ollama", "anthropic")
    ]
    assert [type(p) for p in made] == [OpenAIProvider, OllamaProvider, AnthropicProvider]
    assert made[0].name == "a" and made[0].kind == "openai" and made[0].base_url == "http://h:1"
    secret = make_provider(ProviderSettings("a", "openai", "http://h:1"), KEY)
    assert KEY not in repr(secret) and KEY not in str(vars(secret).get("name"))
    with pytest.raises(ProviderError) as caught:
        make_provider(ProviderSettings("x", "gemini", "http://h"))
    assert caught.value.category == "config" and '"gemini"' in caught.value.message
    with pytest.raises(ProviderError) as caught:
        make_provider(ProviderSettings("x", "openai", "localhost:8080"))
    assert caught.value.category == "config"
