"""Incremental Server-Sent Events decoder (the WHATWG ``text/event-stream`` rules).

Feed it byte chunks split anywhere — inside a multi-byte UTF-8 character, between
``\\r`` and ``\\n`` — and it returns the same ``SSEMessage`` sequence as for the whole
body. Lines end with ``\\r\\n``, ``\\n`` or ``\\r``; ``event:`` names a message,
``data:`` lines join with ``\\n``, lines starting with ``:`` are comments, a blank line
dispatches. :meth:`SSEDecoder.finish` returns what an unterminated tail held, so the
caller can tell a clean end from a cut one. Pure: no I/O.
"""

from __future__ import annotations

from typing import NamedTuple

from ikgui.providers.lines import take_complete

#: The event name of a message that had no ``event:`` field.
DEFAULT_EVENT = "message"


class SSEMessage(NamedTuple):
    event: str
    data: str


class SSEDecoder:
    """Bytes in, complete ``(event, data)`` messages out."""

    __slots__ = ("_buffer", "_data", "_event", "_skip_lf", "_started")

    def __init__(self) -> None:
        self._buffer = bytearray()  # bytes after the last line terminator
        self._skip_lf = False  # the previous chunk ended with "\r"
        self._started = False  # the optional BOM has been dealt with
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SSEMessage]:
        """Decode ``chunk``; returns the messages it completed (often none)."""
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        cut = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        block = take_complete(self._buffer, chunk, cut)
        if block is None:
            return []
        if cut == len(chunk) - 1 and chunk[cut] == 13:  # ends with "\r": maybe "\r\n" next
            self._skip_lf = True
        # The block ends at an ASCII terminator, so it holds whole UTF-8 characters.
        text = block.decode("utf-8", "replace")
        if not self._started:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return self._lines(text.split("\n")[:-1])

    def _lines(self, lines: list[str]) -> list[SSEMessage]:
        messages: list[SSEMessage] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    messages.append(SSEMessage(self._event or DEFAULT_EVENT, "\n".join(data)))
                    data.clear()
                self._event = ""
                continue
            if line[0] == ":":
                continue
            field, _, value = line.partition(":")
            if value[:1] == " ":
                value = value[1:]
            if field == "data":
                data.append(value)
            elif field == "event":
                self._event = value
            # "id" and "retry" do not matter to a one-shot reply stream.
        return messages

    def finish(self) -> SSEMessage | None:
        """End of input: the unterminated tail message, or ``None`` if it ended cleanly.

        A tail is what arrived after the last blank line: an ``event:``/``data:`` block
        without its blank line, possibly ending in a partial line. Per the SSE rules it
        is not a message; the caller decides whether to trust it (e.g. a final
        ``data: [DONE]`` without the blank line) or to report a cut stream.
        """
        partial = bytes(self._buffer)
        self._buffer.clear()
        self._skip_lf = False
        if partial:
            text = partial.decode("utf-8", "replace")
            if not self._started and text.startswith("\ufeff"):
                text = text[1:]
            self._lines([text])
        self._started = True
        event, data = self._event, self._data
        self._event, self._data = "", []
        if not data and not event:
            return None
        return SSEMessage(event or DEFAULT_EVENT, "\n".join(data))
