"""MCP servers through the official ``mcp`` SDK: started on first need, kept running,
stopped on close (SPEC §12). Implements :class:`ikgui.domain.tools.ToolHost`.

Everything MCP does — spawning a server, its handshake, parsing a 10 MB reply — runs on
an event loop of its own in one thread, so no server can block the window's loop; the
window's coroutines await futures of that loop (cancelling one cancels the call there).
Each server lives in one task of that loop, which enters and leaves the SDK's client (its
task groups must be left by the task that entered them).

A server process gets only the environment it is configured with, on top of the few
variables any program needs (the SDK's ``get_default_environment``: PATH, HOME…), never
the user's own (their provider keys stay theirs).

A server's question during a call (MCP elicitation, form or url mode) is asked through
the ``ask`` of the call in flight on that server, on the caller's loop (the window's
form): see :meth:`McpHost._elicited`. The SDK advertises the capability once a callback
is given, so servers such as ``server-everything`` offer their asking tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import IO, Any, TextIO, TypeVar, cast

from ikgui.domain.settings import ToolServerSettings
from ikgui.domain.tools import (
    ACCEPT,
    CANCEL,
    DECLINE,
    FAILED,
    RUNNING,
    STARTING,
    STOPPED,
    Answer,
    Asker,
    Question,
    ServerState,
    ToolInfo,
    ToolOutcome,
    decline_question,
)

T = TypeVar("T")
#: How long a server may take to start and answer the handshake (``npx`` may download).
START_SECONDS = 120.0
#: The lines of a failed server's standard error kept for the user.
STDERR_LINES = 12
#: Looks a secret up: (keyring entry, environment variable) → its value or None.
SecretSource = Callable[[str, str], str | None]


# The SDK logs a server's unreadable output with its traceback; with no handler of the
# application's (the command line has none) Python would print it to stderr. The log
# file, when one is open, still gets it.
logging.getLogger("mcp").addHandler(logging.NullHandler())


def _no_secrets(entry: str, variable: str) -> str | None:
    return os.environ.get(variable)


class _Server:
    """One server's task, its client and what it is doing."""

    def __init__(self, settings: ToolServerSettings) -> None:
        self.settings = settings
        self.state = ServerState(settings.name)
        self.client: Any = None
        self.ready: asyncio.Future[None] | None = None
        self.stop: asyncio.Event | None = None
        self.task: asyncio.Task[None] | None = None
        self.errlog: IO[str] | None = None
        #: Who answers a question of this server's: its calls in flight, the first
        #: started first (see McpHost._elicited).
        self.calls: list[_Asking] = []

    def stderr_tail(self) -> tuple[str, ...]:
        if self.errlog is None:
            return ()
        with contextlib.suppress(OSError, ValueError):
            self.errlog.flush()
            self.errlog.seek(0, os.SEEK_END)
            size = self.errlog.tell()
            self.errlog.seek(max(0, size - 8192))
            lines = self.errlog.read().splitlines()
            return tuple(line[:300] for line in lines[-STDERR_LINES:] if line.strip())
        return ()


class _Asking:
    """A call in flight and its questions open now (cancelled when the call ends)."""

    def __init__(self, ask: Asker) -> None:
        self.ask = ask
        self.open: set[asyncio.Task[Answer]] = set()
        #: When (the loop's time) the user last answered one.
        self.answered: float | None = None


