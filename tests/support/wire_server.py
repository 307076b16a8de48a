"""A real HTTP server on 127.0.0.1 that replays recorded model-server replies.

It runs in its own threads, so it serves synchronous tests, asyncio tests, the
qasync loop of UI tests and ``ikgui`` subprocesses alike::

    with WireServer() as server:                       # or the ``wire_server`` fixture
        server.replay("litellm-openai-stream-usage.txt", chunk_size=7, pause=0.001)
        server.route("/v1/chat/completions", Reply.error(429, retry_after=20))
        server.route("/api/chat", Reply.recording("lightrag-ollama-chat-stream.ndjson",
                                                  fault="cut", fault_after=500))
        ...  # point a provider at server.url
        server.requests[-1].json()                     # what the client sent

A ``source`` makes the body as it is sent (a decompression bomb of gigabytes is never
held in memory: see ``tests/providers/test_bombs.py``).

Faults: ``delay`` before the status line, ``first_byte_delay`` after the headers,
``pause`` between body pieces, and ``fault`` = ``"hang"`` (never answer), ``"stall"``
(stop sending after ``fault_after`` body bytes and keep the connection open),
``"cut"`` (close it there), ``"reset"`` (abort it with a TCP reset there),
``"endless"`` (after the body, send ``repeat`` every ``pause`` seconds until the client
goes away: deltas forever, or ``: keep-alive`` comments forever). Use
:meth:`WireServer.closed_url` for a port where nothing listens. Hung handlers are
released by :meth:`WireServer.reset` and :meth:`WireServer.stop`.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: Real streams recorded from real servers, copied into the repository from the
#: project's shared recordings so a fresh clone tests with them.
WIRE_DIR = Path(__file__).resolve().parents[1] / "data" / "wire"
CHAT_PATHS = {
    "openai": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "ollama": "/api/chat",
}
CONTENT_TYPES = {
    "openai": "text/event-stream",
    "anthropic": "text/event-stream",
    "ollama": "application/x-ndjson",
}
#: How long a hung handler waits at most before giving up on its own.
HANG_LIMIT = 30.0
#: The bound, never listening socket behind ``WireServer.closed_url``.
_CLOSED: socket.socket | None = None
_DROPPED_HEADERS = {"transfer-encoding", "content-length", "connection", "keep-alive", "date"}
_STATUS_TRAILER = re.compile(rb"\n?HTTP (\d{3})\s*\Z")
_CURL_TRAILER = re.compile(rb"(?m)^curl rc=\d+\s*\Z")
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    529: "Overloaded",
}


# -- recordings ----------------------------------------------------------------
@dataclass(frozen=True)
class Recording:
    """One recorded reply: body plus the status and headers it came with."""

    name: str
    kind: str  # openai | ollama | anthropic
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes

    @property
    def chat_path(self) -> str:
        return CHAT_PATHS[self.kind]


def recording_names(wire_dir: Path = WIRE_DIR) -> list[str]:
    """Every recorded body (``*.txt``, ``*.ndjson``), sorted; empty without the folder."""
    if not wire_dir.is_dir():
        return []
    return sorted(p.name for p in wire_dir.iterdir() if p.suffix in (".txt", ".ndjson"))


def recording_kind(name: str) -> str:
    if "anthropic" in name:
        return "anthropic"
    return "ollama" if name.endswith(".ndjson") else "openai"


def load_recording(name: str, wire_dir: Path = WIRE_DIR) -> Recording:
    """Read a recording, dropping the capture's trailers (``HTTP 429``, ``curl rc=0``)."""
    raw = (wire_dir / name).read_bytes()
    status = 200
    match = _STATUS_TRAILER.search(raw)
    if match:
        status = int(match.group(1))
        raw = raw[: match.start()]
    raw = _CURL_TRAILER.sub(b"", raw)
    kind = recording_kind(name)
    headers: tuple[tuple[str, str], ...] = ()
    if status == 200:
        headers = _headers_for(name, wire_dir)
    if not any(k.lower() == "content-type" for k, _ in headers):
        content_type = CONTENT_TYPES[kind] if status == 200 else "application/json"
        headers = (*headers, ("content-type", content_type))
    return Recording(name, kind, status, headers, raw)


def _headers_for(name: str, wire_dir: Path) -> tuple[tuple[str, str], ...]:
    stem = name.rsplit(".", 1)[0]
    files = [p for p in wire_dir.glob("*.headers") if stem.startswith(p.stem)]
    if not files:
        return ()
    best = max(files, key=lambda p: len(p.stem))
    pairs = []
    for line in best.read_text().splitlines()[1:]:
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() not in _DROPPED_HEADERS:
            pairs.append((key.strip(), value.strip()))
    return tuple(pairs)


