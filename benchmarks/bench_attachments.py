"""Opening a conversation of 100 images in the real window, offscreen, against one of
the same messages without images (issue 24: "a conversation with 100 images opens as
fast as one without; thumbnails load lazily as they scroll into view").

    .venv/bin/python benchmarks/bench_attachments.py [--runs 7] [--side 1600]

A fresh SQLite database holds two conversations of 100 messages and 100 replies each;
in one, every message carries its own screenshot (a ``--side`` × 0.6 ``--side`` PNG with
noise, so each has a hash of its own and costs a real decode). The window switches back
and forth between them (``window.open_conversation``, as the sidebar's activation) and
repaints; per switch it reports the time to the repainted transcript, the thumbnails
decoded by then, and — for the images — the time until every thumbnail in view is shown
(decoded in a worker thread) and the event loop's worst lateness meanwhile (a 5 ms Qt
timer). Medians of ``--runs`` switches each way.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IMAGES = 100
WITH, WITHOUT = "conv-images", "conv-plain"


def screenshot(n: int, side: int) -> bytes:
    """A screenshot-sized PNG: flat panels with a band of noise (each one different)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    rnd = random.Random(n)
    image = QImage(side, int(side * 0.6), QImage.Format.Format_RGB32)
    image.fill(QColor(240, 242, 245))
    for y in range(0, image.height(), 7):
        for x in range(0, image.width(), 97):
            image.setPixelColor(x, y, QColor(rnd.randrange(256), rnd.randrange(256), 200))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]
    return bytes(data.data())


def fill(path: Path, side: int) -> int:
    """The two conversations; returns the bytes of images stored."""
    from ikgui.domain.events import Conversation
    from ikgui.files import checked
    from ikgui.storage import open_store

    stored = 0
    store = open_store(path)
    try:
        with store.transaction():
            for conv_id, at in ((WITHOUT, 1000.0), (WITH, 2000.0)):
                store.insert_conversation(
                    Conversation(conv_id, title=conv_id, created_at=at, updated_at=at)
                )
            for n in range(IMAGES):
                text = f"What does screenshot {n} show? Look at the panel on the left."
                reply = f"Screenshot {n} shows the settings panel with {n} items."
                store.append_event(WITHOUT, "user", text, {})
                store.append_event(WITHOUT, "assistant", reply, {})
                file = checked(f"screenshot-{n}.png", screenshot(n, side))
                stored += file.attachment.size
                data = {"attachments": [file.attachment.data()]}
                store.append_event(WITH, "user", text, data, files=[file])
                store.append_event(WITH, "assistant", reply, {})
    finally:
        store.close()
    return stored


async def in_callback(fn: Any) -> Any:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def run() -> None:
        try:
            future.set_result(fn())
        except BaseException as exc:
            future.set_exception(exc)

    loop.call_soon(run)
    return await future


def switch(window: Any, conv_id: str) -> float:
    started = time.perf_counter()
    window.open_conversation(conv_id)
    window.scrollback.viewport().repaint()
    assert window.current_id == conv_id
    return time.perf_counter() - started


class Lateness:
    """The event loop's worst lateness while it runs (a 5 ms Qt timer)."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.worst = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self._last - 0.005)
        self._last = now

    def __enter__(self) -> Lateness:
        self._last = time.perf_counter()
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.stop()


async def measure(window: Any, runs: int) -> dict[str, list[float]]:
    files = window.scrollback.files
    out: dict[str, list[float]] = {
        "plain": [],
        "images": [],
        "decodes": [],
        "shown": [],
        "late_plain": [],
        "late_images": [],
    }
    for _ in range(runs):
        with Lateness() as late:
            out["plain"].append(await in_callback(lambda: switch(window, WITHOUT)))
            await asyncio.sleep(0.3)
        out["late_plain"].append(late.worst)
        files._cache.clear()  # (each switch decodes what it shows, as the first one does)
        before = files.decodes
        with Lateness() as late:
            started = time.perf_counter()
            out["images"].append(await in_callback(lambda: switch(window, WITH)))
            while files._pending or files._wanted:
                await asyncio.sleep(0.001)
            window.scrollback.viewport().repaint()
            out["shown"].append(time.perf_counter() - started)
            await asyncio.sleep(max(0.0, 0.3 - out["shown"][-1]))
        out["late_images"].append(late.worst)
        out["decodes"].append(files.decodes - before)
    return out


def report(values: dict[str, list[float]], stored: int, side: int) -> None:
    def ms(name: str) -> str:
        rows = values[name]
        low, high = min(rows) * 1000, max(rows) * 1000
        return f"{statistics.median(rows) * 1000:.0f} ms (range {low:.0f}–{high:.0f})"

    print(
        f"{IMAGES} messages and {IMAGES} replies; screenshots {side}×{int(side * 0.6)}, "
        f"{stored / 1e6:.1f} MB stored"
    )
    print(f"switch to the conversation without images, until repainted: {ms('plain')}")
    print(f"switch to the conversation with {IMAGES} images, until repainted: {ms('images')}")
    decodes = statistics.median(values["decodes"])
    print(f"  thumbnails decoded by then and after (median): {decodes:.0f}")
    print(f"  until every thumbnail in view is shown: {ms('shown')}")
    print(
        f"the event loop's worst lateness, the 300 ms after switching: {ms('late_plain')} "
        f"without images, {ms('late_images')} with them"
    )
    size = values["attach_mb"][0] / 1024 / 1024
    print(
        f"attaching a {size:.0f} MB screenshot: {values['attach'][0] * 1000:.0f} ms until its "
        f"chip shows; the loop's worst lateness meanwhile {values['late_attach'][0] * 1000:.0f} ms"
    )


async def attaching(window: Any, folder: Path) -> dict[str, list[float]]:
    """Attach a 19 MB screenshot (read, checked, hashed and its chip's picture decoded
    off the loop): the time until its chip shows, and the loop's worst lateness."""
    from tests.support.sample_files import noisy_png

    path = folder / "big-screenshot.png"
    path.write_bytes(noisy_png(19 * 1024 * 1024))
    with Lateness() as late:
        started = time.perf_counter()
        await window.attachments.adding([str(path)])
        shown = time.perf_counter() - started
    window.attachments.remove(window.attachments.files[0].attachment.sha256)
    return {"attach": [shown], "late_attach": [late.worst], "attach_mb": [path.stat().st_size]}


async def run(home: Path, runs: int) -> dict[str, list[float]]:
    from ikgui.app.root import build_window

    window = build_window(home, check_timeout=1.0)
    window.resize(1340, 820)
    window.show()
    try:
        while not all(t.done() for t in window._tasks):
            await asyncio.sleep(0.01)
        values = await measure(window, runs)
        values.update(await attaching(window, home))
        return values
    finally:
        await window.shutdown()
        window.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--side", type=int, default=1600)
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
        stored = fill(home / "ikgui.db", args.side)
        values = loop.run_until_complete(run(home, args.runs))
    report(values, stored, args.side)


if __name__ == "__main__":
    main()
