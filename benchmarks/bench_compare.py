#!/usr/bin/env python3
"""Three models compared at once in the real window (issue 25, Speed): the event loop's
lateness while three answers stream side by side.

The window (offscreen) over a real SQLite file and a local HTTP server on 127.0.0.1
speaking OpenAI's streaming format: ``/compare`` picks three models, the next message
goes to each, and each streams DELTAS deltas into its own branch and its column of
``compareView``. A 5 ms Qt timer measures the loop's lateness from the send to the last
answer's end (target: p99 within a frame, 16.7 ms). Also printed: the wall time, the
deltas per second taken in, how many times the columns were refreshed, and the same
run with one answer alone (the baseline).

    .venv/bin/python benchmarks/bench_compare.py [DELTAS] [ROUNDS]
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.waiting import loop_passes, wait_until  # noqa: E402
from tests.support.wire_server import ReceivedRequest, Reply, WireServer  # noqa: E402

DELTAS = 2_000
ROUNDS = 3
TICK_MS = 5
FRAME = 1 / 60
MODELS = ("model-a", "model-b", "model-c")
#: Deltas a chunk of the stream carries, and the pause between chunks: a fast local
#: server (~2,000 deltas a second per answer), as a model on the same machine streams.
PER_CHUNK, PAUSE = 20, 0.01


WORDS = [
    "the",
    "answer",
    "streams",
    "in",
    "side",
    "by",
    "side",
    "with",
    "the",
    "others",
    "while",
    "each",
    "model",
    "writes",
]


def piece(model: str, index: int) -> str:
    """A word, as models stream them; a line ends every dozen words and a paragraph
    every five lines (a model's prose, not one endless line)."""
    word = f"{WORDS[index % len(WORDS)]}{index if index % 7 == 0 else ''}"
    if index % 60 == 59:
        return word + ".\n\n"
    return word + ("\n" if index % 12 == 11 else " ")


def stream(model: str, deltas: int) -> Reply:
    chunks = [
        {"model": model, "choices": [{"index": 0, "delta": {"content": piece(model, i)}}]}
        for i in range(deltas)
    ]
    chunks.append({"model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append(
        {"model": model, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": deltas}}
    )
    events = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]
    pieces = tuple(b"".join(events[i : i + PER_CHUNK]) for i in range(0, len(events), PER_CHUNK))
    return Reply(chunks=pieces, headers=(("content-type", "text/event-stream"),), pause=PAUSE)


def write_home(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""[defaults]
provider = "local"
model = "model-a"

[providers.local]
kind = "openai"
base_url = "{url}/v1"
""",
        encoding="utf-8",
    )


async def measure(window: Any, line: str, models: int) -> dict[str, float]:
    from PySide6.QtCore import Qt, QTimer

    ticks: list[float] = []
    cpu: dict[float, float] = {}

    def tick() -> None:
        now = time.perf_counter()
        ticks.append(now)
        cpu[now] = time.thread_time()  # the loop thread's own CPU time

    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(tick)
    ticker.start()
    try:
        await asyncio.sleep(0.1)
        started = time.perf_counter()
        task = window.run_line(line)
        await asyncio.wait_for(asyncio.shield(task), 120)
        finished = time.perf_counter()
        await asyncio.sleep(0.1)  # the last refresh and paint count too
    finally:
        ticker.stop()
    during = [t for t in ticks if t < started][-1:] + [t for t in ticks if started <= t <= finished]
    late = sorted(max(0.0, b - a - TICK_MS / 1000) for a, b in pairwise(during))
    # The same gaps in the loop thread's CPU time: its own work, without the time it
    # waited for a core on a busy machine (or for the GIL).
    steps = sorted(max(0.0, cpu[b] - cpu[a]) for a, b in pairwise(during))
    total = finished - started
    return {
        "cpu_p99": steps[min(len(steps) - 1, int(len(steps) * 0.99))] if steps else 0.0,
        "cpu_max": steps[-1] if steps else 0.0,
        "p50": late[len(late) // 2] if late else 0.0,
        "p99": late[min(len(late) - 1, int(len(late) * 0.99))] if late else 0.0,
        "max": late[-1] if late else 0.0,
        "seconds": total,
        "deltas_per_second": models * DELTAS / total if total else 0.0,
    }


async def run(home: Path, rounds: int) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    from ikgui.app.root import build_window

    window = build_window(home, check_timeout=3.0)
    window.resize(1600, 1000)
    window.show()
    three: list[dict[str, float]] = []
    alone: list[dict[str, float]] = []
    try:
        await wait_until(lambda: all(t.done() for t in window._tasks), timeout=30)
        await window.model_lists.ask_all()
        for index in range(rounds):
            figures = await measure(window, f"hello {index}", 1)  # one answer: the baseline
            alone.append(figures)
            await window.runner.run_line(f"/compare {' '.join(MODELS)}")
            view_refreshes = window.pane._compare.refreshes if window.pane._compare else 0
            figures = await measure(window, f"compare {index}", len(MODELS))
            view = window.pane.compare_view
            answers = window.session.comparison.answers
            done = [a for a in answers if a.state == "done" and a.deltas == DELTAS]
            if len(done) != len(MODELS):
                print(f"round {index}: answers {[(a.state, a.deltas) for a in answers]}")
            figures["refreshes"] = view.refreshes - view_refreshes
            three.append(figures)
            print(
                f"round {index}: p99 {figures['p99'] * 1000:.1f} ms, max "
                f"{figures['max'] * 1000:.1f} ms (one answer alone: p99 "
                f"{alone[-1]['p99'] * 1000:.1f} ms, max {alone[-1]['max'] * 1000:.1f} ms); "
                f"CPU between ticks p99 {figures['cpu_p99'] * 1000:.1f} ms, max "
                f"{figures['cpu_max'] * 1000:.1f} ms"
            )
            view.closed.emit()  # back to the conversation for the next round
            await loop_passes(5)
    finally:
        await window.shutdown()
        window.close()
        window.deleteLater()
        await loop_passes()
    return three, alone


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def report(three: list[dict[str, float]], alone: list[dict[str, float]]) -> None:
    print(f"{len(MODELS)} answers of {DELTAS:,} deltas each, at once ({len(three)} rounds):")
    rows = [
        ("loop lateness p50", "p50", 1000, "ms", None),
        ("loop lateness p99", "p99", 1000, "ms", FRAME * 1000),
        ("loop lateness max", "max", 1000, "ms", None),
        ("the loop's own work between ticks p99 (CPU)", "cpu_p99", 1000, "ms", FRAME * 1000),
        ("the loop's own work between ticks max (CPU)", "cpu_max", 1000, "ms", None),
        ("wall time (send → last answer ended)", "seconds", 1, "s", None),
        ("deltas taken in per second", "deltas_per_second", 1, "/s", None),
    ]
    for label, key, scale, unit, target in rows:
        values = [r[key] * scale for r in three]
        base = median([r[key] * scale for r in alone]) if alone else float("nan")
        verdict = ""
        if target is not None:
            verdict = "  OK" if max(values) <= target else f"  OVER {target:.1f} {unit}"
        print(
            f"  {label:<46} median {median(values):9.1f} {unit:<3} worst "
            f"{max(values) if key != 'deltas_per_second' else min(values):9.1f} {unit:<3}"
            f"(one answer alone: {base:.1f}){verdict}"
        )
    refreshes = [r["refreshes"] for r in three]
    print(f"  compareView refreshes per comparison: median {median(refreshes):.0f}")


def main() -> None:
    global DELTAS
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__)
        return
    DELTAS = int(args[0]) if args else DELTAS
    rounds = int(args[1]) if len(args) > 1 else ROUNDS
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp, WireServer() as server:
        server.models = list(MODELS)

        def answer(request: ReceivedRequest) -> Reply:
            return stream(request.json()["model"], DELTAS)

        server.route("/v1/chat/completions", answer)
        home = Path(tmp) / "home"
        write_home(home, server.url)
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            three, alone = loop.run_until_complete(run(home, rounds))
    report(three, alone)


if __name__ == "__main__":
    main()
