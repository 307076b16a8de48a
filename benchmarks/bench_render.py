"""Big replies in the real window, offscreen: the event loop's longest block and peak RSS.

    .venv/bin/python benchmarks/bench_render.py [--only NAME ...] [--runs 3] [--delta 1000]

For each payload (Markdown tables of 80 KB, 200 KB and 800 KB, a 20 MB reply, a 5 MB
single line, a 2 MB code block) a fresh process runs ``ikgui``'s window on an empty home
whose provider is a local wire server (its own process, as in ``bench_window.py``) that
streams the payload as OpenAI deltas of ``--delta`` characters at full speed. A 5 ms Qt
timer records the event loop's ticks meanwhile; the longest gap between two ticks is
reported for three phases:

- *stream*: from the send until the scrollback renders the finished reply;
- *finish*: from that render until 0.5 s later (the render and the paints after it);
- *reopen*: ``/new``, then ``window.open_conversation`` back to the reply's conversation
  (replay from SQLite and the scrollback's rebuild), until 0.5 s later.

Then the child's peak RSS. Figures are the median and range over ``--runs`` runs; the
budget is 100 ms per block and 500 MB of RSS for the 20 MB reply (ARCHITECTURE.md §2),
judged on the median run. The store's saves (SQLite and its full-text index) are timed
apart, and the longest block in which nothing was saved is the render's own figure.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_window import (  # noqa: E402  (after the path set-up)
    KEY_ENV,
    LIVE,
    in_callback,
    make_home,
    max_rss_mb,
    quiet,
    start_child,
    stop_server,
    watchdog,
)

TICK_MS = 5
BUDGET_MS = 100
RSS_BUDGET_MB = 500
SETTLE = 0.5


def table(rows: int, columns: int) -> str:
    """A Markdown table of one-character cells (the issue's 400 x 100 is ~80 KB)."""
    head = "|" + "|".join("h" for _ in range(columns)) + "|\n"
    rule = "|" + "|".join("-" for _ in range(columns)) + "|\n"
    return head + rule + ("|" + "|".join("x" for _ in range(columns)) + "|\n") * rows


def long_reply(size: int) -> str:
    """Markdown prose: paragraphs with emphasis, code spans and a list now and then."""
    para = (
        "The **quick** brown fox jumps over the `lazy` dog; then it does it again, "
        "and again, until the paragraph is long enough to wrap a few times.\n\n"
        "- one item\n- two items\n\n"
    )
    return (para * (size // len(para) + 1))[:size]


def code_block(size: int) -> str:
    line = "    result = compute(value, other_value) + 42  # a comment to make it longer\n"
    return "```python\n" + line * (size // len(line)) + "```\n"


PAYLOADS: dict[str, Any] = {
    "table-80k": lambda: table(400, 100),
    "table-200k": lambda: table(1000, 100),
    "table-800k": lambda: table(4000, 100),
    "reply-20mb": lambda: long_reply(20_000_000),
    "line-5mb": lambda: "word " * 1_000_000,
    "code-2mb": lambda: code_block(2_000_000),
}


def sse_pieces(text: str, delta: int) -> tuple[bytes, ...]:
    pieces = [
        b"data: "
        + json.dumps(
            {"choices": [{"index": 0, "delta": {"content": text[i : i + delta]}}]}
        ).encode()
        + b"\n\n"
        for i in range(0, len(text), delta)
    ]
    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    usage = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": len(pieces)}}
    pieces += [f"data: {json.dumps(end)}\n\n".encode(), f"data: {json.dumps(usage)}\n\n".encode()]
    pieces.append(b"data: [DONE]\n\n")
    return tuple(pieces)


# -- children ---------------------------------------------------------------------------
def child_server(name: str, delta: int) -> None:
    """The wire server streaming one payload; serves until stdin closes."""
    from tests.support.wire_server import Reply, WireServer

    reply = Reply(
        chunks=sse_pieces(PAYLOADS[name](), delta),
        headers=(("content-type", "text/event-stream"),),
    )
    with WireServer() as server:
        server.models = ["mock-gpt"]
        server.route("/v1/chat/completions", reply)
        print(server.url, flush=True)
        sys.stdin.read()


def child_window(home: str, expected: int) -> None:
    """The window on ``home``: send, wait, reopen; prints ``result {json}``."""
    import asyncio

    from ikgui.ui.loop import new_loop

    os.environ[KEY_ENV] = "bench"
    loop = new_loop()
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(asyncio.wait_for(measure(Path(home), expected), 900))
    result["rss_mb"] = max_rss_mb()
    print("result " + json.dumps(result), flush=True)


async def measure(home: Path, expected: int) -> dict[str, Any]:
    import asyncio
    from itertools import pairwise

    from PySide6.QtCore import Qt, QTimer

    from ikgui.app.root import build_window
    from ikgui.domain.events import Event
    from ikgui.ui.loop import application

    app = application()
    window = build_window(home, check_timeout=3.0)
    window.show()
    result: dict[str, Any] = {}
    try:
        await quiet(window)
        await in_callback(app.processEvents)
        await asyncio.wait_for(asyncio.shield(window.run_line("/new")), 10)
        await quiet(window)
        conv = window.current_id
        ticks: list[float] = []
        ticker = QTimer()
        ticker.setTimerType(Qt.TimerType.PreciseTimer)
        ticker.setInterval(TICK_MS)
        ticker.timeout.connect(lambda: ticks.append(time.perf_counter()))
        rendered: list[float] = []
        update = window.scrollback.update_event

        def timed_update(event: Event) -> None:
            started = time.perf_counter()
            update(event)
            if not event.data.get("streaming") and not rendered:
                rendered.extend((started, time.perf_counter() - started))

        window.scrollback.update_event = timed_update  # type: ignore[method-assign]
        saves: list[tuple[float, float]] = []  # the store's update_event (SQLite + FTS)
        store = window.session.store
        save = store.update_event

        def timed_save(*args: Any) -> None:
            started = time.perf_counter()
            save(*args)
            saves.append((started, time.perf_counter()))

        store.update_event = timed_save  # type: ignore[method-assign]
        ticker.start()
        await asyncio.sleep(0.1)
        sent = time.perf_counter()
        await asyncio.wait_for(asyncio.shield(window.run_line("go")), 600)
        await quiet(window, 60)
        done = time.perf_counter()
        await asyncio.sleep(SETTLE)
        del window.scrollback.update_event
        finish_at = rendered[0] if rendered else done
        settled = time.perf_counter()
        await asyncio.wait_for(asyncio.shield(window.run_line("/new")), 10)
        await quiet(window)
        await asyncio.sleep(0.1)
        reopened = time.perf_counter()
        shows: list[float] = []
        show = window.scrollback.show_events

        def timed_show(events: Any) -> None:
            started = time.perf_counter()
            show(events)
            shows.append(time.perf_counter() - started)

        window.scrollback.show_events = timed_show  # type: ignore[method-assign]
        await in_callback(lambda: window.open_conversation(conv))
        opened = time.perf_counter() - reopened
        del window.scrollback.show_events
        await asyncio.sleep(SETTLE)
        ticker.stop()
        end = time.perf_counter()

        def longest(start: float, stop: float, but_saves: bool = False) -> float:
            """The longest gap between ticks (with ``but_saves``: of the gaps in which
            the store saved nothing, to tell the render's cost from the database's)."""
            inside = [t for t in ticks if t < start][-1:] + [t for t in ticks if start <= t <= stop]
            gaps = [
                (b - a)
                for a, b in pairwise(inside)
                if not but_saves or not any(a <= s < b or a < e <= b for s, e in saves)
            ]
            return max(gaps, default=float("nan"))

        shown = window.session.state.scrollback
        reply = shown[-1].content if shown else ""
        result.update(
            stream=longest(sent, finish_at),
            finish=longest(finish_at, settled),
            reopen=longest(reopened, end),
            total=done - sent,
            render=rendered[1] if rendered else float("nan"),
            save=max((e - s for s, e in saves), default=float("nan")),
            reopen_show=sum(shows),
            reopen_call=opened,
            ui=max(
                longest(sent, finish_at, True),
                longest(finish_at, settled, True),
                longest(reopened, end, True),
            ),
            ok=len(reply) == expected and window.current_id == conv,
            chars=len(reply),
            feedback=window.feedback.text(),
        )
    finally:
        await window.shutdown()
        window.close()
    return result


# -- the parent --------------------------------------------------------------------------
def start_server(name: str, delta: int) -> tuple[subprocess.Popen[str], str]:
    return start_child(Path(__file__).resolve(), "server", name, str(delta))


def run_once(name: str, delta: int, folder: Path, run: int) -> dict[str, Any]:
    import subprocess

    server, url = start_server(name, delta)
    try:
        home = make_home(folder, f"{name}-{run}", folder / f"{name}-{run}.db", url, None)
        (home / "ikgui.db").unlink()  # a fresh database of its own, not a link
        with (home / "config.toml").open("a", encoding="utf-8") as config:
            # The 20 MB payload plus its SSE framing is over the default reply limit
            # (20 MB), which would cut it: measure the rendering, not the limit.
            config.write("\n[limits]\nreply_mb = 100\n")
        expected = len(PAYLOADS[name]())
        proc = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                "window",
                str(home),
                str(expected),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=900,
            env={**os.environ, KEY_ENV: "bench", "IKGUI_HOME": str(home)},
        )
    finally:
        stop_server(server)
    for line in proc.stdout.splitlines():
        if line.startswith("result "):
            return dict(json.loads(line[len("result ") :]))
    return {"error": (proc.stderr or proc.stdout)[-1500:]}


def median(values: list[float]) -> float:
    import statistics

    return statistics.median(values) if values else 0.0


def spread(values: list[float], scale: float = 1000.0) -> str:
    """``median (min–max)`` of ``values`` times ``scale``; the machine may be shared."""
    if not values:
        return "n/a"
    import statistics

    low, mid, high = (v * scale for v in (min(values), statistics.median(values), max(values)))
    digits = 1 if high < 10 else 0

    def shown(value: float) -> str:
        return f"{value:,.{digits}f}"

    if shown(low) == shown(high):
        return shown(low)
    return f"{shown(mid)} ({shown(low)}–{shown(high)})"


def parent_main() -> int:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(PAYLOADS), default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--delta", type=int, default=1000, help="characters per delta")
    parser.add_argument("--timeout", type=float, default=3600)
    args = parser.parse_args()
    watchdog(args.timeout)
    names = args.only or list(PAYLOADS)
    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="ikgui-bench-render-") as tmp:
        folder = Path(tmp)
        LIVE.append(folder)
        for name in names:
            results = []
            for run in range(args.runs):
                print(f"{name} run {run + 1}...", flush=True)
                result = run_once(name, args.delta, folder, run)
                if "error" in result or not result.get("ok"):
                    print(f"  failed: {result}", file=sys.stderr)
                    failed = True
                else:
                    results.append(result)
            size = len(PAYLOADS[name]())
            # The verdict takes the median run: on a shared machine one run's worst block
            # can be another process's; the table shows the maximum too.
            worst = median([max(r["stream"], r["finish"], r["reopen"]) for r in results])
            rss = [r["rss_mb"] for r in results]
            ui = median([r["ui"] for r in results])
            heavy = name == "reply-20mb" and max(rss, default=0) > RSS_BUDGET_MB
            verdict = "ok"
            if not results:
                verdict = "no run finished"
            elif heavy or ui * 1000 > BUDGET_MS:
                verdict = "over budget"
            elif worst * 1000 > BUDGET_MS:
                verdict = "over budget in the store's save"
            failed |= verdict != "ok" or not results
            rows.append(
                f"| {name} | {size / 1e6:,.2f} MB | {spread([r['stream'] for r in results])} "
                f"| {spread([r['finish'] for r in results])} "
                f"| {spread([r['reopen'] for r in results])} "
                f"| {spread([r['reopen_call'] for r in results])} "
                f"/ {spread([r['reopen_show'] for r in results])} "
                f"| {spread([r['render'] for r in results])} "
                f"| {spread([r['save'] for r in results])} "
                f"| {spread([r['ui'] for r in results])} "
                f"| {spread(rss, 1.0)} | {spread([r['total'] for r in results], 1.0)} s "
                f"| {verdict} |"
            )
    print()
    print(
        f"Longest event-loop block (ms), peak RSS (MB); {args.runs} runs, deltas of "
        f"{args.delta:,} characters: median (min–max)"
    )
    print(
        "| payload | size | stream | finish | reopen | reopen: open_conversation / its "
        "show_events | final render | slowest save | longest without a save | peak RSS "
        "| reply took | verdict |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 1 if failed else 0


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        if sys.argv[2] == "server":
            child_server(sys.argv[3], int(sys.argv[4]))
        elif sys.argv[2] == "window":
            child_window(sys.argv[3], int(sys.argv[4]))
        return 0
    return parent_main()


if __name__ == "__main__":
    sys.exit(main())