class McpHost:
    """The configured servers (``[mcp.<name>]``), on a loop of their own."""

    def __init__(
        self,
        servers: dict[str, ToolServerSettings],
        secrets: SecretSource = _no_secrets,
        start_seconds: float = START_SECONDS,
    ) -> None:
        self._servers = {name: _Server(s) for name, s in servers.items()}
        self._secrets = secrets
        self._start_seconds = start_seconds
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- the host's own loop -----------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="ikgui-tools", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    async def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())
        return await asyncio.wrap_future(future)

    # -- the port ----------------------------------------------------------------------
    def states(self) -> list[ServerState]:
        return [server.state for server in self._servers.values()]

    async def start(self, names: Sequence[str]) -> list[ServerState]:
        wanted = [self._servers[n] for n in names if n in self._servers]
        await self._run(self._start_all(wanted))
        return [server.state for server in wanted]

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        ask: Asker = decline_question,
    ) -> ToolOutcome:
        found = self._servers.get(server)
        if found is None:
            return ToolOutcome(f"There is no tool server named {server}.", False)
        return await self._run(self._call(found, tool, arguments, _on_loop(ask)))

    async def close(self) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(Exception):
            await self._run(self._stop_all())
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)
        with contextlib.suppress(Exception):
            loop.close()
        self._loop = None

    # -- on the host's loop --------------------------------------------------------------
    async def _start_all(self, servers: list[_Server]) -> None:
        await asyncio.gather(*(self._start(s) for s in servers))

    async def _start(self, server: _Server) -> None:
        if server.state.state == RUNNING and server.task is not None and not server.task.done():
            return
        if server.ready is not None and not server.ready.done():
            await asyncio.wait([server.ready])  # another caller is starting it
            return
        if not server.settings.enabled:
            server.state = ServerState(server.settings.name, FAILED, reason="It is turned off.")
            return
        server.state = ServerState(server.settings.name, STARTING)
        loop = asyncio.get_running_loop()
        server.ready = loop.create_future()
        server.stop = asyncio.Event()
        server.task = loop.create_task(self._serve(server), name=f"mcp:{server.settings.name}")
        try:
            await asyncio.wait_for(asyncio.shield(server.ready), self._start_seconds)
        except TimeoutError:
            await self._abandon(server)
            self._failed(server, f"It did not answer within {self._start_seconds:g} s.")
        except Exception as exc:  # the task reported why it could not start
            await self._abandon(server)
            closed = _connection_closed(exc)
            self._failed(server, "It ended before it answered." if closed else _reason(exc))

    async def _abandon(self, server: _Server) -> None:
        """End a server's task (and so its process) after a failed start."""
        task = server.task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])

    def _failed(self, server: _Server, reason: str) -> None:
        server.state = ServerState(
            server.settings.name, FAILED, reason=reason, stderr=server.stderr_tail()
        )

    async def _serve(self, server: _Server) -> None:
        """The server's life: enter the client, list the tools, wait for the stop."""
        from mcp.client.client import Client

        assert server.ready is not None and server.stop is not None
        try:
            # In a worker thread: a secret may wait for the keyring (seconds, if locked),
            # which must not hold up the other servers on this loop.
            transport = await asyncio.to_thread(self._transport, server)

            async def heard(message: Any) -> None:
                # A line on the server's stdout that is not JSON-RPC: during the
                # handshake, the start fails at once with it (rather than at the time
                # limit); later the SDK skips it.
                if isinstance(message, Exception) and not server.ready.done():  # type: ignore[union-attr]
                    server.ready.set_exception(_NotMcp(_unreadable(message)))  # type: ignore[union-attr]

            # No read time limit of the SDK's: the handshake has start_seconds (a first
            # ``npx`` downloads), each call its server's ``timeout`` (see _call).
            async def elicited(context: Any, params: Any) -> Any:
                return await self._elicited(server, params)

            async with Client(
                transport, message_handler=heard, elicitation_callback=elicited
            ) as client:
                listed = await client.list_tools()
                tools = tuple(
                    ToolInfo(
                        server.settings.name,
                        tool.name,
                        tool.description or "",
                        dict(tool.input_schema or {}),
                    )
                    for tool in listed.tools
                )
                if server.ready.done():  # it failed meanwhile (what it wrote was not MCP)
                    return
                server.client = client
                server.state = ServerState(server.settings.name, RUNNING, tools)
                server.ready.set_result(None)
                await server.stop.wait()
        except BaseException as exc:
            if not server.ready.done():
                if isinstance(exc, Exception):
                    server.ready.set_exception(exc)
                else:  # cancelled: whoever cancelled it is not waiting for it
                    server.ready.cancel()
            elif server.state.state == RUNNING and not isinstance(exc, asyncio.CancelledError):
                self._failed(server, f"It stopped: {_reason(exc)}")
            if not isinstance(exc, Exception):
                raise
        finally:
            server.client = None
            if server.state.state == RUNNING:
                server.state = ServerState(server.settings.name, STOPPED)

    def _transport(self, server: _Server) -> Any:
        settings = server.settings
        if settings.url is not None:
            return self._http_transport(settings)
        from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

        env = {**get_default_environment(), **dict(settings.env)}
        for variable in settings.secret_env:
            value = self._secrets(f"mcp.{settings.name}.{variable}", variable)
            if value is not None:
                env[variable] = value
        if server.errlog is None:
            # Kept open for the server's life (closed by _stop_all): its stderr tail.
            server.errlog = tempfile.TemporaryFile(  # noqa: SIM115
                "w+", encoding="utf-8", errors="replace"
            )
        else:  # started again: the last lines are this start's
            with contextlib.suppress(OSError, ValueError):
                server.errlog.seek(0)
                server.errlog.truncate()
        params = StdioServerParameters(
            command=settings.command or "", args=list(settings.args), env=env, cwd=settings.cwd
        )
        return stdio_client(params, errlog=cast(TextIO, server.errlog))

    def _http_transport(self, settings: ToolServerSettings) -> Any:
        from mcp.client.streamable_http import streamable_http_client

        token = self._secrets(f"mcp.{settings.name}", "")
        if not token:
            return settings.url
        url = settings.url or ""

        @contextlib.asynccontextmanager
        async def with_token() -> Any:
            import httpx2  # the SDK's HTTP client: its transport takes one

            # Closed with the transport (the SDK leaves a client it was given open).
            headers = {"Authorization": f"Bearer {token}"}
            client = httpx2.AsyncClient(headers=headers, timeout=settings.timeout)
            async with client, streamable_http_client(url, http_client=client) as streams:
                yield streams

        return with_token()

    async def _elicited(self, server: _Server, params: Any) -> Any:
        """A server's question (MCP elicitation), on this loop: asked through the call
        in flight on that server, its answer checked against the form and sent back."""
        from mcp.types import ElicitResult

        question = Question(
            server.settings.name,
            str(getattr(params, "message", "") or ""),
            dict(getattr(params, "requested_schema", None) or {}),
            getattr(params, "url", None) if getattr(params, "mode", "") == "url" else None,
        )
        # Calls of one round run one after another, so a server has one call in flight
        # and its question is that call's. Two conversations calling one server at once
        # cannot be told apart (the question names no call): the call started first is
        # asked. A question with no call in flight (a server asking by itself) is
        # declined.
        if not server.calls:
            return ElicitResult(action=DECLINE)
        asking = server.calls[0]
        task = asyncio.get_running_loop().create_task(asking.ask(question))
        asking.open.add(task)
        try:
            await asyncio.wait([task])
        finally:
            asking.open.discard(task)
            task.cancel()  # (when this handler itself is cancelled)
            asking.answered = asyncio.get_running_loop().time()
        if task.cancelled() or task.exception() is not None:  # the call ended (Stop)
            return ElicitResult(action=CANCEL)
        answer = task.result()
        if answer.action == ACCEPT and question.url is None:
            content = answer.content or {}
            if question.problems(content):  # the asker's form should not let it through
                return ElicitResult(action=CANCEL)
            return ElicitResult(action=ACCEPT, content=content)
        if answer.action in (ACCEPT, DECLINE):
            return ElicitResult(action=ACCEPT if answer.action == ACCEPT else DECLINE)
        return ElicitResult(action=CANCEL)

    async def _call(
        self, server: _Server, tool: str, arguments: dict[str, Any], ask: Asker
    ) -> ToolOutcome:
        asking = _Asking(ask)
        server.calls.append(asking)
        try:
            return await self._call_asking(server, tool, arguments, asking)
        finally:
            server.calls.remove(asking)
            for task in asking.open:  # its form closes with it
                task.cancel()

    async def _call_asking(
        self, server: _Server, tool: str, arguments: dict[str, Any], asking: _Asking
    ) -> ToolOutcome:
        await self._start(server)
        if server.client is None:
            reason = server.state.reason or "It is not running."
            return ToolOutcome(
                f"The tool server {server.settings.name} is not available: {reason}", False
            )
        limit = server.settings.timeout
        try:
            result = await _within(server.client.call_tool(tool, arguments), limit, asking)
        except TimeoutError:
            return ToolOutcome(f"Timed out after {limit:g} s", False)
        except Exception as exc:
            if not _connection_closed(exc):
                return ToolOutcome(_reason(exc), False)
            # The process ended (or its pipes closed): the server failed, with its last
            # stderr lines; the next call starts it again.
            await self._lost(server)
            return ToolOutcome(
                f"The tool server {server.settings.name} stopped during the call.", False
            )
        return ToolOutcome(_text(result), not bool(getattr(result, "is_error", False)))

    async def _lost(self, server: _Server) -> None:
        self._failed(server, "It stopped.")
        if server.stop is not None:
            server.stop.set()
        task = server.task
        if task is not None and not task.done():
            done, _pending = await asyncio.wait([task], timeout=10)
            if not done:
                await self._abandon(server)
        self._failed(server, "It stopped.")  # its stderr, now complete

    async def _stop_all(self) -> None:
        tasks = []
        for server in self._servers.values():
            if server.stop is not None:
                server.stop.set()
            if server.task is not None and not server.task.done():
                tasks.append(server.task)
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=5)
            for task in pending:
                task.cancel()
        for server in self._servers.values():
            if server.errlog is not None:
                with contextlib.suppress(OSError):
                    server.errlog.close()
                server.errlog = None


