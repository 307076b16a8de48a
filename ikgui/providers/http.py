"""The HTTP side shared by every provider: one ``httpx.AsyncClient``, timeouts, streaming.

Timeouts (SPEC §8): ``connect`` (default 10 s) for the TCP/TLS connection;
``first_byte`` (120 s) from sending the request until the first byte of the reply
*body's content* (a model loading or reading a long prompt is slow to start);
``idle`` (60 s) between pieces of content. Only content counts (a message other
than a ping: text, thinking, tool calls, usage): ``: keep-alive`` comments and
Anthropic's pings keep neither timer going, so a server that only sends keep-alives
is stopped. Each reply also has an overall limit
(``reply_seconds``, 30 minutes, and ``reply_bytes``, 20 MB of text): an endless stream
is cut there, keeping the text that arrived, with a ``limit`` error saying why. Every
body is limited by its decoded size as it streams (a compressed bomb never unfolds in
memory): a reply's at ``FRAMING`` times its text limit, a model list's at
``MODELS_BODY_LIMIT``, an error body's at ``ERROR_BODY_LIMIT``.

Each reply is read by :class:`~ikgui.providers.reply_stream.ReplyStream`
(re-exported here).
"""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
import zlib
from typing import Any

import httpx

from ikgui.domain import settings
from ikgui.domain.streaming import ChatRequest
from ikgui.providers.attachments import Blobs, Body
from ikgui.providers.body import BodyDecoder, UnknownEncoding
from ikgui.providers.errors import ErrorContext
from ikgui.providers.reply_stream import ERROR_BODY_LIMIT, JSON_BODY_LIMIT, ReplyStream

CONNECT_TIMEOUT = 10.0
FIRST_BYTE_TIMEOUT = 120.0
IDLE_TIMEOUT = 60.0
#: The longest one reply may stream, and the most text it may hold.
REPLY_SECONDS = settings.REPLY_SECONDS
REPLY_BYTES = settings.REPLY_BYTES
#: The most of a model list that is read, decoded (OpenRouter's ~350 models: ~1 MB).
MODELS_BODY_LIMIT = 8_000_000
USER_AGENT = "ikgui/0.1"


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client: building one loads the CA bundle (~20 ms),
    which a window must not pay at every send."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def warm_up() -> None:
    """Load now what the first request would load on the event loop: httpx imports
    httpcore (with h11) when it makes its first transport, anyio's asyncio backend comes
    with the first connection, and the TLS context reads the CA bundle. Together they
    held up a window's first reply for ~100 ms; run this in a thread after start-up."""
    import importlib

    for name in ("httpcore", "h11", "anyio._backends._asyncio"):
        importlib.import_module(name)
    tls_context()


