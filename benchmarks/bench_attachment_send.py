#!/usr/bin/env python3
"""Attaching and sending a 20 MB image (issue 24, Speed and memory).

A session on a real SQLite file sends to a real HTTP server (the suite's wire server,
in a process of its own so its copy of the request is not counted) speaking OpenAI's
streamed chat completions. The image (20 MB of random pixels: it does not compress) is
read and checked as the window and ``ikgui run`` do (``ikgui.files.read_file`` in a worker
thread), sent with a message (stored with it, encoded as a data URL), then sent again
with the next message (read back from the store). Measured:

- the event loop's worst lateness (a 5 ms ticker) while the file is attached, while it
  is sent with its message, and while the next message sends it again (target: under
  100 ms);
- the process's peak memory above its baseline while the image is sent (its resident
  size sampled every millisecond by a thread; target: under 150 MB).

    .venv/bin/python benchmarks/bench_attachment_send.py [MEGABYTES]
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ikgui.domain.session.session import Session  # noqa: E402
from ikgui.domain.settings import ProviderSettings, Settings  # noqa: E402
from ikgui.files import read_file  # noqa: E402
from ikgui.providers import ClientPool, make_provider  # noqa: E402
from ikgui.storage import open_store  # noqa: E402

TICK = 0.005
#: The wire server, in a process of its own: prints its URL, serves until stdin closes.
SERVER = """
import sys
from tests.support.wire_server import Reply, WireServer
body = (
    'data: {"choices":[{"index":0,"delta":{"content":"A grid of noise."}}]}\\n\\n'
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\\n\\n'
    'data: [DONE]\\n\\n'
).encode()
with WireServer() as server:
    reply = Reply(body=body, headers=(("content-type", "text/event-stream"),))
    server.route("/v1/chat/completions", reply)
    print(server.url, flush=True)
    sys.stdin.read()
"""
#: A PNG of random pixels of about ``megabytes`` MB, written by a process of its own
#: (making it here would raise this process's peak before the baseline is taken).
MAKE_IMAGE = """
import sys
from tests.support.sample_files import noisy_png
open(sys.argv[1], "wb").write(noisy_png(int(float(sys.argv[2]) * 1_000_000)))
"""


class Lateness:
    """The worst lateness of a 5 ms ticker on the running loop."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(TICK)
            self.worst = max(self.worst, time.perf_counter() - start - TICK)

    def __enter__(self) -> Lateness:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


def resident() -> int:
    """This process's resident size in bytes (Linux)."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE")


class PeakMemory:
    """The highest resident size above the size when it started, sampled every ms."""

    def __init__(self) -> None:
        self.base = resident()
        self.peak = self.base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, resident())
            time.sleep(0.001)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, resident())

    @property
    def above(self) -> float:
        return (self.peak - self.base) / 1e6


async def main(megabytes: float) -> None:
    folder = Path(tempfile.mkdtemp(prefix="ikgui-bench-attach-"))
    image = folder / "noise.png"
    subprocess.run(
        [sys.executable, "-c", MAKE_IMAGE, str(image), str(megabytes)], check=True, cwd=ROOT
    )
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT
    )
    assert server.stdout is not None
    url = server.stdout.readline().decode().strip()
    store = open_store(folder / "ikgui.db")
    pool = ClientPool()
    settings = Settings(default_provider="local", default_model="vision")
    settings.providers["local"] = ProviderSettings("local", "openai", f"{url}/v1")

    def factory(name: str):  # type: ignore[no-untyped-def]
        return make_provider(settings.providers[name], None, pool=pool)

    session = Session(store, settings, provider_factory=factory)
    session.new_conversation(None)
    await session.send("hello")  # connections and imports warmed up, as in a window
    try:
        with Lateness() as attach:
            stored = await asyncio.to_thread(read_file, image, 20)
        size = stored.attachment.size
        with PeakMemory() as memory, Lateness() as send:
            await session.send("What is in this image?", [stored])
        del stored
        with PeakMemory() as again_memory, Lateness() as again:
            await session.send("And the colours?")
    finally:
        await pool.aclose()
        store.close()
        server.stdin.close()  # type: ignore[union-attr]
        server.wait()
    print(f"image: {size / 1e6:.1f} MB of random pixels (a real PNG), sent twice over HTTP")
    print(
        f"worst loop lateness: attach {attach.worst * 1000:.1f} ms, send "
        f"{send.worst * 1000:.1f} ms, next message {again.worst * 1000:.1f} ms "
        "(target < 100 ms)"
    )
    print(
        f"peak memory above baseline: send {memory.above:.0f} MB, next message "
        f"{again_memory.above:.0f} MB (target < 150 MB)"
    )


if __name__ == "__main__":
    asyncio.run(main(float(sys.argv[1]) if len(sys.argv) > 1 else 20.0))
