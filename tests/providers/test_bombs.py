"""Decompression bombs and oversized bodies (issue 21 items 3 and 4).

Every body is limited by its decoded size as it streams: a reply at its limit (its text
at ``reply_mb``, its whole body at a generous multiple for the framing), a model list and
an error body at small caps. A bomb (``Content-Encoding: gzip, gzip`` around 4 GiB of
zeros, made on the fly by the test server) stops with one clear error, keeping what
arrived, and the client's memory stays small: each client runs in a child process whose
address space is capped (``RLIMIT_AS``), and the child reports its peak RSS.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from ikgui.domain.streaming import TextDelta
from tests.providers.test_clients import collect, provider
from tests.providers.test_endless import SSE, delta
from tests.support.bombs import GIB, encoding, nested_gzip
from tests.support.wire_server import Reply, WireServer

#: The address space of a child client: far below what a bomb unfolds to.
ADDRESS_SPACE = 2 * GIB
#: The most resident memory a child client may reach (peak RSS).
PEAK_RSS = 300 * 1024 * 1024

CHILD = """
import asyncio, json, resource, sys
from ikgui.domain.errors import ProviderError
from ikgui.domain.streaming import TextDelta
from tests.providers.test_clients import collect, provider

kind, url, what, reply_bytes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

async def main():
    prov = provider(kind, url, reply_bytes=reply_bytes)
    if what == "models":
        try:
            names = await prov.list_models()
            error = None
        except ProviderError as exc:
            names, error = [], exc
        finally:
            await prov.aclose()
        texts = names
    else:
        items, error = await collect(prov)
        texts = [i.text for i in items if isinstance(i, TextDelta)]
    return {
        "texts": texts,
        "category": error.category if error else None,
        "message": error.message if error else None,
    }

result = asyncio.run(main())
result["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(result))
"""


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _bounded(kind: str, url: str, what: str = "stream", reply_bytes: int = 1_000_000) -> Any:
    """Run the client in a child process with a capped address space."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, url, what, str(reply_bytes)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_cap,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    assert result["rss"] < PEAK_RSS, result["rss"]
    return result


def test_a_nested_gzip_reply_stops_with_one_error_keeping_what_arrived(
    wire_server: WireServer,
) -> None:
    body = nested_gzip(delta("Hello") + delta(" there"))
    wire_server.route("/v1/chat/completions", Reply(headers=SSE + encoding(2), source=body))
    result = _bounded("openai", wire_server.url + "/v1")
    assert result["texts"] == ["Hello", " there"]
    assert result["category"] == "limit", result
    assert "(uncompressed)" in result["message"] and "stopped" in result["message"]


def test_a_bomb_of_valid_deltas_stops_at_reply_mb(wire_server: WireServer) -> None:
    line = delta("la " * 300)

    def deltas() -> Iterator[bytes]:
        z = zlib.compressobj(1, zlib.DEFLATED, 31)
        block = line * 1000
        for _ in range(4000):  # ~4 GB of deltas, sent compressed
            out = z.compress(block)
            if out:
                yield out
        yield z.flush()

    wire_server.route("/v1/chat/completions", Reply(headers=SSE + encoding(1), source=deltas))
    result = _bounded("openai", wire_server.url + "/v1", reply_bytes=1_000_000)
    text = "".join(result["texts"])
    assert 900_000 < len(text) <= 1_000_000
    assert result["category"] == "limit" and "reply_mb" in result["message"]


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_model_list_bomb_is_refused_in_one_error(kind: str, wire_server: WireServer) -> None:
    path = "/v1/models" if kind == "openai" else "/api/tags"
    body = nested_gzip(b'{"data": [' + b" " * 100)
    reply = Reply(headers=(("content-type", "application/json"), *encoding(2)), source=body)
    wire_server.route(path, reply, method="GET")
    url = wire_server.url + ("/v1" if kind == "openai" else "")
    result = _bounded(kind, url, "models")
    assert result["texts"] == [] and result["category"] == "protocol", result
    assert "model list" in result["message"] and "(uncompressed)" in result["message"]


def test_an_error_body_bomb_still_gives_the_status(wire_server: WireServer) -> None:
    body = nested_gzip(b'{"error": {"message": "quota exceeded"}}' + b" " * 10)
    headers = (("content-type", "application/json"), *encoding(2))
    wire_server.route("/v1/chat/completions", Reply(status=429, headers=headers, source=body))
    result = _bounded("openai", wire_server.url + "/v1")
    assert result["texts"] == [] and result["category"] == "rate_limit", result


@pytest.mark.asyncio
async def test_reply_mb_counts_the_text_not_the_framing(wire_server: WireServer) -> None:
    """Issue 21 item 4: 90 KB of text in one-character deltas is ~6 MB of SSE; a
    0.1 MB ``reply_mb`` lets it through whole."""
    letters = [chr(ord("a") + i % 26) for i in range(90_000)]
    body = b"".join(delta(c) for c in letters) + b"data: [DONE]\n\n"
    wire_server.route("/v1/chat/completions", Reply(body=body, headers=SSE, chunk_size=65536))
    items, error = await collect(provider("openai", wire_server.url + "/v1", reply_bytes=100_000))
    assert error is None, error
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == "".join(letters)
