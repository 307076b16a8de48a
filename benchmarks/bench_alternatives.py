"""Switching alternatives in a 10,000-event conversation, in the real window, offscreen
(issue 25: "switching alternatives repaints within 50 ms on a 10,000-event
conversation").

    .venv/bin/python benchmarks/bench_alternatives.py [--runs 9] [--events 10000]

A fresh SQLite database holds one conversation of ``--events`` events (messages and
replies with some Markdown) whose last message was answered three times (a reply and
two ``retry`` events, as Retry writes them). The window opens it; each run clicks the
switcher's ``‹`` or ``›`` (``AlternativeSwitcher.step``: the session records a
``choose``, the fold puts the other attempt back, the transcript shows it) and repaints
the viewport; it reports the time from the click to the repainted transcript, split into
the domain's part (``Session.switch_alternative``, timed alone on the same log), and the
fold of a fresh replay of the whole log with its choices. Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CONV = "chat-alts"
ANSWERS = ("The first answer.", "A second answer.", "A third answer.")


def fill(path: Path, events: int) -> None:
    from ikgui.domain.events import Conversation
    from ikgui.storage import open_store

    store = open_store(path)
    try:
        with store.transaction():
            conv = Conversation(CONV, title="Long", created_at=1.0, updated_at=1.0)
            store.insert_conversation(conv)
            for n in range((events - 6) // 2):
                store.append_event(CONV, "user", f"Question {n}: what about *item* {n}?", {})
                store.append_event(CONV, "assistant", f"Item {n} is fine.\n\n- a\n- `b`", {})
            user = store.append_event(CONV, "user", "And the last question?", {})
            for i, answer in enumerate(ANSWERS):
                if i:
                    store.append_event(CONV, "retry", "", {"target_event_id": user.id})
                store.append_event(CONV, "assistant", answer, {})
    finally:
        store.close()


def last_text(window: Any) -> str:
    return window.session.state.context[-1].content


def switchers(window: Any) -> list[Any]:
    from ikgui.ui.transcript.switcher import AlternativeSwitcher

    found = window.scrollback.viewport().findChildren(AlternativeSwitcher, "alternativeSwitcher")
    return [s for s in found if s.isVisible()]


async def measure(window: Any, runs: int) -> dict[str, list[float]]:
    from PySide6.QtWidgets import QApplication

    out: dict[str, list[float]] = {"click": [], "domain": []}
    while not switchers(window):
        await asyncio.sleep(0.01)
    direction = -1
    for _ in range(runs):
        switcher = switchers(window)[0]
        before = last_text(window)
        found = switcher.alternatives
        if not 0 <= found.index + direction < found.count:
            direction = -direction
        started = time.perf_counter()
        switcher.step(direction)  # the choose, the fold, the transcript's rows: synchronous
        QApplication.processEvents()  # the switchers placed, what was queued
        window.scrollback.viewport().repaint()
        out["click"].append(time.perf_counter() - started)
        shown = window.scrollback.item_texts()[-1]
        if last_text(window) == before or shown != last_text(window):
            raise SystemExit(f"not switched: {before!r} {last_text(window)!r} {shown!r}")
        await asyncio.sleep(0.05)  # the switchers placed again
    session = window.session
    for _ in range(runs):
        found = session.alternatives()
        [alternatives] = found.values()
        index = (alternatives.index + 1) % alternatives.count
        started = time.perf_counter()
        session.switch_alternative(alternatives, index)
        out["domain"].append(time.perf_counter() - started)
    return out


def replay_time(home: Path, runs: int) -> list[float]:
    from ikgui.domain.state.replay import replay_conversation
    from ikgui.storage import open_store

    store = open_store(home / "ikgui.db")
    try:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            replay_conversation(store, CONV)
            times.append(time.perf_counter() - started)
        return times
    finally:
        store.close()


async def run(home: Path, runs: int) -> dict[str, list[float]]:
    from ikgui.app.root import build_window

    window = build_window(home, check_timeout=1.0)
    window.resize(1340, 820)
    window.show()
    try:
        while not all(t.done() for t in window._tasks):
            await asyncio.sleep(0.01)
        window.open_conversation(CONV)
        return await measure(window, runs)
    finally:
        await window.shutdown()
        window.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--events", type=int, default=10_000)
    args = parser.parse_args()
    from ikgui.ui.loop import new_loop

    loop = new_loop()
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as tmp, loop:
        home = Path(tmp)
        (home / "config.toml").write_text(
            '[defaults]\nprovider = "local"\nmodel = "m"\n\n[providers.local]\n'
            'kind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n',
            encoding="utf-8",
        )
        fill(home / "ikgui.db", args.events)
        values = loop.run_until_complete(run(home, args.runs))
        values["replay"] = replay_time(home, args.runs)

    def ms(name: str) -> str:
        rows = values[name]
        low, high = min(rows) * 1000, max(rows) * 1000
        return f"{statistics.median(rows) * 1000:.1f} ms (range {low:.1f}–{high:.1f})"

    print(f"a conversation of {args.events} events, its last reply answered 3 times")
    print(f"click ‹ or › until the transcript is repainted: {ms('click')}")
    print(f"  of which Session.switch_alternative (the choose, the fold): {ms('domain')}")
    print(f"replay of the whole log with its choices: {ms('replay')}")


if __name__ == "__main__":
    main()
