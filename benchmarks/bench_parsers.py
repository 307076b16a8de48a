"""Throughput of the stream parsers and first-delta latency of the clients.

    .venv/bin/python benchmarks/bench_parsers.py [--mb 50] [--rounds 200]

1. For each wire format, builds a ~50 MB body in the recorded style (the deltas of a
   recording in ``tests/data/wire`` repeated; synthetic lines of the same shape when
   the folder is absent), feeds it through decoder + interpreter in 64 KiB chunks and
   prints MB/s and microseconds per text delta.
2. Against the local wire server (in its own process) on loopback, measures the time
   from the server writing the first body byte to: the first ``TextDelta`` a provider
   yields; the first chunk of a bare ``httpx`` streamed read of the same reply; and
   that bare read plus the least parsing that finds the text (split the line,
   ``json.loads`` it, make a ``TextDelta``). Prints medians, 90th percentiles and the
   ratios provider/bare and provider/bare+json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from ikgui.domain.settings import ProviderSettings  # noqa: E402
from ikgui.domain.streaming import ChatRequest, TextDelta  # noqa: E402
from ikgui.providers import make_provider  # noqa: E402
from ikgui.providers.parser import StreamParser  # noqa: E402
from tests.support.wire_server import CHAT_PATHS, WIRE_DIR, Reply, WireServer  # noqa: E402

CHUNK = 64 * 1024
SOURCES = {
    "openai": "litellm-openai-stream-usage.txt",
    "anthropic": "litellm-anthropic-via-mock-stream.txt",
    "ollama": "lightrag-ollama-chat-stream.ndjson",
}
SYNTHETIC_DELTA = {
    "openai": b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n',
    "anthropic": b"event: content_block_delta\n"
    b'data: {"type": "content_block_delta", "index": 0, '
    b'"delta": {"type": "text_delta", "text": "Hel"}}\n\n',
    "ollama": b'{"model": "m", "created_at": "2024-01-15T00:00:00Z", "message": '
    b'{"role": "assistant", "content": "Hel", "images": null}, "done": false}\n',
}
SYNTHETIC_END = {
    "openai": b"data: [DONE]\n\n",
    "anthropic": b'event: message_stop\ndata: {"type": "message_stop"}\n\n',
    "ollama": b'{"model": "m", "message": {"role": "assistant", "content": ""}, "done": true}\n',
}


def pieces(kind: str) -> tuple[bytes, list[bytes], bytes]:
    """(head, text-delta messages, tail) of a recording, or synthetic ones."""
    path = WIRE_DIR / SOURCES[kind]
    if not path.is_file():
        return b"", [SYNTHETIC_DELTA[kind]], SYNTHETIC_END[kind]
    raw = path.read_bytes()
    sep = b"\n" if kind == "ollama" else b"\n\n"
    messages = [m + sep for m in raw.split(sep) if m.strip()]
    marker = (
        b'"done": false'
        if kind == "ollama"
        else b"text_delta"
        if kind == "anthropic"
        else b"content"
    )
    deltas = [m for m in messages if marker in m and b"[DONE]" not in m]
    first = messages.index(deltas[0])
    last = messages.index(deltas[-1])
    return b"".join(messages[:first]), deltas, b"".join(messages[last + 1 :])


def big_body(kind: str, megabytes: float) -> tuple[bytes, int]:
    head, deltas, tail = pieces(kind)
    block = b"".join(deltas)
    repeat = max(1, int(megabytes * 1_000_000 / len(block)))
    return head + block * repeat + tail, len(deltas) * repeat


def throughput(kind: str, megabytes: float) -> None:
    body, deltas = big_body(kind, megabytes)
    view = memoryview(body)
    parser = StreamParser(kind)
    started = time.perf_counter()
    texts = 0
    for start in range(0, len(body), CHUNK):
        for item in parser.feed(bytes(view[start : start + CHUNK])):
            texts += isinstance(item, TextDelta)
    for _ in parser.finish():
        pass
    elapsed = time.perf_counter() - started
    assert texts == deltas, (texts, deltas)
    print(
        f"  {kind:<9} {len(body) / 1e6:6.1f} MB  {len(body) / 1e6 / elapsed:7.1f} MB/s  "
        f"{elapsed / deltas * 1e6:6.2f} µs/delta  ({deltas:,} deltas in {elapsed:.2f} s)"
    )


def reply_for(kind: str, gap: float) -> Reply:
    head, deltas, tail = pieces(kind)
    sep = b"\n" if kind == "ollama" else b"\n\n"
    # The first body piece holds a text delta, so both clients can act on it.
    rest = [m for m in (b"".join(deltas[1:8]) + tail).split(sep) if m]
    content_type = "application/x-ndjson" if kind == "ollama" else "text/event-stream"
    return Reply(
        chunks=(head + deltas[0], *[m + sep for m in rest]),
        pause=0.0005,
        first_byte_delay=gap,
        headers=(("content-type", content_type),),
    )


def serve(gap: float, conn: Connection) -> None:
    """The wire server in its own process, so its Python threads neither hold the
    client's GIL nor evict its caches; ``perf_counter`` is system-wide on Linux."""
    with WireServer() as server:
        for kind in CHAT_PATHS:
            server.route(CHAT_PATHS[kind], reply_for(kind, gap))
        conn.send(server.url)
        while conn.recv() == "times":
            conn.send(list(server.first_byte_times))
            server.first_byte_times.clear()


