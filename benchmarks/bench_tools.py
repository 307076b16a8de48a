#!/usr/bin/env python3
"""The tool loop's own cost and the event loop while tools run (issue 23, Speed).

A session on a real SQLite file sends messages to a scripted model that asks for a tool
of the suite's own MCP server (``tests/support/mcp_faulty.py``, started for real through
the ``mcp`` SDK) and answers once it has the result. Measured:

- ikgui's own time from a tool's result being recorded to the next request going out
  (target: under 20 ms), and from a streamed call to its approval being asked;
- the event loop's worst lateness (a 5 ms ticker) while the server starts, while calls
  run, and while a 10 MB output comes back and is stored (target: under 100 ms), and
  the longest single step of the loop's own work in CPU time;
- in the real window (offscreen), over a local HTTP server streaming OpenAI's
  ``tool_calls``: from a streamed call (its ``tool_call`` event stored and told) to its
  approval card's first paint in the transcript (target: under 20 ms).

    .venv/bin/python benchmarks/bench_tools.py [ROUNDS]
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the window's figure: offscreen

from PySide6.QtCore import QEvent, QObject, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from ikgui.domain.session.session import Session  # noqa: E402
from ikgui.domain.session.tool_loop import PendingCall  # noqa: E402
from ikgui.domain.settings import Settings  # noqa: E402
from ikgui.domain.state.facts import Changed, Fact  # noqa: E402
from ikgui.domain.state.tool_use import ONCE, Decision  # noqa: E402
from ikgui.domain.streaming import (  # noqa: E402
    ChatRequest,
    StreamEnd,
    StreamItem,
    TextDelta,
    ToolCallDelta,
)
from ikgui.storage import open_store  # noqa: E402
from ikgui.tools import McpHost  # noqa: E402
from ikgui.ui.approvals import ToolCallCard  # noqa: E402
from tests.support.mcp_servers import config_table, faulty_server  # noqa: E402
from tests.support.waiting import loop_passes, wait_until  # noqa: E402
from tests.support.wire_server import ReceivedRequest, Reply, WireServer  # noqa: E402

TICK = 0.005
#: The 10 MB output is asked for this many times (the median is printed: one run on a
#: busy machine says more about the machine than about ikgui).
FLOODS = 3


class Model:
    """Asks for ``faulty__echo`` (or ``faulty__flood`` when told to) after each user
    message, then answers; notes when each request went out."""

    name, kind, base_url = "bench", "openai", "http://bench.invalid/v1"

    def __init__(self) -> None:
        self.requests: list[float] = []
        self.flood = False
        self.calls = 0

    def __call__(self, name: str) -> Model:
        return self

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(time.perf_counter())
        return self._play(request)

    async def _play(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        if request.messages[-1].get("role") == "tool":
            yield TextDelta("Done.")
            yield StreamEnd(10, 2, "stop")
            return
        self.calls += 1
        if self.flood:
            yield ToolCallDelta(f"c{self.calls}", "faulty__flood", {"megabytes": 10})
        else:
            yield ToolCallDelta(f"c{self.calls}", "faulty__echo", {"text": "hello"})
        yield StreamEnd(10, 2, "tool_calls")

    async def list_models(self) -> list[str]:
        return ["bench"]

    async def aclose(self) -> None:
        pass


class Lateness:
    """The worst lateness of a 5 ms ticker on the running loop, and the longest single
    step of the loop's own work in CPU time of its thread (``step``): on a machine other
    processes keep busy the lateness also counts the time the loop's thread waited for
    a core; the step's CPU time does not."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.step = 0.0
        self._task: asyncio.Task[None] | None = None
        self._since = time.perf_counter()
        self._run = asyncio.events.Handle._run

    def _timed(self) -> Any:
        lateness, run, loop = self, self._run, threading.get_ident()

        def timed(handle: asyncio.events.Handle) -> None:
            if threading.get_ident() != loop:  # (the tool host's loop, on its thread)
                run(handle)
                return
            start = time.thread_time()
            try:
                run(handle)
            finally:
                lateness.step = max(lateness.step, time.thread_time() - start)

        return timed

    async def _tick(self) -> None:
        while True:
            self._since = time.perf_counter()
            await asyncio.sleep(TICK)
            self.worst = max(self.worst, time.perf_counter() - self._since - TICK)

    def __enter__(self) -> Lateness:
        asyncio.events.Handle._run = self._timed()  # type: ignore[method-assign]
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        # The tick under way counts too: the step that ends the phase (a send that ends
        # in the step that stored the result) would otherwise go unmeasured.
        self.worst = max(self.worst, time.perf_counter() - self._since - TICK)
        asyncio.events.Handle._run = self._run  # type: ignore[method-assign]