async def _within(call: Coroutine[Any, Any, T], limit: float, asking: _Asking) -> T:
    """``call``'s result within ``limit`` seconds (``TimeoutError`` after), the time the
    user takes over the server's questions not counted: the limit runs again from each
    answer."""
    loop = asyncio.get_running_loop()
    task = loop.create_task(call)
    deadline = loop.time() + limit
    try:
        while True:
            done, _pending = await asyncio.wait([task], timeout=max(0.0, deadline - loop.time()))
            if done:
                return task.result()
            if asking.open:  # the user is answering: wait for that, then the limit again
                await asyncio.wait({task, *asking.open}, return_when=asyncio.FIRST_COMPLETED)
                deadline = loop.time() + limit
            elif asking.answered is not None and asking.answered + limit > loop.time():
                deadline = asking.answered + limit
            else:
                raise TimeoutError
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait([task])


def _on_loop(ask: Asker) -> Asker:
    """``ask`` (a coroutine of the caller's loop: the window's form) made callable from
    the host's loop: each question hops to the caller's loop and the answer back, neither
    loop blocked. When the call ends while its question is open (Stop cancels it), the
    question there is cancelled too (the form closes)."""
    caller = asyncio.get_running_loop()

    async def asked(question: Question) -> Answer:
        future = asyncio.run_coroutine_threadsafe(ask(question), caller)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    return asked