# -- replies -------------------------------------------------------------------
@dataclass(frozen=True)
class Reply:
    """What the server answers to one request."""

    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    chunk_size: int | None = None  # split the body into pieces of this many bytes
    chunks: tuple[bytes, ...] | None = None  # or exactly these pieces
    pause: float = 0.0  # seconds between pieces
    delay: float = 0.0  # seconds before the status line
    first_byte_delay: float = 0.0  # seconds between the headers and the body
    fault: str | None = None  # hang | stall | cut | reset | endless
    fault_after: int = 0  # body bytes sent before a stall/cut/reset
    chunked: bool = True  # Transfer-Encoding: chunked, else Content-Length
    repeat: bytes = b": keep-alive\n\n"  # what "endless" sends over and over
    #: Or pieces made as they are sent (a body too big to hold: a decompression bomb).
    source: Callable[[], Iterable[bytes]] | None = None

    def pieces(self) -> list[bytes]:
        if self.chunks is not None:
            return [c for c in self.chunks if c]
        size = self.chunk_size or len(self.body) or 1
        return [self.body[i : i + size] for i in range(0, len(self.body), size)]

    def but(self, **changes: Any) -> Reply:
        return replace(self, **changes)

    @classmethod
    def recording(cls, name: str, wire_dir: Path = WIRE_DIR, **options: Any) -> Reply:
        rec = load_recording(name, wire_dir)
        return cls(status=rec.status, body=rec.body, headers=rec.headers, **options)

    @classmethod
    def json(cls, value: Any, status: int = 200, **options: Any) -> Reply:
        headers = (("content-type", "application/json"), *options.pop("headers", ()))
        body = json.dumps(value).encode()
        return cls(status=status, body=body, headers=headers, chunked=False, **options)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "something went wrong",
        retry_after: float | None = None,
        **options: Any,
    ) -> Reply:
        """An OpenAI-shaped error body (``{"error": {"message", "type", "code"}}``)."""
        extra = (("retry-after", f"{retry_after:g}"),) if retry_after is not None else ()
        value = {"error": {"message": message, "type": "error", "code": str(status)}}
        return cls.json(value, status, headers=extra, **options)

    @classmethod
    def html(cls, status: int = 200, **options: Any) -> Reply:
        body = b"<!DOCTYPE html><html><head><title>Welcome</title></head><body>Hi</body></html>"
        headers = (("content-type", "text/html; charset=utf-8"),)
        return cls(status=status, body=body, headers=headers, chunked=False, **options)


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


Route = Reply | Callable[[ReceivedRequest], Reply]


