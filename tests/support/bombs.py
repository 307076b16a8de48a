"""Decompression bombs made on the fly (issue 21 item 3): a body whose decoded size is
gigabytes, produced piece by piece as it is sent, so neither the test server nor the
test ever holds it; only a client that decodes without limit does."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

GIB = 1 << 30
BLOCK = 1 << 20
#: Blocks between flushes: each flush sends what unfolds to this many MiB at once.
FLUSH_EVERY = 256


def nested_gzip(
    prefix: bytes = b"", zeros: int = 4 * GIB, layers: int = 2
) -> Callable[[], Iterator[bytes]]:
    """A body for ``Content-Encoding: gzip, gzip`` (``layers`` times gzip): ``prefix``
    (flushed, so it decodes on its own first), then ``zeros`` zero bytes. Each layer is
    a single gzip member, as a real bomb is."""

    def make() -> Iterator[bytes]:
        layers_ = [zlib.compressobj(1, zlib.DEFLATED, 31) for _ in range(layers)]

        def through(data: bytes, mode: int | None = None) -> bytes:
            for layer in layers_:
                data = layer.compress(data)
                if mode is not None:
                    data += layer.flush(mode)
                elif not data:
                    return b""
            return data

        if prefix:
            yield through(prefix, zlib.Z_SYNC_FLUSH)
        block = bytes(BLOCK)
        for n in range(1, zeros // BLOCK + 1):
            # A flush every 256 MiB: deflate would otherwise hold its output back until
            # gigabytes had gone in, and the client would wait rather than unfold.
            out = through(block, zlib.Z_SYNC_FLUSH if n % FLUSH_EVERY == 0 else None)
            if out:
                yield out
        yield through(b"", zlib.Z_FINISH)

    return make


def encoding(layers: int = 2) -> tuple[tuple[str, str], ...]:
    return (("content-encoding", ", ".join(["gzip"] * layers)),)
