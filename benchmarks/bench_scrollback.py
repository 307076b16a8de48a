"""The scrollback's longest event-loop block in what the tests count instead of time.

    .venv/bin/python benchmarks/bench_scrollback.py [--runs 3]

tests/ui/test_render_budget.py checks, by counting, that no pass of the event loop lays
out more than one item's budget (lines, characters, format runs); tests/ui/
test_scrollback.py that 10,000 events render one page. How long those passes take on
this machine is measured here, offscreen, on the bare ``ScrollbackView``: a 2 ms
precise Qt timer records the loop's ticks while each case runs as the tests drive it
(each step its own callback, 5 ms apart), and the longest gap between two ticks is the
case's block. The budget is 100 ms per block (ARCHITECTURE.md §2); the figures are the
median and range over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import Qt, QTimer  # noqa: E402  (after the path set-up)
from PySide6.QtWidgets import QApplication  # noqa: E402

from ikgui.domain.events import Event  # noqa: E402
from ikgui.ui.transcript.scrollback import ScrollbackView  # noqa: E402

BUDGET_MS = 100
C = "chat-bench"
Step = Callable[[], None]


def ev(id: int, kind: str, content: str = "", data: dict[str, object] | None = None) -> Event:
    return Event(id, C, kind, content, data or {})


def md_table(rows: int, columns: int) -> str:
    head = "| " + " | ".join(f"h{c}" for c in range(columns)) + " |\n"
    rule = "|" + "|".join("---" for _ in range(columns)) + "|\n"
    body = "".join(
        "| " + " | ".join(f"r{r}c{c}" for c in range(columns)) + " |\n" for r in range(rows)
    )
    return head + rule + body


def stream(view: ScrollbackView, event_id: int, text: str, chunk: int) -> list[Step]:
    """A reply streamed in ``chunk``-character pieces, finished, then shown again."""
    final = ev(event_id, "assistant", text, {"model": "m"})
    start = ev(event_id, "assistant", "", {"streaming": True, "model": "m"})
    steps: list[Step] = [lambda: view.show_events([]), lambda: view.append_event(start)]
    for at in range(0, len(text), chunk):
        piece = text[at : at + chunk]
        steps.append(lambda piece=piece: view.append_text(event_id, piece))  # type: ignore[misc]
    steps += [
        lambda: view.update_event(final),
        lambda: view.viewport().repaint(),
        lambda: view.show_events([]),
        lambda: view.show_events([final]),
        lambda: view.viewport().repaint(),
    ]
    return steps


def shown(view: ScrollbackView, text: str) -> list[Step]:
    final = ev(6, "assistant", text, {"model": "m"})
    return [lambda: view.show_events([final]), lambda: view.viewport().repaint()]


def ten_thousand(view: ScrollbackView) -> list[Step]:
    kinds = ["user", "assistant", "assistant", "tool_call", "mark", "error", "command"]
    events = [
        ev(i, kinds[i % len(kinds)], f"message {i} with *some* `markdown`\n\n- a\n- b", {})
        for i in range(1, 10_001)
    ]
    return [lambda: view.show_events(events), lambda: view.repaint()]


CASES: dict[str, Callable[[ScrollbackView], list[Step]]] = {
    "table 70x50, streamed": lambda v: stream(v, 2, f"Here:\n\n{md_table(70, 50)}\nEnd.", 2_000),
    "3 MB reply, streamed": lambda v: stream(
        v,
        4,
        "\n".join(f"line {n}: " + "lorem ipsum " * 8 for n in range(20_000)) + "x" * 1_000_000,
        200_000,
    ),
    "2 MB line, streamed": lambda v: stream(v, 5, "word " * 400_000, 100_000),
    "30 KB of format runs": lambda v: shown(v, "*a* **b** `c` " * 2_200),
    "a list of 7,000 items": lambda v: shown(v, "- a\n" * 7_000),
    "1,100 links": lambda v: shown(v, "[x](https://example.com/a) " * 1_100),
    "10,000 paragraphs": lambda v: shown(v, "a\n\n" * 10_000),
    "10,000 events shown": ten_thousand,
}


def longest_block_ms(app: QApplication, steps: list[Step]) -> float:
    """Run each step as its own callback, 5 ms apart; the loop's longest gap (ms)."""
    ticks = [time.perf_counter()]
    probe = QTimer()
    probe.setTimerType(Qt.TimerType.PreciseTimer)
    probe.setInterval(2)
    probe.timeout.connect(lambda: ticks.append(time.perf_counter()))
    pending = iter(steps)
    done: list[bool] = []

    def next_step() -> None:
        step = next(pending, None)
        if step is None:
            done.append(True)
            return
        step()
        QTimer.singleShot(5, next_step)

    probe.start()
    QTimer.singleShot(0, next_step)
    while not done:
        app.processEvents()
    probe.stop()
    ticks.append(time.perf_counter())
    return 1000 * max(b - a for a, b in itertools.pairwise(ticks))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    print(f"longest event-loop block, ms (median, min-max of {args.runs}; budget {BUDGET_MS})")
    worst = 0.0
    for name, case in CASES.items():
        figures = []
        for _ in range(args.runs):
            view = ScrollbackView()
            view.resize(900, 650)
            view.show()
            app.processEvents()
            figures.append(longest_block_ms(app, case(view)))  # type: ignore[arg-type]
            view.close()
            view.deleteLater()
            app.processEvents()
        middle = statistics.median(figures)
        worst = max(worst, middle)
        flag = "" if middle <= BUDGET_MS else "  OVER BUDGET"
        print(f"  {name:<24} {middle:7.1f}  ({min(figures):.1f}-{max(figures):.1f}){flag}")
    return 0 if worst <= BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
