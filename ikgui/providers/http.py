"""The HTTP side shared by every provider: one ``httpx.AsyncClient``, timeouts, streaming.

Timeouts (SPEC §8): ``connect`` (default 10 s) for the TCP/TLS connection;
``first_byte`` (120 s) from sending the request until the first byte of the reply
*body's content* (a model loading or reading a long prompt is slow to start);
``idle`` (60 s) between pieces of content. Only content counts (a message other
than a ping: text, thinking, tool calls, usage): ``: keep-alive`` comments and
Anthropic's pings keep neither timer going, so a server that only sends keep-alives
is stopped. Each reply also has an overall limit
(``reply_seconds``, 30 minutes, and ``reply_bytes``, 20 MB of body): an endless stream
is cut there, keeping the text that arrived, with a ``limit`` error saying why.

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
import functools
import json
import ssl
from collections import deque
from collections.abc import Iterator
from typing import Any

import httpx

from ikgui.domain import settings
from ikgui.domain.errors import ProviderError
from ikgui.domain.streaming import ChatRequest, StreamItem, TextDelta
from ikgui.providers.errors import ErrorContext
from ikgui.providers.parser import StreamParser

CONNECT_TIMEOUT = 10.0
FIRST_BYTE_TIMEOUT = 120.0
IDLE_TIMEOUT = 60.0
#: The longest one reply may stream, and the most body bytes it may hold.
REPLY_SECONDS = settings.REPLY_SECONDS
REPLY_BYTES = settings.REPLY_BYTES
#: The most of an error body or a non-streaming JSON reply that is read.
ERROR_BODY_LIMIT = 64 * 1024
JSON_BODY_LIMIT = 16 * 1024 * 1024
USER_AGENT = "ikgui/0.1"


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client: building one loads the CA bundle (~20 ms),
    which a window must not pay at every send."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


class HTTPProvider:
    """Base of the three providers; subclasses say where to send what."""

    kind = ""

    def __init__(
        self,
        name: str,
        base_url: str,
        api_key: str | None = None,
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        first_byte_timeout: float = FIRST_BYTE_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
        reply_seconds: float = REPLY_SECONDS,
        reply_bytes: int = REPLY_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.strip().rstrip("/")
        self.api_key = api_key or None
        self.connect_timeout = connect_timeout
        self.first_byte_timeout = first_byte_timeout
        self.idle_timeout = idle_timeout
        self.reply_seconds = reply_seconds
        self.reply_bytes = reply_bytes
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        #: Streams not closed yet, held so an abandoned one is closed by ``aclose``
        #: instead of being finalized by the GC.
        self.open_streams: set[ReplyStream] = set()

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    # -- what subclasses provide ---------------------------------------------
    def chat_url(self) -> str:
        raise NotImplementedError

    def models_url(self) -> str:
        raise NotImplementedError

    #: What the chat endpoint streams back.
    accept = "text/event-stream"

    def headers(self) -> dict[str, str]:
        """The accept header and, with a key, the bearer token (Anthropic differs)."""
        headers = {"accept": self.accept}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        return headers

    def body(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def model_names(self, body: Any) -> tuple[list[str], dict[str, str] | None]:
        """Names in one page of the model list, and the query for the next page."""
        raise NotImplementedError

    # -- shared --------------------------------------------------------------
    def errors(self, model: str | None = None) -> ErrorContext:
        secrets = (self.api_key,) if self.api_key else ()
        return ErrorContext(self.base_url, self.name, self.kind, model, secrets)

    def client(self) -> httpx.AsyncClient:
        """The connection pool, created on first use (again after ``aclose``)."""
        if self._http is None:
            timeout = httpx.Timeout(
                connect=self.connect_timeout,
                read=None,  # first-byte and idle limits are enforced by ReplyStream
                write=self.first_byte_timeout,
                pool=self.connect_timeout,
            )
            self._http = httpx.AsyncClient(
                timeout=timeout,
                follow_redirects=False,
                transport=self._transport,
                headers={"user-agent": USER_AGENT},
                verify=tls_context(),
            )
        return self._http

    def stream(self, request: ChatRequest) -> ReplyStream:
        stream = ReplyStream(self, request)
        self.open_streams.add(stream)
        return stream

    async def list_models(self) -> list[str]:
        errors = self.errors()
        names: list[str] = []
        params: dict[str, str] | None = None
        for _page in range(20):
            try:
                async with asyncio.timeout(self.idle_timeout):
                    response = await self.client().get(
                        self.models_url(), headers=self.headers(), params=params
                    )
            except TimeoutError:
                raise errors.timeout("first_byte", self.idle_timeout) from None
            except (httpx.HTTPError, OSError) as exc:
                raise errors.from_exception(
                    exc, streaming=False, connect_timeout=self.connect_timeout
                ) from exc
            if not response.is_success:
                raise errors.http_status(
                    response.status_code, response.content, response.headers, self.models_url()
                )
            try:
                body = json.loads(response.content)
            except ValueError:
                raise errors.not_a_stream(
                    response.headers.get("content-type", ""), response.content[:64]
                ) from None
            page, params = self.model_names(body)
            names.extend(page)
            if not params:
                break
        return names

    async def aclose(self) -> None:
        """Close streams a consumer left open, then the connection pool."""
        for stream in list(self.open_streams):
            await stream.aclose()
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()


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
        self._received = 0  # body bytes so far
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
                    return self._pending.popleft()
                item = self._next_parsed()
                if item is not None:
                    if not isinstance(item, TextDelta) or item.text:
                        self._content_at = asyncio.get_running_loop().time()
                    return item
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
        content = json.dumps(provider.body(self._request), ensure_ascii=False).encode()
        headers = {
            **provider.headers(),
            "content-type": "application/json",
            "accept-encoding": "identity",
        }
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
        self._chunks = response.aiter_bytes()
        self._state = "open"
        if not 200 <= response.status_code < 300:
            body = await self._read_upto(ERROR_BODY_LIMIT, strict=False)
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
                buffer += chunk
        except ProviderError:
            if strict:
                raise
        return bytes(buffer)

    async def _read(self) -> bytes | None:
        """The next body chunk (``None`` at the end) within the first-byte/idle limit
        (counted from the last content, not the last byte) and the reply's limits."""
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
                self._started = True
                self._parser.interpreter.received = True
                self._received += len(chunk)
                if len(self._head) < 256:
                    self._head += chunk[: 256 - len(self._head)]
                if self._received > provider.reply_bytes:
                    raise self._errors.reply_limit(size=provider.reply_bytes)
                return chunk

    async def _close_response(self) -> None:
        response, self._response = self._response, None
        chunks, self._chunks = self._chunks, None
        if response is not None:
            await response.aclose()
        if chunks is not None:
            await chunks.aclose()  # finalize httpx's generator now, not in the GC
