"""Endless streams end (issue 8, item 12): keep-alives do not count as content for the
idle timer, and every reply has an overall time and size limit; what arrived is kept."""

from __future__ import annotations

import asyncio
import json

import pytest

from ikgui.domain.streaming import TextDelta
from tests.providers.test_clients import collect, provider
from tests.support.wire_server import Reply, WireServer

pytestmark = pytest.mark.asyncio

SSE = (("content-type", "text/event-stream"),)


def delta(text: str) -> bytes:
    return (
        f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': text}}]})}\n\n".encode()
    )


async def _run(server: WireServer, reply: Reply, **limits: float) -> tuple[list[str], str, str]:
    """The texts and the error of a stream that would never end by itself. The server
    keeps sending for 30 s: a limit that did not hold ends the test at 15 s."""
    server.route("/v1/chat/completions", reply)
    async with asyncio.timeout(15):  # the old code never ended these
        items, error = await collect(provider("openai", server.url + "/v1", **limits))
    assert error is not None
    texts = [i.text for i in items if isinstance(i, TextDelta)]
    return texts, error.category, error.message


async def test_keep_alives_after_text_do_not_reset_the_idle_timer(wire_server: WireServer) -> None:
    reply = Reply(body=delta("Hello") + delta(" there"), headers=SSE, fault="endless", pause=0.05)
    texts, category, message = await _run(wire_server, reply, idle_timeout=0.6)
    assert texts == ["Hello", " there"]
    assert category == "timeout" and "stalled" in message


async def test_only_keep_alives_never_start_a_reply(wire_server: WireServer) -> None:
    reply = Reply(headers=SSE, fault="endless", pause=0.05)
    texts, category, message = await _run(wire_server, reply, first_byte_timeout=0.6)
    assert texts == [] and category == "timeout" and "did not start replying" in message


async def test_deltas_forever_stop_at_the_time_limit(wire_server: WireServer) -> None:
    reply = Reply(headers=SSE, fault="endless", repeat=delta("la "), pause=0.02)
    texts, category, message = await _run(wire_server, reply, reply_seconds=1.0)
    assert len(texts) > 5 and set(texts) == {"la "}
    assert category == "limit" and "reply_minutes" in message and "kept" in message


async def test_deltas_forever_stop_at_the_size_limit(wire_server: WireServer) -> None:
    reply = Reply(headers=SSE, fault="endless", repeat=delta("x" * 1000), pause=0.001)
    texts, category, message = await _run(wire_server, reply, reply_bytes=50_000)
    assert 30 < len(texts) <= 50
    assert category == "limit" and "0.05 MB" in message and "reply_mb" in message


async def test_a_body_of_garbage_is_not_a_model_reply(wire_server: WireServer) -> None:
    garbage = bytes(range(256)).replace(b"\n", b"").replace(b"\r", b"") * 4
    wire_server.route("/v1/chat/completions", Reply(body=garbage + b"\nmore junk\n", headers=SSE))
    items, error = await collect(provider("openai", wire_server.url + "/v1"))
    assert items == [] and error is not None
    assert error.category == "protocol" and "not a model reply" in error.message
    assert "connection closed" not in error.message
    # keep-alives and then the end are still "closed without a reply"
    wire_server.route("/v1/chat/completions", Reply(body=b": ping\n\n: ping\n\n", headers=SSE))
    items, error = await collect(provider("openai", wire_server.url + "/v1"))
    assert error is not None and error.category == "cut"


async def test_thinking_keeps_a_reply_alive_but_pings_do_not(wire_server: WireServer) -> None:
    def event(name: str, data: dict[str, object]) -> bytes:
        return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

    start = event("message_start", {"type": "message_start", "message": {"model": "c"}})
    thinking = event(
        "content_block_delta",
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": "hmm"}},
    )  # fmt: skip
    text = event(
        "content_block_delta",
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "text_delta", "text": "Done"}},
    )  # fmt: skip
    stop = event("message_stop", {"type": "message_stop"})
    body = (start, *([thinking] * 8), text, stop)
    wire_server.route("/v1/messages", Reply(chunks=body, headers=SSE, pause=0.2))
    slow_start = {"idle_timeout": 0.6, "first_byte_timeout": 1.0}  # thinking takes 1.6 s
    items, error = await collect(provider("anthropic", wire_server.url, **slow_start))
    assert error is None and [i.text for i in items if isinstance(i, TextDelta)] == ["Done"]

    ping = event("ping", {"type": "ping"})
    wire_server.route(
        "/v1/messages", Reply(body=start, headers=SSE, fault="endless", repeat=ping, pause=0.05)
    )
    items, error = await collect(provider("anthropic", wire_server.url, first_byte_timeout=0.6))
    assert error is not None and error.category == "timeout"
