"""A response body decoded as it streams, in bounded pieces (issue 21 item 3).

httpx decodes a ``Content-Encoding`` whole chunk by whole chunk: one 64 KB chunk of a
gzip bomb (``Content-Encoding: gzip, gzip`` around gigabytes of zeros) decodes to
gigabytes in one call, before anything can count it. :class:`BodyDecoder` takes the
raw bytes instead and hands out the decoded body in pieces of at most
:data:`PIECE` bytes, pulled one at a time, so the reader counts the decoded size as it
grows and stops at its limit having decoded barely more than that. Nested encodings
are undone in order, each layer bounded the same way.

Pure: no I/O.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

#: The most decoded bytes handed out at once.
PIECE = 64 * 1024

#: ``Content-Encoding`` names this module undoes (``x-gzip`` is gzip's old name).
KNOWN = ("identity", "gzip", "x-gzip", "deflate")


class UnknownEncoding(ValueError):
    """The body is in an encoding ikgui cannot decode (``args[0]``: its name)."""


class _Inflate:
    """One gzip or deflate layer: compressed bytes taken in, decoded bytes pulled out
    at most ``size`` at a time (zlib keeps the rest of the input as its tail)."""

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding != "deflate"
        self._raw_tried = False
        self._z = self._new()
        self._input = b""
        self._next_member = False  # the input after a finished member is being tried
        self._ended = False  # what follows the last member is not gzip: ignored

    def _new(self) -> zlib._Decompress:
        if self._gzip:
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        return zlib.decompressobj(-zlib.MAX_WBITS if self._raw_tried else zlib.MAX_WBITS)

    @property
    def hungry(self) -> bool:
        """Whether it needs more input before it can give anything."""
        return not self._input

    def take(self, data: bytes) -> None:
        self._input = self._input + data if self._input else data

    def give(self, size: int) -> bytes:
        data, self._input = self._input, b""
        if self._ended:
            return b""
        try:
            out = self._z.decompress(data, size)
        except zlib.error:
            if self._next_member:
                # Bytes after the last member that do not start another (padding, a
                # newline): ignored, as httpx and browsers do.
                self._ended = True
                return b""
            if self._gzip or self._raw_tried or self._z.eof:
                raise
            # "deflate" is meant to be zlib-wrapped; some servers send it raw.
            self._raw_tried = True
            self._z = self._new()
            out = self._z.decompress(data, size)
        self._input = self._z.unconsumed_tail
        if out:
            self._next_member = False
        if self._z.eof and self._z.unused_data:
            # Another gzip member may follow (concatenated members are one body).
            rest = self._z.unused_data
            self._z = self._new()
            self._input = rest + self._input
            self._next_member = True
        return out


class BodyDecoder:
    """Undoes a ``Content-Encoding`` (``"gzip, gzip"`` included) piece by piece."""

    def __init__(self, content_encoding: str) -> None:
        names = [n.strip().lower() for n in content_encoding.split(",") if n.strip()]
        for name in names:
            if name not in KNOWN:
                raise UnknownEncoding(name)
        # Listed in the order applied: undone last to first.
        self._layers = [_Inflate(n) for n in reversed(names) if n != "identity"]

    def feed(self, raw: bytes) -> Iterator[bytes]:
        """The decoded pieces ``raw`` completes, lazily: stop pulling and nothing more
        is decoded."""
        if not self._layers:
            for start in range(0, len(raw), PIECE):
                yield raw[start : start + PIECE]
            return
        self._layers[0].take(raw)
        while True:
            piece = self._pull(len(self._layers) - 1, PIECE)
            if not piece:
                return
            yield piece

    def _pull(self, index: int, size: int) -> bytes:
        """Up to ``size`` bytes out of layer ``index``, refilling it from the layer
        before it as needed; ``b""`` when the raw input so far is used up."""
        layer = self._layers[index]
        while True:
            out = layer.give(size)  # (zlib may hold output back even with no input left)
            if out:
                return out
            if not layer.hungry:
                continue  # (only a header or a member's end was read: go on)
            more = self._pull(index - 1, PIECE) if index > 0 else b""
            if not more:
                return b""
            layer.take(more)
