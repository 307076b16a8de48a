"""Each provider end to end against the real local wire server: streaming, what is sent,
every injected failure, timeouts, cancellation and model lists."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import sys
from contextlib import aclosing
from typing import Any

import pytest

from ikgui.domain.errors import ProviderError
from ikgui.domain.settings import ProviderSettings
from ikgui.domain.streaming import ChatRequest, StreamEnd, StreamItem, TextDelta
from ikgui.providers import HTTPProvider, make_provider
from tests.providers.test_recordings import EXPECTED, HELLO
from tests.support.waiting import wait_until
from tests.support.wire_server import CHAT_PATHS, Reply, WireServer, recording_names

pytestmark = pytest.mark.asyncio

KINDS = ("openai", "ollama", "anthropic")
KEY = "sk-test-0123456789abcdef-SECRET"
STREAM = {
    "openai": "litellm-openai-stream-usage.txt",
    "anthropic": "litellm-anthropic-via-mock-stream.txt",
    "ollama": "lightrag-ollama-chat-stream.ndjson",
}
END = {
    "openai": StreamEnd(8, 16, "stop", "mock-gpt"),
    "anthropic": StreamEnd(8, 16, "end_turn", "claude-via-mock"),
    "ollama": StreamEnd(1, 16, "stop", "lightrag:latest"),
}
REQUEST = ChatRequest("tiny", [{"role": "user", "content": "hi"}])


def provider(
    kind: str, url: str, key: str | None = None, name: str | None = None, **timeouts: float
) -> HTTPProvider:
    limits = {"connect_timeout": 2.0, "first_byte_timeout": 3.0, "idle_timeout": 3.0, **timeouts}
    return make_provider(ProviderSettings(name or kind, kind, url), key, **limits)


async def collect(
    prov: HTTPProvider, request: ChatRequest = REQUEST
) -> tuple[list[StreamItem], ProviderError | None]:
    items: list[StreamItem] = []
    try:
        async with aclosing(prov.stream(request)) as stream:
            async for item in stream:
                items.append(item)
    except ProviderError as exc:
        return items, exc
    finally:
        await prov.aclose()
    return items, None


def text(items: list[StreamItem]) -> str:
    return "".join(i.text for i in items if isinstance(i, TextDelta))


def stream_reply(kind: str, **options: Any) -> Reply:
    return Reply.recording(STREAM[kind], **options)


# -- streaming ---------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
async def test_streams_text_and_usage_in_small_pieces(wire_server: WireServer, kind: str) -> None:
    wire_server.route(CHAT_PATHS[kind], stream_reply(kind, chunk_size=17, pause=0.001))
    items, error = await collect(provider(kind, wire_server.url))
    assert error is None
    assert text(items) == HELLO
    assert items[-1] == END[kind]
    assert len([i for i in items if isinstance(i, TextDelta)]) == 23
    assert [(r.method, r.path) for r in wire_server.requests] == [("POST", CHAT_PATHS[kind])]


@pytest.mark.parametrize("name", recording_names())
async def test_every_recording_through_the_client(wire_server: WireServer, name: str) -> None:
    rec = wire_server.replay(name, chunk_size=64)
    items, error = await collect(provider(rec.kind, wire_server.url, KEY))
    expect = EXPECTED[name]
    if expect.error is None:
        assert error is None
        assert text(items) == expect.text
        assert items[-1] == expect.end
    else:
        assert error is not None and error.category == expect.error
        assert expect.says in error.message
        assert wire_server.url in error.message
        assert text(items).startswith(expect.text or "")
        assert (error.status or 200) == expect.status


async def test_provider_is_reusable_after_aclose(wire_server: WireServer) -> None:
    wire_server.route(CHAT_PATHS["openai"], stream_reply("openai"))
    prov = provider("openai", wire_server.url)
    for _ in range(3):
        items, error = await collect(prov)
        assert error is None and text(items) == HELLO
    assert len(wire_server.requests) == 3


# -- what is sent --------------------------------------------------------------------
CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "18°C, cloudy"},
    {"role": "assistant", "content": "It is 18°C and cloudy."},
    {"role": "system", "content": '[user edited prompt to: "a cat"]'},
    {"role": "user", "content": "Thanks. Draw it."},
    {"role": "system", "content": '[current prompt: "a cat"]'},
]


@pytest.mark.parametrize("base", ["", "/v1", "/v1/"])
async def test_openai_request(wire_server: WireServer, base: str) -> None:
    wire_server.route("/v1/chat/completions", Reply(status=500))
    await collect(provider("openai", wire_server.url + base, KEY), ChatRequest("m", CONVERSATION))
    sent = wire_server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.headers["content-type"] == "application/json"
    assert sent.json() == {
        "model": "m",
        "messages": CONVERSATION,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def test_no_key_no_auth_header(wire_server: WireServer) -> None:
    await collect(provider("openai", wire_server.url))
    await collect(provider("anthropic", wire_server.url))
    assert all(
        "authorization" not in r.headers and "x-api-key" not in r.headers
        for r in wire_server.requests
    )


async def test_ollama_request(wire_server: WireServer) -> None:
    wire_server.route("/api/chat", Reply(status=500))
    request = ChatRequest("llama3", CONVERSATION, {"temperature": 0.2, "max_tokens": 64})
    await collect(provider("ollama", wire_server.url + "/", KEY), request)
    sent = wire_server.requests[0]
    assert sent.path == "/api/chat"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json() == {
        "model": "llama3",
        "stream": True,
        "options": {"temperature": 0.2, "num_predict": 64},
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
                ],
            },
            {"role": "tool", "content": "18°C, cloudy", "tool_name": "get_weather"},
            {"role": "assistant", "content": "It is 18°C and cloudy."},
            {"role": "system", "content": '[user edited prompt to: "a cat"]'},
            {"role": "user", "content": "Thanks. Draw it."},
            {"role": "system", "content": '[current prompt: "a cat"]'},
        ],
    }


async def test_anthropic_request(wire_server: WireServer) -> None:
    wire_server.route("/v1/messages", Reply(status=500))
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"a": 1}}}]
    request = ChatRequest("claude", CONVERSATION, {"tools": tools, "temperature": 0})
    await collect(provider("anthropic", wire_server.url, KEY), request)
    sent = wire_server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    body = sent.json()
    assert body == {
        "model": "claude",
        "max_tokens": 4096,
        "stream": True,
        "temperature": 0,
        "system": "You are terse.",
        "tools": [{"name": "get_weather", "input_schema": {"a": 1}}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "call_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "18°C, cloudy"}
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "It is 18°C and cloudy."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": '[user edited prompt to: "a cat"]'},
                    {"type": "text", "text": "Thanks. Draw it."},
                    {"type": "text", "text": '[current prompt: "a cat"]'},
                ],
            },
        ],
    }
    roles = [m["role"] for m in body["messages"]]
    assert all(a != b for a, b in itertools.pairwise(roles))


async def test_anthropic_notice_before_tool_result_and_no_system_prompt(
    wire_server: WireServer,
) -> None:
    wire_server.route("/v1/messages", Reply(status=500))
    messages = [m for m in CONVERSATION if m["content"] != "You are terse."]
    messages.insert(3, {"role": "system", "content": "[notice]"})  # between call and result
    await collect(provider("anthropic", wire_server.url + "/v1"), ChatRequest("c", messages))
    body = wire_server.requests[0].json()
    assert "system" not in body
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "18°C, cloudy"},
        {"type": "text", "text": "[notice]"},
    ]


# -- failures ----------------------------------------------------------------------
async def test_cannot_connect(closed_url: str) -> None:
    for kind in KINDS:
        items, error = await collect(provider(kind, closed_url))
        assert items == [] and error is not None
        assert error.category == "connect"
        assert closed_url in error.message
        assert ("ollama serve" in error.message) == (kind == "ollama")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("reply", "category", "says"),
    [
        (Reply.error(401, f"Incorrect API key provided: {KEY}"), "auth", "`ikgui keys set my-"),
        (Reply.error(403, "no access"), "auth", "permissions"),
        (Reply.error(404, "The model `nope` does not exist"), "not_found", '"nope"'),
        (Reply.error(429, "slow down", retry_after=20), "rate_limit", "Wait 20 seconds"),
        (Reply.error(500, "kaput"), "server_error", "had an internal error (500) at"),
        (Reply.error(502), "server_error", "HTTP 502"),
        (Reply.error(503), "overloaded", "HTTP 503"),
        (Reply.json({"type": "error", "error": {"message": "Overloaded"}}, 529), "overloaded", ""),
        (Reply.error(400, "max_tokens: must be positive"), "bad_request", "must be positive"),
        (Reply.html(), "protocol", "web page"),
        (Reply.html(404), "not_found", "Nothing answers at"),
        (Reply(body=b"\n<html><body>proxy login</body></html>"), "protocol", "web page"),
        (Reply(body=b""), "cut", "without sending a reply"),
    ],
)
async def test_http_failures(
    wire_server: WireServer, kind: str, reply: Reply, category: str, says: str
) -> None:
    wire_server.route(CHAT_PATHS[kind], reply)
    request = ChatRequest("nope", REQUEST.messages)
    items, error = await collect(provider(kind, wire_server.url, KEY, name=f"my-{kind}"), request)
    assert items == [] and error is not None
    assert error.category == category, error.message
    assert says in error.message
    assert KEY not in error.message and "SECRET" not in error.message
    assert "\n" not in error.message
    if category not in ("cut",):
        assert wire_server.url in error.message
    if category == "rate_limit":
        assert error.retry_after == 20.0 and error.status == 429


@pytest.mark.parametrize("kind", KINDS)
async def test_missing_key_says_where_to_set_it(wire_server: WireServer, kind: str) -> None:
    wire_server.route(CHAT_PATHS[kind], Reply.error(401, "missing key"))
    _, error = await collect(provider(kind, wire_server.url))
    assert error is not None and error.category == "auth"
    assert f"none is set. Set it with `ikgui keys set {kind}`." in error.message
    window = "none is set. Open Settings → Providers → API key to set it."
    assert error.window_text.endswith(window)


@pytest.mark.parametrize("kind", KINDS)
async def test_wrong_url_is_not_found(wire_server: WireServer, kind: str) -> None:
    _, error = await collect(provider(kind, wire_server.url + "/nothing"))
    assert error is not None and error.category == "not_found"
    assert f"Nothing answers at {wire_server.url}/nothing/" in error.message


@pytest.mark.parametrize("kind", KINDS)
async def test_malformed_line(wire_server: WireServer, kind: str) -> None:
    body = b"{oops}\n" if kind == "ollama" else b"data: {oops}\n\n"
    wire_server.route(CHAT_PATHS[kind], Reply(body=body))
    _, error = await collect(provider(kind, wire_server.url))
    assert error is not None and error.category == "protocol"
    assert "not valid JSON" in error.message


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fault", ["cut", "reset"])
async def test_connection_lost_mid_stream(wire_server: WireServer, kind: str, fault: str) -> None:
    wire_server.route(
        CHAT_PATHS[kind], stream_reply(kind, chunk_size=40, fault=fault, fault_after=700)
    )
    items, error = await collect(provider(kind, wire_server.url))
    assert error is not None and error.category == "cut"
    assert error.message == (
        f"The reply from {wire_server.url} stopped before it was complete "
        "(the connection closed mid-stream)."
    )
    assert text(items) and HELLO.startswith(text(items))
    assert not any(isinstance(i, StreamEnd) for i in items)


@pytest.mark.parametrize("kind", KINDS)
async def test_idle_timeout_keeps_the_text(wire_server: WireServer, kind: str) -> None:
    wire_server.route(
        CHAT_PATHS[kind], stream_reply(kind, chunk_size=40, fault="stall", fault_after=700)
    )
    items, error = await collect(provider(kind, wire_server.url, idle_timeout=0.3))
    # The server stalls for HANG_LIMIT (30 s), then closes: a "cut" then, were the idle
    # limit not kept (that a stream with shorter gaps is not cut is the test below's).
    assert error is not None and error.category == "timeout"
    assert "nothing arrived for 0.3 seconds" in error.message and wire_server.url in error.message
    assert text(items) and HELLO.startswith(text(items))


@pytest.mark.parametrize("where", ["hang", "first_byte_delay"])
async def test_first_byte_timeout(wire_server: WireServer, where: str) -> None:
    reply = Reply(fault="hang") if where == "hang" else Reply(first_byte_delay=10, body=b"x")
    wire_server.route(CHAT_PATHS["openai"], reply)
    _, error = await collect(provider("openai", wire_server.url, first_byte_timeout=0.3))
    # (without the limit: no error after 10 s, or a dropped connection after 30 s)
    assert error is not None and error.category == "timeout"
    assert "did not start replying within 0.3 seconds" in error.message


async def test_slow_steady_stream_is_not_idle(wire_server: WireServer) -> None:
    reply = stream_reply("openai", chunk_size=1200, pause=0.12)
    pieces = -(-len(reply.body) // 1200)
    assert (pieces - 1) * reply.pause > 0.3  # the whole reply takes longer than the limit
    wire_server.route(CHAT_PATHS["openai"], reply)
    items, error = await collect(provider("openai", wire_server.url, idle_timeout=0.3))
    assert error is None and text(items) == HELLO


# -- cancellation ----------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
async def test_cancel_mid_stream_closes_the_connection(wire_server: WireServer, kind: str) -> None:
    wire_server.route(CHAT_PATHS[kind], stream_reply(kind, chunk_size=20, pause=0.05))
    prov = provider(kind, wire_server.url)
    first = asyncio.Event()
    received: list[StreamItem] = []

    async def consume() -> None:
        async with aclosing(prov.stream(REQUEST)) as stream:
            async for item in stream:
                received.append(item)
                first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 2)
    count = len(received)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(received) == count  # nothing more was read after the cancel
    await prov.aclose()
    await wait_until(lambda: wire_server.client_gone, 2)  # noticed on its next write
    assert wire_server.client_gone == 1
    assert text(received) and not any(isinstance(i, StreamEnd) for i in received)


async def test_cancel_while_waiting_for_the_first_byte(wire_server: WireServer) -> None:
    wire_server.route(CHAT_PATHS["openai"], Reply(fault="hang"))
    prov = provider("openai", wire_server.url)

    async def consume() -> None:
        async for _ in prov.stream(REQUEST):
            pass

    task = asyncio.create_task(consume())
    await wait_until(lambda: wire_server.requests)  # asked; the server never answers
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await prov.aclose()


async def test_leaving_early_without_aclosing_leaks_nothing(wire_server: WireServer) -> None:
    wire_server.route(CHAT_PATHS["openai"], stream_reply("openai", chunk_size=20, pause=0.01))
    prov = provider("openai", wire_server.url)
    async for _ in prov.stream(REQUEST):
        break  # no aclose: the provider's aclose still releases the connection
    await prov.aclose()
    gc.collect()  # an unclosed socket would warn here (warnings are errors)


# -- model lists ---------------------------------------------------------------------------
@pytest.mark.parametrize(("kind", "path"), [("openai", "/v1/models"), ("ollama", "/api/tags")])
async def test_list_models(wire_server: WireServer, kind: str, path: str) -> None:
    wire_server.models = ["a", "b:latest"]
    prov = provider(kind, wire_server.url, KEY)
    try:
        assert await prov.list_models() == ["a", "b:latest"]
    finally:
        await prov.aclose()
    assert [(r.method, r.path.split("?")[0]) for r in wire_server.requests] == [("GET", path)]


async def test_anthropic_list_models_pages(wire_server: WireServer) -> None:
    def page(request: Any) -> Reply:
        if "after_id=m2" in request.path:
            return Reply.json({"data": [{"id": "m3"}], "has_more": False, "last_id": "m3"})
        return Reply.json({"data": [{"id": "m1"}, {"id": "m2"}], "has_more": True, "last_id": "m2"})

    wire_server.route("/v1/models", page, method="GET")
    prov = provider("anthropic", wire_server.url, KEY)
    try:
        assert await prov.list_models() == ["m1", "m2", "m3"]
    finally:
        await prov.aclose()
    assert wire_server.requests[0].headers["x-api-key"] == KEY


async def test_list_models_failures(wire_server: WireServer, closed_url: str) -> None:
    wire_server.route("/v1/models", Reply.error(401, "bad key"), method="GET")
    for url, category in [(wire_server.url, "auth"), (closed_url, "connect")]:
        prov = provider("openai", url, KEY)
        with pytest.raises(ProviderError) as caught:
            await prov.list_models()
        await prov.aclose()
        assert caught.value.category == category
        assert url in caught.value.message
    wire_server.route("/api/tags", Reply.html(), method="GET")
    prov = provider("ollama", wire_server.url)
    with pytest.raises(ProviderError) as caught:
        await prov.list_models()
    await prov.aclose()
    assert caught.value.category == "protocol"


@pytest.mark.parametrize("how", ["complete", "break", "cancel", "cut", "stall"])
async def test_no_generator_warnings_without_asyncgen_hooks(
    wire_server: WireServer, how: str
) -> None:
    """qasync's loop installs no async-generator hooks, so whatever httpx generator is
    left suspended is finalized by the GC; nothing may be left that needs the loop."""
    faults: dict[str, dict[str, Any]] = {
        "cut": {"fault": "cut", "fault_after": 700},
        "stall": {"fault": "stall", "fault_after": 700},
    }
    options = faults.get(how, {"pause": 0.02 if how in ("break", "cancel") else 0})
    wire_server.route(CHAT_PATHS["openai"], stream_reply("openai", chunk_size=20, **options))
    prov = provider("openai", wire_server.url, idle_timeout=0.3)

    streaming = asyncio.Event()

    async def consume() -> None:
        try:
            async for item in prov.stream(REQUEST):
                streaming.set()
                if how == "break" and isinstance(item, TextDelta):
                    break  # no aclosing: the provider's aclose must tidy up
        except ProviderError:
            pass

    gc.collect()
    unraisable: list[Any] = []
    saved_hooks, saved_unraisable = sys.get_asyncgen_hooks(), sys.unraisablehook
    sys.unraisablehook = unraisable.append
    sys.set_asyncgen_hooks(firstiter=None, finalizer=None)
    try:
        task = asyncio.create_task(consume())
        if how == "cancel":
            await asyncio.wait_for(streaming.wait(), 5)  # cancelled mid-stream
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await prov.aclose()
        gc.collect()
    finally:
        sys.set_asyncgen_hooks(*saved_hooks)
        sys.unraisablehook = saved_unraisable
    assert unraisable == []