class _NotMcp(Exception):
    """The server wrote something that is not MCP on its standard output."""


def _unreadable(exc: Exception) -> str:
    shown = ""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            shown = " ".join(str(errors()[0].get("input", "")).split())[:80]
    line = "It wrote something that is not MCP (JSON-RPC) on its standard output"
    return f"{line}: {shown}" if shown else f"{line}."


def _connection_closed(exc: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(exc, BaseExceptionGroup):
        return any(_connection_closed(e) for e in exc.exceptions)
    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


def _text(result: Any) -> str:
    """A call's content as text: text parts as they are, other parts named."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {getattr(block, 'mime_type', '') or 'data'}]")
        elif kind == "resource_link":
            parts.append(f"[resource: {getattr(block, 'uri', '')}]")
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            parts.append(str(getattr(resource, "text", "") or f"[resource: {kind}]"))
        else:
            parts.append(f"[{kind or 'content'}]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


def _reason(exc: BaseException) -> str:
    """One line saying why, from an exception of the SDK, the process or the network."""
    if isinstance(exc, BaseExceptionGroup):
        return _reason(exc.exceptions[0]) if exc.exceptions else type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        return f"Its program was not found ({exc.filename or exc})."
    if isinstance(exc, PermissionError):
        return f"Its program cannot be run ({exc.filename or exc})."
    error = getattr(exc, "error", None)
    message = getattr(error, "message", None) or str(exc) or type(exc).__name__
    line = " ".join(str(message).split())
    return line[:300]