async def latency(kind: str, rounds: int, url: str, conn: Connection) -> None:
    request = ChatRequest("m", [{"role": "user", "content": "hi"}])
    provider = make_provider(ProviderSettings(kind, kind, url))
    bare = httpx.AsyncClient(timeout=None)
    endpoint = provider.chat_url()
    got: list[tuple[str, float]] = []  # (who, when the first text/chunk arrived)

    async def provider_round() -> None:
        stream = provider.stream(request)
        async for item in stream:
            if isinstance(item, TextDelta):
                got.append(("ours", time.perf_counter()))
                break
        await stream.aclose()

    async def bare_round() -> None:
        async with bare.stream("POST", endpoint, json={"model": "m"}) as response:
            async for _chunk in response.aiter_bytes():
                got.append(("bare", time.perf_counter()))
                break

    async def floor_round() -> None:
        async with bare.stream("POST", endpoint, json={"model": "m"}) as response:
            async for chunk in response.aiter_bytes():
                if minimal_text(kind, chunk) is not None:
                    got.append(("floor", time.perf_counter()))
                    break

    rounds_order = [provider_round, bare_round, floor_round]
    for index in range(rounds + 10):  # rotate who goes first, against order effects
        for offset in range(3):
            await rounds_order[(index + offset) % 3]()
    await provider.aclose()
    await bare.aclose()
    conn.send("times")
    sent: list[float] = conn.recv()
    delays = [(who, at - first) for (who, at), first in zip(got, sent, strict=True)][30:]
    median = {w: statistics.median([d for who, d in delays if who == w]) for w in WHO}
    p90 = {w: statistics.quantiles([d for who, d in delays if who == w], n=10)[-1] for w in WHO}
    cells = [f"{median[w] * 1e6:4.0f} µs (p90 {p90[w] * 1e6:4.0f})" for w in WHO]
    print(
        f"  {kind:<9} provider {cells[0]}   bare httpx {cells[1]}   bare+json {cells[2]}   "
        f"ratio {median['ours'] / median['bare']:.2f} / {median['ours'] / median['floor']:.2f}"
    )


WHO = ("ours", "bare", "floor")


def minimal_text(kind: str, chunk: bytes) -> TextDelta | None:
    """The least a client must do to show the first text: find the line, parse it."""
    for raw in chunk.split(b"\n"):
        line = raw if kind == "ollama" else raw.removeprefix(b"data: ")
        if not line.strip() or (line is raw and kind != "ollama"):
            continue
        value = json.loads(line)
        if kind == "openai":
            text = value["choices"][0]["delta"].get("content")
        elif kind == "anthropic":
            text = value.get("delta", {}).get("text")
        else:
            text = value["message"]["content"]
        if text:
            return TextDelta(text)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mb", type=float, default=50.0, help="body size per format")
    parser.add_argument("--rounds", type=int, default=200, help="latency samples per format")
    args = parser.parse_args()
    source = WIRE_DIR if WIRE_DIR.is_dir() else "synthetic lines (tests/data/wire is absent)"
    print(f"Parser throughput, {CHUNK // 1024} KiB chunks, deltas from {source}:")
    for kind in ("openai", "anthropic", "ollama"):
        throughput(kind, args.mb)
    for gap in (0.0, 0.02):
        print(
            f"Server's first body byte -> client on loopback, {gap * 1000:g} ms after the "
            f"headers, median of {args.rounds}:"
        )
        conn, child_conn = multiprocessing.Pipe()
        child = multiprocessing.get_context("spawn").Process(target=serve, args=(gap, child_conn))
        child.start()
        url = conn.recv()
        for kind in ("openai", "anthropic", "ollama"):
            asyncio.run(latency(kind, args.rounds, url, conn))
        conn.send("stop")
        child.join(10)


if __name__ == "__main__":
    main()
