"""Splitting a byte stream at its last line end, shared by the SSE and NDJSON decoders."""

from __future__ import annotations


def take_complete(buffer: bytearray, chunk: bytes, cut: int) -> bytes | None:
    """The bytes up to and including ``chunk[cut]`` (a line end), prefixed by what
    ``buffer`` held; the rest of ``chunk`` is kept in ``buffer``. ``None`` (all of
    ``chunk`` kept) when ``cut`` is -1."""
    if cut < 0:
        buffer += chunk
        return None
    block = bytes(buffer) + chunk[: cut + 1] if buffer else chunk[: cut + 1]
    buffer[:] = chunk[cut + 1 :]
    return block