# -- the server ----------------------------------------------------------------
class WireServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.requests: list[ReceivedRequest] = []
        #: ``time.perf_counter()`` when each reply's first body byte was written.
        self.first_byte_times: list[float] = []
        self.models: list[str] = ["tiny", "mock-gpt"]
        #: Replies abandoned by the client while they were being written.
        self.client_gone = 0
        self._routes: dict[tuple[str, str], Route] = {}
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- life ------------------------------------------------------------------
    def start(self) -> WireServer:
        self._httpd = _Server((self.host, 0), _Handler)
        self._httpd.wire = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)
        self._httpd = self._thread = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @staticmethod
    def closed_url() -> str:
        """A URL on 127.0.0.1 where nothing listens (connections are refused).

        Its port stays bound, never listening, for the life of the process: a port let
        go could be taken meanwhile by another test process running in parallel (a
        server of its own, an ikgui child), which would then answer."""
        global _CLOSED
        if _CLOSED is None:
            _CLOSED = socket.socket()
            _CLOSED.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{_CLOSED.getsockname()[1]}"

    # -- configuration -----------------------------------------------------------
    def route(self, path: str, reply: Route, method: str = "POST") -> None:
        with self._lock:
            self._routes[(method.upper(), path)] = reply

    def replay(self, name: str, wire_dir: Path = WIRE_DIR, **options: Any) -> Recording:
        """Serve a recording at its kind's chat path; returns the recording."""
        rec = load_recording(name, wire_dir)
        reply = Reply(status=rec.status, body=rec.body, headers=rec.headers, **options)
        self.route(rec.chat_path, reply)
        return rec

    def reset(self) -> None:
        """Forget routes and requests, and release handlers left hanging."""
        with self._lock:
            self._release.set()
            self._release = threading.Event()
            self._routes.clear()
            self.requests.clear()
            self.first_byte_times.clear()
            self.client_gone = 0
            self.models = ["tiny", "mock-gpt"]

    def bodies(self, path: str | None = None) -> list[Any]:
        """The JSON bodies received (at ``path``), oldest first."""
        return [r.json() for r in self.requests if r.body and (path is None or r.path == path)]

    # -- used by the handler -------------------------------------------------------
    def _answer(self, request: ReceivedRequest) -> tuple[Reply, threading.Event]:
        with self._lock:
            self.requests.append(request)
            route = self._routes.get((request.method, request.path.split("?")[0]))
            release = self._release
        if route is None:
            return self._default(request), release
        return (route(request) if callable(route) else route), release

    def _default(self, request: ReceivedRequest) -> Reply:
        path = request.path.split("?")[0]
        if request.method == "GET" and path in ("/v1/models", "/models"):
            return Reply.json({"object": "list", "data": [{"id": m} for m in self.models]})
        if request.method == "GET" and path == "/api/tags":
            return Reply.json({"models": [{"name": m, "model": m} for m in self.models]})
        return Reply.json({"detail": "Not Found"}, status=404)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    wire: WireServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away is normal here (cancel and timeout tests)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = ReceivedRequest(self.command, self.path, headers, body)
        reply, release = self.server.wire._answer(request)
        try:
            self._send(reply, release)
        except OSError:
            self.close_connection = True
            with self.server.wire._lock:
                self.server.wire.client_gone += 1

    do_GET = do_POST = do_PUT = do_DELETE = _serve

    def _send(self, reply: Reply, release: threading.Event) -> None:
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if reply.delay and release.wait(reply.delay):
            return self._drop()
        if reply.fault == "hang":
            release.wait(HANG_LIMIT)
            return self._drop()
        if reply.source is not None:
            return self._send_made(reply)
        pieces = reply.pieces()
        chunked = reply.chunked or reply.fault is not None
        lines = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}"]
        lines += [f"{k}: {v}" for k, v in reply.headers]
        size = f"content-length: {len(reply.body)}"
        lines.append("transfer-encoding: chunked" if chunked else size)
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if reply.first_byte_delay and release.wait(reply.first_byte_delay):
            return self._drop()
        sent = 0
        for index, piece in enumerate(pieces):
            cutting = reply.fault is not None and reply.fault != "endless"
            if cutting and sent + len(piece) >= reply.fault_after:
                self._write(piece[: reply.fault_after - sent], chunked)
                return self._fault(reply.fault, release)
            self._write(piece, chunked)
            sent += len(piece)
            if reply.pause and index < len(pieces) - 1 and release.wait(reply.pause):
                return self._drop()
        if reply.fault == "endless":
            return self._endless(reply, release)
        if reply.fault:
            return self._fault(reply.fault, release)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _send_made(self, reply: Reply) -> None:
        """A body made piece by piece as it is sent (chunked), never held whole."""
        assert reply.source is not None
        lines = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}"]
        lines += [f"{k}: {v}" for k, v in reply.headers]
        lines.append("transfer-encoding: chunked")
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        for piece in reply.source():
            self._write(piece, chunked=True)
        self.wfile.write(b"0\r\n\r\n")

    def _write(self, piece: bytes, chunked: bool) -> None:
        if not piece:
            return
        if self._first_pending:
            self._first_pending = False
            self.server.wire.first_byte_times.append(time.perf_counter())
        if chunked:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        else:
            self.wfile.write(piece)

    def _endless(self, reply: Reply, release: threading.Event) -> None:
        """Send ``reply.repeat`` until the client leaves (or ``HANG_LIMIT`` passes)."""
        give_up = time.monotonic() + HANG_LIMIT
        while time.monotonic() < give_up:
            self._write(reply.repeat, chunked=True)
            self.wfile.flush()
            if release.wait(reply.pause or 0.005):
                break
        self._drop()

    def _fault(self, fault: str, release: threading.Event) -> None:
        if fault == "stall":
            release.wait(HANG_LIMIT)
        elif fault == "reset":
            # Linger 0 makes close() send a TCP reset instead of a clean FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.rfile.close()  # drop the file's reference so close() really closes
            self.connection.close()
            return
        self._drop()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def handle_one_request(self) -> None:
        self._first_pending = True
        super().handle_one_request()


__all__ = [
    "CHAT_PATHS",
    "WIRE_DIR",
    "ReceivedRequest",
    "Recording",
    "Reply",
    "WireServer",
    "load_recording",
    "recording_kind",
    "recording_names",
]