class ClientPool:
    """The ``httpx.AsyncClient`` the providers of one factory share across sends.

    Building a client costs a few milliseconds on the event loop (httpx scans the
    environment for proxies and makes its transport) and a new client opens a new
    connection; a window builds a provider for every send, so they share one client per
    event loop and timeouts (a client belongs to the loop it was first used on). The
    pool closes them in :meth:`aclose`; a provider's own ``aclose`` leaves them open.
    """

    def __init__(self) -> None:
        self._clients: dict[tuple[float, float], tuple[object, httpx.AsyncClient]] = {}

    def client(self, provider: HTTPProvider) -> httpx.AsyncClient | None:
        """The shared client for ``provider``'s timeouts on the running loop (``None``
        outside a loop: the provider builds its own)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        key = (provider.connect_timeout, provider.first_byte_timeout)
        held = self._clients.get(key)
        if held is None or held[0] is not loop or held[1].is_closed:
            held = (loop, provider.new_client())
            self._clients[key] = held
        return held[1]

    async def aclose(self) -> None:
        """Close the clients of the running loop (others belong to a loop now gone)."""
        loop = asyncio.get_running_loop()
        clients, self._clients = self._clients, {}
        for owner, http in clients.values():
            if owner is loop:
                await http.aclose()


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
        pool: ClientPool | None = None,
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
        #: Where the client comes from when it is shared (``aclose`` leaves it open).
        self._pool = pool if transport is None else None
        self._pooled = False
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

    def body(self, request: ChatRequest, blobs: Blobs | None = None) -> dict[str, Any]:
        """The request's JSON body (``blobs``: where attached files' base64 goes)."""
        raise NotImplementedError

    def encoded(self, request: ChatRequest) -> Body:
        """The request's body as it is sent: attached files' base64 is encoded as it
        goes out, never held whole (called in a worker thread when the request
        carries files: the JSON around them can be megabytes of text files too)."""
        blobs = Blobs(deferred=True)
        return blobs.encode(self.body(request, blobs))

    def model_names(self, body: Any) -> tuple[list[str], dict[str, str] | None]:
        """Names in one page of the model list, and the query for the next page."""
        raise NotImplementedError

    # -- shared --------------------------------------------------------------
    def errors(self, model: str | None = None) -> ErrorContext:
        secrets = (self.api_key,) if self.api_key else ()
        return ErrorContext(self.base_url, self.name, self.kind, model, secrets)

    def client(self) -> httpx.AsyncClient:
        """The connection pool, created on first use (again after ``aclose``), or the
        one the provider's :class:`ClientPool` shares."""
        if self._http is None:
            shared = self._pool.client(self) if self._pool is not None else None
            self._pooled = shared is not None
            self._http = shared or self.new_client()
        return self._http

    def new_client(self) -> httpx.AsyncClient:
        timeout = httpx.Timeout(
            connect=self.connect_timeout,
            read=None,  # first-byte and idle limits are enforced by ReplyStream
            write=self.first_byte_timeout,
            pool=self.connect_timeout,
        )
        return httpx.AsyncClient(
            timeout=timeout,
            follow_redirects=False,
            transport=self._transport,
            headers={"user-agent": USER_AGENT},
            verify=tls_context(),
        )

    def stream(self, request: ChatRequest) -> ReplyStream:
        stream = ReplyStream(self, request)
        self.open_streams.add(stream)
        return stream

    async def list_models(self) -> list[str]:
        errors = self.errors()
        names: list[str] = []
        params: dict[str, str] | None = None
        # Only what BodyDecoder undoes (httpx would also offer br/zstd when installed).
        headers = {**self.headers(), "accept-encoding": "gzip, deflate"}
        for _page in range(20):
            try:
                async with (
                    asyncio.timeout(self.idle_timeout),
                    self.client().stream(
                        "GET", self.models_url(), headers=headers, params=params
                    ) as response,
                ):
                    ok = response.is_success
                    content = await _read_body(
                        response, MODELS_BODY_LIMIT if ok else ERROR_BODY_LIMIT, errors
                    )
            except TimeoutError:
                raise errors.timeout("first_byte", self.idle_timeout) from None
            except (httpx.HTTPError, OSError) as exc:
                raise errors.from_exception(
                    exc, streaming=False, connect_timeout=self.connect_timeout
                ) from exc
            if not ok:
                raise errors.http_status(
                    response.status_code, content or b"", response.headers, self.models_url()
                )
            if content is None:
                raise errors.too_large(MODELS_BODY_LIMIT, "its model list")
            try:
                body = json.loads(content)
            except ValueError:
                raise errors.not_a_stream(
                    response.headers.get("content-type", ""), content[:64]
                ) from None
            page, params = self.model_names(body)
            names.extend(page)
            if not params:
                break
        return names

    async def aclose(self) -> None:
        """Close streams a consumer left open, then the connection pool (unless it is
        shared: its :class:`ClientPool` closes it)."""
        for stream in list(self.open_streams):
            await stream.aclose()
        http, self._http = self._http, None
        if http is not None and not self._pooled:
            await http.aclose()


async def _read_body(response: httpx.Response, limit: int, errors: ErrorContext) -> bytes | None:
    """The body decoded, as it streams; ``None`` once it passes ``limit`` (decoded), or,
    for an error status, the first ``limit`` bytes (the status is what matters)."""
    encoding = response.headers.get("content-encoding", "")
    buffer = bytearray()
    try:
        decoder = BodyDecoder(encoding)
        async for raw in response.aiter_raw():
            for piece in decoder.feed(raw):
                room = limit - len(buffer)
                buffer += piece[:room]
                if len(piece) > room:
                    return bytes(buffer) if not response.is_success else None
    except (UnknownEncoding, zlib.error):
        if not response.is_success:
            return bytes(buffer)
        raise errors.undecodable(encoding) from None
    return bytes(buffer)


__all__ = [
    "CONNECT_TIMEOUT",
    "ERROR_BODY_LIMIT",
    "FIRST_BYTE_TIMEOUT",
    "IDLE_TIMEOUT",
    "JSON_BODY_LIMIT",
    "REPLY_BYTES",
    "REPLY_SECONDS",
    "ClientPool",
    "HTTPProvider",
    "ReplyStream",
    "tls_context",
    "warm_up",
]
