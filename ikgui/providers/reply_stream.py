"""One streamed reply: :class:`ReplyStream`, the iterator ``Provider.stream`` returns.

It opens the request, enforces the first-byte, idle and whole-reply limits
(see :mod:`ikgui.providers.http`), sniffs a body that is a web page or a whole JSON
object instead of a stream, and hands the parser's items on one by one.

:class:`ReplyStream` is a plain async iterator, not an async
generator: leaving it early or cancelling the task that awaits it never produces
"async generator ignored GeneratorExit", and any exception (including
``CancelledError``) closes the HTTP response before it propagates. ``aclose()``
closes it explicitly (``contextlib.aclosing`` works); ``HTTPProvider.aclose()`` also
closes any stream a consumer abandoned, while the loop can still run httpx's cleanup
(on a loop without async-generator hooks, such as qasync's, the GC could not).
"""

from __future__ import annotations

import asyncio
import json
import zlib
from collections import deque
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import httpx

from ikgui.domain.errors import ProviderError
from ikgui.domain.streaming import ChatRequest, StreamItem, TextDelta, ToolCallDelta
from ikgui.providers.attachments import carries_files, sent_types
from ikgui.providers.body import BodyDecoder, UnknownEncoding
from ikgui.providers.parser import StreamParser
from ikgui.providers.status_errors import file_type_refusal

if TYPE_CHECKING:
    from ikgui.providers.http import HTTPProvider

#: The most of an error body or a non-streaming JSON reply that is read (decoded).
ERROR_BODY_LIMIT = 64 * 1024
JSON_BODY_LIMIT = 16 * 1024 * 1024
#: The most decoded body bytes per byte of the reply's text allowed (``reply_mb`` counts
#: the text): SSE and JSON framing around one-character deltas is ~200 bytes each.
FRAMING = 256
#: The most decoded bytes without one complete message (an SSE event, an NDJSON line):
#: what the parser buffers; a body of zeros or one endless line stops there.
MESSAGE_LIMIT = 16_000_000