async def main(rounds: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="ikgui-bench-tools-"))
    store = open_store(folder / "ikgui.db")
    model = Model()
    host = McpHost({"faulty": faulty_server()})
    settings = Settings(tool_servers={"faulty": faulty_server()})
    session = Session(store, settings, provider_factory=model, tool_host=host)
    session.new_conversation(None)
    assert session.tools is not None
    results: list[float] = []
    asked: list[float] = []
    call_seen: list[float] = []

    def heard(fact: Fact) -> None:
        if isinstance(fact, Changed):
            for event, _ in fact.appended:
                if event.kind == "tool_result":
                    results.append(time.perf_counter())
                elif event.kind == "tool_call":
                    call_seen.append(time.perf_counter())

    session.subscribe(heard)

    async def approve(call: PendingCall) -> Decision:
        asked.append(time.perf_counter())
        return Decision(ONCE)

    session.tools.approver = approve
    with Lateness() as start:
        await host.start(["faulty"])
    with Lateness() as calls:
        for _ in range(rounds):
            await session.send("echo, please")
    model.flood = True
    floods = []
    for _ in range(FLOODS):
        with Lateness() as flood:
            await session.send("flood, please")
        floods.append(flood)
    await host.close()
    store.close()

    # Each round: a result is recorded, then the next request goes out.
    gaps = []
    for result in results:
        after = [r for r in model.requests if r >= result]
        if after:
            gaps.append((after[0] - result) * 1000)
    to_ask = [(a - c) * 1000 for c, a in zip(call_seen, asked, strict=False)]
    print(f"tool rounds: {rounds} echo + 1 flood of 10 MB (a real MCP server over stdio)")
    print(
        f"result -> next request: median {statistics.median(gaps):.1f} ms, "
        f"worst {max(gaps):.1f} ms (target < 20 ms)"
    )
    print(
        f"streamed call -> approval asked: median {statistics.median(to_ask):.1f} ms, "
        f"worst {max(to_ask):.1f} ms (target < 20 ms)"
    )
    flood_late = statistics.median(f.worst for f in floods) * 1000
    flood_step = statistics.median(f.step for f in floods) * 1000
    print(
        f"worst loop lateness: server start {start.worst * 1000:.1f} ms, calls "
        f"{calls.worst * 1000:.1f} ms, 10 MB output {flood_late:.1f} ms (median of "
        f"{FLOODS}; target < 100 ms)"
    )
    print(
        f"longest loop step, CPU time: server start {start.step * 1000:.1f} ms, calls "
        f"{calls.step * 1000:.1f} ms, 10 MB output {flood_step:.1f} ms (median of {FLOODS})"
    )


def echo_reply(request: ReceivedRequest) -> Reply:
    """An OpenAI model over HTTP: asks for ``faulty__echo`` after each user message (a
    call id of its own each time), then answers."""
    messages = request.json()["messages"]
    if messages[-1].get("role") == "tool":
        chunks: list[dict[str, Any]] = [
            {"choices": [{"index": 0, "delta": {"content": "Done."}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ]
    else:
        asked = sum(1 for m in messages if m.get("role") == "user")
        call = {
            "index": 0,
            "id": f"call_{asked}",
            "type": "function",
            "function": {"name": "faulty__echo", "arguments": json.dumps({"text": "hello"})},
        }
        chunks = [
            {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return Reply(body=body.encode(), headers=(("Content-Type", "text/event-stream"),))


def write_home(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""[defaults]
provider = "local"
model = "bench"

[providers.local]
kind = "openai"
base_url = "{url}/v1"

{config_table(faulty_server())}""",
        encoding="utf-8",
    )


class FirstPaints(QObject):
    """When each approval card was first painted (an application-wide event filter)."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []
        self._seen: set[str] = set()  # calls' ids (a card's id() may be a gone one's)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        painted = event.type() == QEvent.Type.Paint and isinstance(watched, ToolCallCard)
        if painted and watched.call.id not in self._seen:
            self._seen.add(watched.call.id)
            self.times.append(time.perf_counter())
        return False


async def card_on_screen(home: Path, rounds: int) -> list[float]:
    """Milliseconds from each streamed call (its ``tool_call`` stored and told) to its
    card's first paint in the real window (offscreen)."""
    from ikgui.app.root import build_window
    from ikgui.ui.loop import application

    window = build_window(home, check_timeout=2.0)
    window.resize(1100, 760)
    window.show()
    seen: list[float] = []

    def heard(fact: Fact) -> None:
        if isinstance(fact, Changed):
            seen.extend(time.perf_counter() for e, _ in fact.appended if e.kind == "tool_call")

    window.session.subscribe(heard)
    paints = FirstPaints()
    application().installEventFilter(paints)
    try:
        await wait_until(lambda: all(t.done() for t in window._tasks), timeout=60)
        for index in range(rounds):
            window.prompt.setPlainText(f"echo {index}")
            QTest.keyClick(window.prompt, Qt.Key.Key_Return)
            await wait_until(lambda n=index: len(paints.times) > n, timeout=90)
            [card] = cards(window)
            card.once.click()
            await wait_until(lambda: not window.session.streaming and not cards(window), 60)
    finally:
        application().removeEventFilter(paints)
        await window.shutdown()
        window.close()
        window.deleteLater()
        await loop_passes()
    return [(p - s) * 1000 for s, p in zip(seen, paints.times, strict=True)]


def cards(window: Any) -> list[ToolCallCard]:
    return [c for c in window.findChildren(ToolCallCard) if c.isVisible()]


def window_figures(rounds: int) -> None:
    from ikgui.ui.loop import application, new_loop

    application()
    with tempfile.TemporaryDirectory() as tmp, WireServer() as server:
        server.route("/v1/chat/completions", echo_reply)
        home = Path(tmp) / "home"
        write_home(home, server.url)
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            shown = loop.run_until_complete(card_on_screen(home, rounds))
    print(
        f"streamed call -> its card painted (the window, offscreen): median "
        f"{statistics.median(shown):.1f} ms, worst {max(shown):.1f} ms over {rounds} "
        "(target < 20 ms)"
    )


if __name__ == "__main__":
    ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    asyncio.run(main(ROUNDS))
    window_figures(max(3, ROUNDS // 2))
