"""Incremental newline-delimited JSON line splitter (Ollama's ``application/x-ndjson``).

Feed it byte chunks split anywhere (inside a UTF-8 character, between ``\\r`` and
``\\n``); it returns complete, non-blank lines as text, identical however the input
was split. Lines end with ``\\n`` (a ``\\r`` before it is dropped). Parsing the JSON is
the interpreter's job, so a malformed line can be reported with its context.
:meth:`NDJSONDecoder.finish` returns an unterminated last line. Pure: no I/O.
"""

from __future__ import annotations

from ikgui.providers.lines import take_complete


class NDJSONDecoder:
    """Bytes in, complete text lines out."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[str]:
        """Decode ``chunk``; returns the non-blank lines it completed."""
        block = take_complete(self._buffer, chunk, chunk.rfind(b"\n"))
        if block is None:
            return []
        # The block ends at "\n", so it holds whole UTF-8 characters.
        text = block.decode("utf-8", "replace")
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        lines.pop()
        return [line for line in lines if line and not line.isspace()]

    def finish(self) -> str | None:
        """End of input: the last line if it had no ``\\n`` (``None`` when clean)."""
        tail = bytes(self._buffer).decode("utf-8", "replace").rstrip("\r")
        self._buffer.clear()
        return tail if tail.strip() else None