class ReplyStream:
    """The ``AsyncIterator[StreamItem]`` returned by ``Provider.stream``."""

    def __init__(self, provider: HTTPProvider, request: ChatRequest) -> None:
        self._provider = provider
        self._request = request
        self._errors = provider.errors(request.model)
        self._parser = StreamParser(provider.kind, self._errors)
        self._pending: deque[StreamItem] = deque()
        self._parsed: Iterator[StreamItem] | None = None  # items of the current chunk
        self._finishing = False  # the body ended; its last items are being handed on
        self._failure: ProviderError | None = None
        self._response: httpx.Response | None = None
        self._chunks: Any = None  # the response's byte iterator
        self._state = "new"  # new -> open -> done
        self._deadline = 0.0  # first-byte deadline (loop time)
        self._end_by = 0.0  # the overall limit of this reply (loop time)
        self._content_at: float | None = None  # when content last came (loop time)
        self._progress = 0  # the parser's progress count when last seen
        self._received = 0  # decoded body bytes so far
        self._text = 0  # bytes of the reply's text handed on so far (``reply_mb``)
        self._decoder: BodyDecoder | None = None
        self._decoded: Iterator[bytes] | None = None  # decoded pieces of the raw chunk
        self._messages = 0  # the parser's message count when last seen
        self._since_message = 0  # decoded bytes since a message last completed
        self._head = bytearray()  # the body's first bytes, to quote when it is garbage
        self._started = False  # a body byte arrived
        self._sniffed = False
        self._broken: ProviderError | None = None  # the connection broke mid-body

    def __aiter__(self) -> ReplyStream:
        return self

    async def __anext__(self) -> StreamItem:
        try:
            while True:
                if self._pending:
                    return self._counted(self._pending.popleft())
                item = self._next_parsed()
                if item is not None:
                    # (``_step`` marks the model active before the next read)
                    return self._counted(item)
                if self._failure is not None:
                    raise self._failure
                if self._state == "done":
                    raise StopAsyncIteration
                await self._step()
        except StopAsyncIteration:
            await self.aclose()
            raise
        except BaseException:
            await self.aclose()
            raise

    def _counted(self, item: StreamItem) -> StreamItem:
        """``item``, its text counted against ``reply_mb`` (the reply's text, not the
        body's framing); the item that would pass the limit is not handed on."""
        if isinstance(item, TextDelta):
            self._text += len(item.text.encode("utf-8", "surrogatepass"))
        elif isinstance(item, ToolCallDelta) and isinstance(item.arguments, str):
            self._text += len(item.arguments)
        else:
            return item
        if self._text > self._provider.reply_bytes:
            raise self._errors.reply_limit(size=self._provider.reply_bytes)
        return item

    async def aclose(self) -> None:
        """Close the HTTP response (idempotent); later ``__anext__`` calls end."""
        self._state = "done"
        self._pending.clear()
        self._parsed = None
        self._failure = None
        self._provider.open_streams.discard(self)
        await self._close_response()

    # -- steps ---------------------------------------------------------------
    async def _step(self) -> None:
        """One step, taken once the items parsed so far have all been handed on."""
        if self._state == "new":
            await self._open()
            return
        if self._finishing or self._parser.finished:
            if self._finishing and self._broken is not None and not self._parser.finished:
                self._failure = self._failure or self._broken  # text came out first
            self._state = "done"  # the body ended, or its end marker came: stop reading
            await self._close_response()
            return
        if self._parser.progress != self._progress:
            # The last chunk held a message (a delta, thinking, usage), not a ping.
            self._progress = self._parser.progress
            self._content_at = asyncio.get_running_loop().time()
        chunk = await self._read()
        if chunk is None:
            self._collect(self._ended(self._parser.finish(broken=self._broken is not None)))
            self._finishing = True
        elif not self._sniffed and self._sniff(chunk):
            await self._whole_json(chunk)
        else:
            self._collect(self._parser.feed(chunk))

    def _ended(self, items: Iterator[StreamItem]) -> Iterator[StreamItem]:
        """The parser's last items; a body in which nothing at all was a message (only
        garbage) is "not a model reply" rather than a reply cut short."""
        try:
            yield from items
        except ProviderError as exc:
            if exc.category != "cut" or self._parser.messages or self._broken is not None:
                raise
            head = bytes(self._head)
            lines = [ln for ln in head.splitlines() if ln.strip() and not ln.startswith(b":")]
            if not lines:
                raise  # only keep-alives, then the end: it closed without a reply
            content_type = self._response.headers.get("content-type", "") if self._response else ""
            raise self._errors.not_a_reply(content_type, head) from None

    def _collect(self, items: Any) -> None:
        """Take the parser's items lazily: the first delta of a chunk is handed on
        before the rest of the chunk is parsed."""
        self._parsed = iter(items)

    def _next_parsed(self) -> StreamItem | None:
        """The next parsed item; a failure is kept until the items before it are out."""
        if self._parsed is None:
            return None
        try:
            item: StreamItem = next(self._parsed)
        except StopIteration:
            self._parsed = None
            return None
        except ProviderError as exc:
            self._parsed = None
            self._failure = exc
            self._state = "done"
            return None
        return item

    async def _open(self) -> None:
        provider, errors = self._provider, self._errors
        client = provider.client()
        headers = {
            **provider.headers(),
            "content-type": "application/json",
            "accept-encoding": "identity",
        }
        content: bytes | AsyncIterator[bytes]
        if carries_files(self._request.messages):
            # Megabytes of files: the JSON built in a worker thread, their base64
            # encoded piece by piece as it is sent (never held whole).
            encoded = await asyncio.to_thread(provider.encoded, self._request)
            content = encoded.stream()
            headers["content-length"] = str(encoded.length)
        else:
            content = json.dumps(provider.body(self._request), ensure_ascii=False).encode()
        url = provider.chat_url()
        request = client.build_request("POST", url, content=content, headers=headers)
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + provider.first_byte_timeout
        self._end_by = loop.time() + provider.reply_seconds
        try:
            async with asyncio.timeout_at(self._deadline):
                self._response = await client.send(request, stream=True)
        except TimeoutError:
            raise errors.timeout("first_byte", provider.first_byte_timeout) from None
        except (httpx.HTTPError, OSError) as exc:
            raise errors.from_exception(
                exc, streaming=False, connect_timeout=provider.connect_timeout
            ) from exc
        response = self._response
        # Decoded here, by size (httpx would decode a whole chunk of a gzip bomb at once).
        encoding = response.headers.get("content-encoding", "")
        try:
            self._decoder = BodyDecoder(encoding)
        except UnknownEncoding:
            await self._close_response()
            raise errors.undecodable(encoding) from None
        self._chunks = response.aiter_raw()
        self._state = "open"
        if not 200 <= response.status_code < 300:
            body = await self._read_upto(ERROR_BODY_LIMIT, strict=False)
            mimes = sent_types(self._request.messages)
            if mimes and (refused := file_type_refusal(errors, response.status_code, body, mimes)):
                raise refused
            raise errors.http_status(
                response.status_code, body, response.headers, provider.chat_url()
            )
        content_type = response.headers.get("content-type", "").lower()
        if "html" in content_type:
            raise errors.not_a_stream(content_type)
        if "json" in content_type and "ndjson" not in content_type:
            self._sniffed = True
            await self._whole_json(b"")

    def _sniff(self, chunk: bytes) -> bool:
        """Look at the first body bytes: ``True`` for a whole JSON object where an SSE
        stream was expected; raises for an HTML page."""
        start = chunk.lstrip()
        if not start:
            return False
        self._sniffed = True
        if start[:1] == b"<":
            content_type = self._response.headers.get("content-type", "") if self._response else ""
            raise self._errors.not_a_stream(content_type, start)
        return start[:1] == b"{" and self._provider.kind != "ollama"

    async def _whole_json(self, first: bytes) -> None:
        body = first + await self._read_upto(JSON_BODY_LIMIT)
        if len(body) >= JSON_BODY_LIMIT and await self._read() is not None:
            raise self._errors.too_large(JSON_BODY_LIMIT)
        self._state = "done"
        await self._close_response()
        if not body.strip():
            raise self._errors.cut(received=False)
        try:
            items = self._parser.complete(body)
        except ProviderError as exc:
            if self._broken is not None and exc.category == "protocol":
                raise self._broken from None
            raise
        self._pending.extend(items)

    async def _read_upto(self, limit: int, strict: bool = True) -> bytes:
        """The body up to ``limit`` bytes; unless ``strict``, what arrived before a
        failure (an error body is only decoration for its status)."""
        buffer = bytearray()
        try:
            while len(buffer) < limit:
                chunk = await self._read()
                if chunk is None:
                    break
                buffer += chunk[: limit - len(buffer)]
        except ProviderError:
            if strict:
                raise
        return bytes(buffer)

    async def _read(self) -> bytes | None:
        """The next decoded piece of the body (``None`` at the end) within the
        first-byte/idle limit (counted from the last content, not the last byte) and the
        reply's limits: its time, and its decoded size (counted as it is decoded)."""
        while True:
            if self._decoded is not None:
                try:
                    piece = next(self._decoded, None)
                except zlib.error:
                    self._decoded = None
                    encoding = (
                        self._response.headers.get("content-encoding", "") if self._response else ""
                    )
                    raise self._errors.undecodable(encoding) from None
                if piece is not None:
                    return self._measured(piece)
                self._decoded = None
            chunk = await self._read_raw()
            if chunk is None:
                return None
            assert self._decoder is not None
            self._decoded = self._decoder.feed(chunk)

    def _measured(self, piece: bytes) -> bytes:
        """``piece`` (decoded), counted against the body's limits."""
        provider = self._provider
        self._started = True
        self._parser.interpreter.received = True
        self._received += len(piece)
        if len(self._head) < 256:
            self._head += piece[: 256 - len(self._head)]
        if self._received > provider.reply_bytes * FRAMING:
            raise self._errors.too_large(provider.reply_bytes * FRAMING)
        if self._parser.messages != self._messages:
            self._messages, self._since_message = self._parser.messages, 0
        self._since_message += len(piece)
        if self._since_message > MESSAGE_LIMIT:
            raise self._errors.too_large(MESSAGE_LIMIT, "one message")
        return piece

    async def _read_raw(self) -> bytes | None:
        """The next raw (still encoded) chunk, ``None`` at the end, within the limits."""
        provider = self._provider
        while True:
            if self._content_at is not None:
                phase, limit = "idle", provider.idle_timeout
                deadline = self._content_at + limit
            else:
                phase, limit = "first_byte", provider.first_byte_timeout
                deadline = self._deadline
            try:
                async with asyncio.timeout_at(min(deadline, self._end_by)):
                    chunk: bytes = await anext(self._chunks)
            except StopAsyncIteration:
                return None
            except TimeoutError:
                if self._end_by < deadline:
                    raise self._errors.reply_limit(seconds=provider.reply_seconds) from None
                raise self._errors.timeout(phase, limit) from None
            except (httpx.HTTPError, OSError) as exc:
                # The status line came, so a failure now is a reply cut short.
                self._broken = self._errors.from_exception(exc, streaming=True)
                if not self._started:
                    raise self._errors.cut(received=False) from exc
                return None
            if chunk:
                return chunk

    async def _close_response(self) -> None:
        response, self._response = self._response, None
        chunks, self._chunks = self._chunks, None
        self._decoded = None
        if response is not None:
            await response.aclose()
        if chunks is not None:
            await chunks.aclose()  # finalize httpx's generator now, not in the GC
