"""The real window on a big database (made by ``make_db.py``), offscreen, against targets.

    .venv/bin/python benchmarks/bench_window.py [--db /tmp/bench/ikgui.db] [--runs 11]
        [--startup-only | --streaming-only [--code CHECKOUT] [--profile FILE]]

1. Start-up to a painted window: a fresh ``python`` subprocess running ``ikgui`` as a
   user starts it (``ikgui.__main__.main`` with ``IKGUI_HOME``; ``open_main_window``
   wrapped, once ``ikgui.app.root`` is imported, to watch the scrollback), timed from spawn
   until it prints a marker right after the scrollback's first paint; then until the
   work the window leaves for after its first paint is done. The window opens on the
   newest conversation (the 10,000-event one in ``make_db``'s database); a second
   series starts on a small one. The floor is a subprocess that only imports
   ``PySide6.QtWidgets`` and paints an empty ``QMainWindow``. The three series run
   interleaved, ``--runs`` rounds, after the packages and ikgui are compiled to
   bytecode (as an installed application is); medians and ranges, with start-up less
   the floor of the same round and each child's CPU time to its first paint (on a busy
   machine both say more than the wall clock; ``chrt -f 20`` before the command gives
   the children the CPU as on a quiet machine).
2. Switching to the 10,000-event conversation (``window.open_conversation``, as the
   sidebar's activation) through the scrollback's repaint, back and forth with a small
   conversation; median.
3. Streaming 5,000 small OpenAI deltas at full speed from a local wire server (in its own
   process, so its threads never hold this process's GIL) into a new conversation, sent
   with ``window.run_line``; a 5 ms Qt timer measures the event loop's lateness meanwhile.
   The reply is Markdown (:func:`reply_text`: headings, lists, tables, code blocks, 28 KB,
   within the render budget), so the scrollback renders its blocks as they finish and only
   the rest when it ends. A second reply follows (the first pays one-off costs such as lazy
   imports). Per delta: the median interval between deltas over the first and the last
   1,000.
4. The sidebar: ``model.fetch_all()`` (10,000 rows), then the list scrolled top to
   bottom one page per step, repainted each step.
5. Peak RSS of this process after all of the above, and of a fresh subprocess that opens
   the window and switches to the big conversation.

``--streaming-only`` runs only 3 (the window opened, two replies streamed): run it
alternately with ``--code /tmp/old-checkout`` (the ``ikgui`` package imported from
there) to compare old and new code under the same load. ``--profile FILE`` writes
cProfile statistics of the first reply (from ``run_line`` until 0.2 s after it
finished) to FILE and FILE.prof.

The database is copied to a temporary folder first (the stream writes to it); the
copy is removed at the end.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # (the children import as little as the app itself)
    import subprocess

    from PySide6.QtWidgets import QApplication

    from ikgui.domain.events import Event
    from ikgui.domain.session.session import SessionEvent
    from ikgui.ui.transcript.render import Item
    from ikgui.ui.window.main_window import MainWindow

T = TypeVar("T")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

DEFAULT_DB = Path("/tmp/bench/ikgui.db")
DELTAS = 5_000
TICK_MS = 5
SWITCHES = 7
KEY_ENV = "IKGUI_BENCH_KEY"
STALL = 0.015  # event-loop gaps longer than this are listed
#: Modules the first paint does not need (reported if a start-up child loaded them).
NOT_BEFORE_PAINT = (
    "httpx",
    "httpcore",
    "ikgui.providers",
    "keyring",
    "ikgui.ui.settings.dialog",
    "PySide6.QtNetwork",
    "logging.handlers",
)
#: Where ``--profile`` writes the profile of the first reply's start (empty: none).
PROFILE: list[Path] = []
#: Child processes and the temporary folder, for the watchdog to clean up.
LIVE: list[subprocess.Popen[Any] | Path] = []


def say(label: str) -> None:
    """A child's marker line: the label and ``perf_counter`` (system-wide on Linux)."""
    print(f"{label} {time.perf_counter():.6f}", flush=True)


def max_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """This process's CPU time so far (user + system, all threads): less sensitive than
    the wall clock to other work on the machine."""
    return time.process_time()


# -- children (keep their imports to what the app itself needs) ------------------------
def child_window(home: str, switch_to: str) -> None:
    """``ikgui`` itself, as a user starts it (``ikgui.__main__.main`` with
    ``IKGUI_HOME``), with ``open_main_window`` wrapped, once ``ikgui.app.root`` is imported,
    to watch the scrollback's first paint; then optionally a switch, then the window is
    closed (its normal shutdown ends ``main``)."""
    os.environ["IKGUI_HOME"] = home
    sys.argv = ["ikgui"]
    _when_imported("ikgui.app.root", lambda module: _watch_window(module, switch_to))
    from ikgui.__main__ import main as ikgui_main

    ikgui_main()


def _when_imported(name: str, then: Callable[[Any], None]) -> None:
    """Call ``then(module)`` right after module ``name`` is first imported (by whoever).
    (Not an ``importlib.abc.MetaPathFinder``: that module loads ``importlib.resources``,
    which ikgui itself does not.)"""
    import importlib.util

    class Finder:
        def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            assert spec is not None and spec.loader is not None
            loader, execute = spec.loader, spec.loader.exec_module

            def exec_module(module: Any) -> None:
                execute(module)
                then(module)

            loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, Finder())


def _watch_window(ikgui_app: Any, switch_to: str) -> None:
    import asyncio

    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    say("imported")
    open_main_window = ikgui_app.open_main_window

    class PaintWatch(QObject):
        def __init__(self, window: MainWindow) -> None:
            super().__init__(window)
            self.window = window
            self.fired = False
            window.scrollback.viewport().installEventFilter(self)

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and not self.fired:
                self.fired = True
                QTimer.singleShot(0, self.painted)  # after the whole paint pass
            return False

        def painted(self) -> None:
            say("painted")
            print(f"cpu {cpu_seconds():.4f}", flush=True)
            print(f"rss {max_rss_mb():.1f}", flush=True)
            lazy = [m for m in NOT_BEFORE_PAINT if m in sys.modules]
            print(f"loaded {','.join(lazy) or '-'}", flush=True)
            window = self.window
            window.scrollback.viewport().removeEventFilter(self)
            deferred = getattr(window, "first_paint", None)  # the work left for after it
            if deferred is not None:
                deferred.then(self.settled)
            else:
                self.settled()

        def settled(self) -> None:
            say("settled")
            window = self.window
            if switch_to:
                window.open_conversation(switch_to)
                QApplication.processEvents()
                window.scrollback.viewport().repaint()
                say("switched")
                print(f"rss {max_rss_mb():.1f}", flush=True)
            close(window)

    def close(window: MainWindow) -> None:
        """``await window.shutdown()`` from a task of our own, then close: its
        ``on_closed`` ends ``main``. (Not ``window.close()`` first: its closeEvent runs
        the shutdown as one of the window's tasks, which the shutdown itself cancels.)"""

        async def finish() -> None:
            await window.shutdown()
            window.close()

        tasks.append(asyncio.ensure_future(finish()))

    tasks: list[asyncio.Future[None]] = []

    def watched_window(home: Path | None = None) -> MainWindow:
        window: MainWindow = open_main_window(home)
        say("built")
        PaintWatch(window)
        QTimer.singleShot(30_000, lambda: close(window))
        return window

    ikgui_app.open_main_window = watched_window


def child_floor() -> None:
    """The least a PySide6 program needs to paint a window."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([sys.argv[0]])
    window = QMainWindow()
    window.resize(1340, 820)

    def done() -> None:
        say("painted")
        print(f"cpu {cpu_seconds():.4f}", flush=True)
        app.quit()

    class PaintWatch(QObject):
        fired = False

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and not self.fired:
                self.fired = True
                QTimer.singleShot(0, done)
            return False

    watch = PaintWatch()
    window.installEventFilter(watch)
    window.show()
    QTimer.singleShot(30_000, app.quit)
    app.exec()


def reply_text(size: int = 27_000) -> str:
    """A Markdown reply of about ``size`` characters, as a model writes one: sections
    with a heading, paragraphs with bold and code spans, lists, now and then a table or a
    code block; within the render budget (so it renders whole when it ends)."""
    words = [f"word{i % 97}" for i in range(60)]
    sections: list[str] = []
    k = 0
    while sum(map(len, sections)) < size:
        prose = " ".join(words[k % 7 :] + words[: k % 7])
        parts = [f"## Section {k}\n", f"Some **bold {k}** and `code {k}`: {prose}.\n"]
        parts.append("".join(f"- item {k}.{i}: {' '.join(words[i : i + 6])}\n" for i in range(4)))
        if k % 4 == 1:
            rows = "".join(f"| r{i} | {i * k} | {words[i]} |\n" for i in range(3))
            parts.append(f"| name | value | note |\n|---|---:|---|\n{rows}")
        if k % 3 == 2:
            lines = "".join(f"    total += {i} * x  # {words[i]}\n" for i in range(4))
            parts.append(f"```python\ndef f{k}(x):\n    total = 0\n{lines}    return total\n```\n")
        parts.append(f"{prose.capitalize()}; that ends section {k}.\n")
        sections.append("\n".join(parts) + "\n")
        k += 1
    return "".join(sections).rstrip("\n")


def sse_body(count: int) -> tuple[tuple[bytes, ...], str]:
    """An OpenAI stream of ``count`` small content deltas (one HTTP chunk each, a few
    characters, cut anywhere as tokens are) and the text they add up to
    (:func:`reply_text`)."""
    import json
    from itertools import pairwise

    text = reply_text()
    cuts = [round(i * len(text) / count) for i in range(count + 1)]
    texts = [text[a:b] for a, b in pairwise(cuts)]
    chunks: list[dict[str, Any]] = [
        {"choices": [{"index": 0, "delta": {"content": t}}]} for t in texts
    ]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": count}})
    pieces = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks]
    pieces.append(b"data: [DONE]\n\n")
    return tuple(pieces), "".join(texts)


def child_server(count: int) -> None:
    """The wire server in its own process; serves until stdin closes."""
    from tests.support.wire_server import Reply, WireServer

    pieces, _ = sse_body(count)
    reply = Reply(chunks=pieces, headers=(("content-type", "text/event-stream"),))
    with WireServer() as server:
        server.models = ["mock-gpt"]
        server.route("/v1/chat/completions", reply)
        print(server.url, flush=True)
        sys.stdin.read()


# -- the parent: subprocesses ------------------------------------------------------------
def run_child(args: list[str], timeout: float = 60.0) -> tuple[float, dict[str, float], str]:
    """Spawn this script as a child; returns (spawn time, {label: seconds since spawn}
    by the parent's clock when the line arrived, all output)."""
    import tempfile

    with tempfile.TemporaryFile() as stderr:  # not a pipe: a chatty child never blocks
        start = time.perf_counter()
        proc = _spawn(args, stderr)
        seen, output = _read_lines(proc, start, start + timeout)
        stderr.seek(0)
        errors = stderr.read().decode(errors="replace")
    text = output.decode(errors="replace")
    if proc.returncode != 0:
        text += f"\n(exit {proc.returncode})\n{errors[-2000:]}"
    return start, seen, text


def _spawn(args: list[str], stderr: IO[bytes]) -> subprocess.Popen[bytes]:
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--child", *args],
        stdout=subprocess.PIPE,
        stderr=stderr,
        cwd=ROOT,
    )
    LIVE.append(proc)
    return proc


def _read_lines(
    proc: subprocess.Popen[bytes], start: float, deadline: float
) -> tuple[dict[str, float], bytes]:
    """Read the child's output until it ends (or the deadline: then kill it), noting when
    each line's first word first arrived; wait for its exit."""
    import select
    import subprocess

    assert proc.stdout is not None
    seen: dict[str, float] = {}
    output = pending = b""
    fd = proc.stdout.fileno()
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.perf_counter()))
            if not ready:
                break
            data = os.read(fd, 65536)
            now = time.perf_counter()
            if not data:
                break
            output += data
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                label = line.decode(errors="replace").split(" ", 1)[0]
                if label:
                    seen.setdefault(label, now - start)
        proc.wait(timeout=max(1.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        LIVE.remove(proc)
        proc.stdout.close()
    return seen, output


def child_stamp(text: str, label: str, start: float) -> float | None:
    """A child's own ``perf_counter`` for ``label``, as seconds since ``start``."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == label:
            return float(parts[1]) - start
    return None


def child_rss(text: str) -> float | None:
    """The child's last reported peak RSS."""
    found = [float(line.split()[1]) for line in text.splitlines() if line.startswith("rss ")]
    return found[-1] if found else None


def child_cpu(text: str) -> float | None:
    """The child's CPU time at its first paint."""
    found = [float(line.split()[1]) for line in text.splitlines() if line.startswith("cpu ")]
    return found[0] if found else None


def child_loaded(text: str) -> list[str]:
    """Which of ``NOT_BEFORE_PAINT`` the child had loaded at its first paint."""
    for line in text.splitlines():
        if line.startswith("loaded "):
            return [m for m in line.split()[1].split(",") if m != "-"]
    return []


def startup_rounds(homes: dict[str, Path], runs: int) -> dict[str, dict[str, Any]]:
    """``runs`` rounds of the floor and one start-up per home, in an order that rotates
    each round, so that every series meets the same machine (others share it). Per
    series: the samples of spawn to painted (the parent's clock) and, for start-ups,
    the child's stages (imports / ``app.main`` until shown / first paint / until the
    work left for after the first paint is done), peak RSS and the modules of
    ``NOT_BEFORE_PAINT`` loaded at the first paint; for all, the CPU time to the first
    paint and, per round, spawn to painted less the floor's of the same round."""
    series: dict[str, dict[str, Any]] = {"floor": {"painted": [], "cpu": []}}
    for name in homes:
        keys = ("painted", "imported", "shown", "paint", "settled", "cpu", "over_floor")
        series[name] = {key: [] for key in keys}
        series[name].update(rss=[], loaded=set())
    order = ["floor", *homes]
    for round_number in range(runs):
        shift = round_number % len(order)
        painted: dict[str, float] = {}
        for name in order[shift:] + order[:shift]:
            if name == "floor":
                _, seen, text = run_child(["floor"])
                if "painted" in seen:
                    series["floor"]["painted"].append(seen["painted"])
                    series["floor"]["cpu"].append(child_cpu(text) or 0.0)
                    painted["floor"] = seen["painted"]
                else:
                    print(f"floor child failed:\n{text[-500:]}", file=sys.stderr)
                continue
            start, seen, text = run_child(["window", str(homes[name]), ""])
            labels = ("imported", "built", "painted", "settled")
            stamps = [child_stamp(text, label, start) for label in labels]
            if "painted" not in seen or None in stamps:
                print(f"start-up child failed:\n{text.strip()[-800:]}", file=sys.stderr)
                continue
            imported, built, done, settled = (stamp or 0.0 for stamp in stamps)
            one = series[name]
            one["painted"].append(seen["painted"])
            one["imported"].append(imported)
            one["shown"].append(built - imported)
            one["paint"].append(done - built)
            one["settled"].append(settled - done)
            one["rss"].append(child_rss(text) or 0.0)
            one["cpu"].append(child_cpu(text) or 0.0)
            one["loaded"].update(child_loaded(text))
            painted[name] = seen["painted"]
        for name in homes:
            if name in painted and "floor" in painted:
                series[name]["over_floor"].append(painted[name] - painted["floor"])
    return series


def spread(samples: list[float]) -> str:
    """``median (min-max) ms``."""
    if not samples:
        return "n/a"
    ms = [sample * 1000 for sample in samples]
    return f"{_median(ms):.0f} ms ({min(ms):.0f}-{max(ms):.0f})"


def compile_bytecode() -> str:
    """Compile the virtual environment's packages and ikgui to bytecode first, as an
    installed application is: this environment may set ``PYTHONDONTWRITEBYTECODE``,
    and then every start would compile whatever is not compiled yet."""
    import subprocess
    import sysconfig

    started = time.perf_counter()
    folders = [sysconfig.get_paths()["purelib"], str(ROOT / "ikgui")]
    done = subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-j", "0", *folders],
        capture_output=True,
        text=True,
    )
    outcome = "" if done.returncode == 0 else " (some files did not compile)"
    return (
        f"bytecode compiled first{outcome}: compileall of {' and '.join(folders)} "
        f"({time.perf_counter() - started:.1f} s); PYTHONDONTWRITEBYTECODE="
        f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')} in this environment"
    )


def _median(values: list[float]) -> float:
    import statistics

    return statistics.median(values)


# -- the parent: the window in this process ------------------------------------------------
class Results:
    def __init__(self) -> None:
        self.values: dict[str, float | None] = {}
        self.notes: list[str] = []


async def in_callback(fn: Callable[[], T]) -> T:
    """Run ``fn`` as a plain loop callback, not inside a task, so the Qt events it
    processes may run asyncio callbacks (and task steps) without re-entering a task."""
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def run() -> None:
        try:
            future.set_result(fn())
        except BaseException as exc:  # handed to the awaiting coroutine
            future.set_exception(exc)

    loop.call_soon(run)
    return await future


async def quiet(window: MainWindow, timeout: float = 10.0) -> None:
    import asyncio

    deadline = time.monotonic() + timeout
    while any(not t.done() for t in window._tasks) or window.session.streams:
        if time.monotonic() > deadline:
            raise TimeoutError("the window's tasks did not finish")
        await asyncio.sleep(0.02)


async def window_benchmarks(
    home: Path, ids: dict[str, str], results: Results, streaming_only: bool = False
) -> None:
    import asyncio

    from ikgui.app.root import build_window
    from ikgui.ui.loop import application

    app = application()
    window = build_window(home, check_timeout=3.0)
    window.show()
    try:
        await quiet(window)
        await in_callback(app.processEvents)
        if window.current_id != ids["other"]:
            await in_callback(lambda: window.open_conversation(ids["other"]))
        if not streaming_only:
            await switching(window, app, ids, results)
        else:  # the start-up's warm-up thread (HTTP stack, TLS context) ends meanwhile
            await asyncio.sleep(1.5)
        await streaming(window, results)
        await streaming(window, results, "again: ")
        if streaming_only:
            return
        await in_callback(lambda: sidebar(window, app, results))
        await asyncio.sleep(0.05)
        results.values["rss_self"] = max_rss_mb()
        await in_callback(lambda: costs(results))
    finally:
        await window.shutdown()
        window.close()


def switch(window: MainWindow, app: QApplication, conv_id: str) -> dict[str, float]:
    """One switch, timed: (open, show_events, sidebar.set_current, repaint, the rest)."""
    spent = {"show": 0.0, "select": 0.0}
    view, sidebar = window.scrollback, window.sidebar
    show, select = view.show_events, sidebar.set_current

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args)
            finally:
                spent[name] += time.perf_counter() - started

        return wrapper

    # Instance attributes: the window looks these up at each call.
    view.show_events = timed("show", show)  # type: ignore[method-assign]
    sidebar.set_current = timed("select", select)  # type: ignore[method-assign]
    try:
        t0 = time.perf_counter()
        window.open_conversation(conv_id)
        t1 = time.perf_counter()
        view.viewport().repaint()
        t2 = time.perf_counter()
        app.processEvents()  # the rest of the window (sidebar selection, status bar)
        t3 = time.perf_counter()
    finally:
        del view.show_events
        del sidebar.set_current
    assert window.current_id == conv_id, window.current_id
    return {
        "total": t2 - t0,
        "open": t1 - t0,
        "show": spent["show"],
        "select": spent["select"],
        "paint": t2 - t1,
        "rest": t3 - t2,
    }


async def switching(
    window: MainWindow, app: QApplication, ids: dict[str, str], results: Results
) -> None:
    import asyncio

    from ikgui.domain.state.replay import replay_conversation

    big, back, chain = [], [], []
    for _ in range(SWITCHES):
        big.append(await in_callback(lambda: switch(window, app, ids["big"])))
        await asyncio.sleep(0.02)
        back.append(await in_callback(lambda: switch(window, app, ids["other"])))
        await asyncio.sleep(0.02)
    for _ in range(3):
        chain.append(await in_callback(lambda: switch(window, app, ids["chain"])))
        await asyncio.sleep(0.02)
        await in_callback(lambda: switch(window, app, ids["other"]))
        await asyncio.sleep(0.02)
    replays = []
    for _ in range(3):
        started = time.perf_counter()
        state = replay_conversation(window.store, ids["big"])
        replays.append(time.perf_counter() - started)
    shown = len(state.scrollback)

    def med(rows: list[dict[str, float]], key: str) -> float:
        return _median([r[key] for r in rows])

    v = results.values
    v["switch_big"] = med(big, "total")
    v["switch_back"] = med(back, "total")
    v["switch_chain"] = med(chain, "total")
    for name, rows, label in ((ids["big"], big, "big"), (ids["chain"], chain, "chain")):
        extra = (
            f" [replay_conversation alone {_median(replays) * 1000:.0f} ms, {shown:,} events shown]"
            if label == "big"
            else ""
        )
        results.notes.append(
            f"switch to {name} (median of {len(rows)}): open_conversation "
            f"{med(rows, 'open') * 1000:.0f} ms = replay and the rest "
            f"{(med(rows, 'open') - med(rows, 'show') - med(rows, 'select')) * 1000:.0f} ms"
            f"{extra} + scrollback.show_events {med(rows, 'show') * 1000:.0f} ms + "
            f"sidebar.set_current {med(rows, 'select') * 1000:.1f} ms; scrollback repaint "
            f"{med(rows, 'paint') * 1000:.1f} ms; then the rest of the window "
            f"{med(rows, 'rest') * 1000:.1f} ms (not counted); first switch "
            f"{rows[0]['total'] * 1000:.0f} ms"
        )


async def streaming(window: MainWindow, results: Results, label: str = "") -> None:
    """One reply of ``DELTAS`` deltas into a new conversation; figures go to
    ``results.values`` with ``label`` in front of their names."""
    import asyncio
    from itertools import pairwise

    from PySide6.QtCore import Qt, QTimer

    await asyncio.wait_for(asyncio.shield(window.run_line("/new")), 10)
    await quiet(window)
    _, expected = sse_body(DELTAS)
    stamps: list[float] = []
    facts: list[tuple[str, float]] = []  # the other session facts, in order
    listening = True

    profiler = _profiler(label)

    def on_fact(fact: SessionEvent) -> None:
        if listening and fact.name == "delta_received":
            stamps.append(time.perf_counter())
        elif listening:
            events = [e for e, _ in getattr(fact, "appended", ())]  # (a change's new events)
            kind = events[-1].kind if events else ""
            facts.append((f"{fact.name}:{kind}".rstrip(":"), time.perf_counter()))

    window.session.subscribe(on_fact)
    writer = window.scrollback._writer
    appends: list[tuple[float, float, int]] = []  # (when, seconds, deltas so far)
    original = writer.append

    def timed_append(item: Item, text: str) -> None:
        started = time.perf_counter()
        original(item, text)
        appends.append((started, time.perf_counter() - started, len(stamps)))

    writer.append = timed_append  # type: ignore[method-assign]
    renders: list[float] = []
    update = window.scrollback.update_event

    def timed_update(event: Event) -> None:
        started = time.perf_counter()
        update(event)
        renders.append(time.perf_counter() - started)

    window.scrollback.update_event = timed_update  # type: ignore[method-assign]
    import gc

    collections: list[tuple[float, float, int]] = []  # (when, seconds, generation)
    gc_started = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_started[0] = time.perf_counter()
        else:
            now = time.perf_counter()
            collections.append((gc_started[0], now - gc_started[0], info["generation"]))

    gc.callbacks.append(on_gc)
    ticks: list[float] = []
    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(lambda: ticks.append(time.perf_counter()))
    ticker.start()
    try:
        await asyncio.sleep(0.1)
        started = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        task = window.run_line("go")
        try:
            await asyncio.wait_for(asyncio.shield(task), 90)
        except TimeoutError:
            window.stop()
            results.notes.append("streaming: the reply did not finish within 90 s (stopped)")
        finished = time.perf_counter()
        await asyncio.sleep(0.2)  # the final render and paint are in the measured window
        if profiler is not None:
            _write_profile(profiler)
    finally:
        ticker.stop()
        listening = False
        del writer.append
        del window.scrollback.update_event
        gc.callbacks.remove(on_gc)
    v: dict[str, float | None] = {}
    v["stream_total"] = finished - started
    v["final"] = sum(renders) if renders else None
    shown = window.session.state.scrollback
    reply = shown[-1].content if shown else ""
    if len(stamps) != DELTAS or reply != expected:
        results.notes.append(
            f"streaming: got {len(stamps):,} deltas and a reply of {len(reply):,} chars "
            f"(expected {DELTAS:,} and {len(expected):,}); feedback: "
            f"{window.feedback.text()!r}"
        )
    # From the last tick before the send: a stall right at the start counts too.
    during = [t for t in ticks if t < started][-1:] + [t for t in ticks if t >= started]
    late = sorted(max(0.0, b - a - TICK_MS / 1000) for a, b in pairwise(during))
    if late:
        v["late_p50"] = late[len(late) // 2]
        v["late_p99"] = late[min(len(late) - 1, int(len(late) * 0.99))]
        v["late_max"] = late[-1]
    mean_first = mean_last = float("nan")
    if len(stamps) >= 2000:
        # Per delta: the median interval between consecutive deltas, which is the work
        # per delta (they arrive in bursts of hundreds per network read) and is not
        # moved by the odd paint, flush or garbage collection falling in one window.
        first = _median([b - a for a, b in pairwise(stamps[:1000])])
        last = _median([b - a for a, b in pairwise(stamps[-1000:])])
        v["delta_first"], v["delta_last"] = first, last
        v["delta_ratio"] = last / first if first else None
        v["delta_span"] = stamps[-1] - stamps[0]
        mean_first = (stamps[999] - stamps[0]) / 999
        mean_last = (stamps[-1] - stamps[-1000]) / 999

    def ms(t: float) -> str:  # a stall may begin at the last tick before the send
        return f"{max(0.0, t - started) * 1000:.0f}"

    gaps = [(a, b - a) for a, b in pairwise(during) if b - a > STALL]
    gen2 = [(w, d) for w, d, g in collections if g == 2 and w >= started]
    first_delta = stamps[0] if stamps else finished
    before = [g for a, g in gaps if a < first_delta]
    stored = next((t for n, t in facts if n == "changed:assistant"), None)
    results.notes.append(
        f"{label}streaming timeline (ms after run_line): user event and growing reply stored by "
        f"{ms(stored) if stored else '?'}, first delta {ms(first_delta)}, "
        f"last delta {ms(stamps[-1]) if stamps else '?'}, finished {ms(finished)}; "
        f"{len(during)} ticks; the loop stalled > {STALL * 1000:.0f} ms "
        f"{len(gaps)} times (at +ms: stall ms) "
        + ", ".join(f"{ms(a)}: {g * 1000:.0f}" for a, g in gaps)
        + f"; longest stall before the first delta {max(before, default=0) * 1000:.0f} ms"
    )
    results.notes.append(
        f"{label}streaming: per delta, wall clock including stalls: "
        f"{mean_first * 1e6:.0f} µs over the first 1,000, {mean_last * 1e6:.0f} µs over the "
        f"last 1,000; {len(appends)} scrollback appends (the bridge's 40 ms flushes, each "
        f"rendering the blocks it finished) of "
        f"{_mean_ms(appends)} ms on average, worst "
        f"{max((a[1] for a in appends), default=0) * 1000:.1f} ms; the end, rendering what "
        f"was not rendered (scrollback.update_event) {sum(renders) * 1000:.1f} ms for a "
        f"reply of {len(reply):,} chars; "
        f"gen-2 garbage collections during the stream: {len(gen2)}"
        + (f" ({', '.join(f'{d * 1000:.0f} ms at +{ms(w)}' for w, d in gen2)})" if gen2 else "")
    )
    results.values.update({f"{label}{name}": value for name, value in v.items()})


def _profiler(label: str) -> Any:
    """A profiler for the first reply's start when ``--profile`` asked for one."""
    if label or not PROFILE:
        return None
    import cProfile

    return cProfile.Profile()


def _write_profile(profiler: Any) -> None:
    """Stop ``profiler`` and write its figures."""
    import pstats

    profiler.disable()
    profiler.dump_stats(f"{PROFILE[0]}.prof")  # (for pstats or snakeviz)
    with PROFILE[0].open("w", encoding="utf-8") as out:
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("cumulative").print_stats(60)
        stats.sort_stats("tottime").print_stats(40)


def costs(results: Results) -> None:
    """Two costs that show up as event-loop stalls: a full garbage collection with the
    window open (and with the start-up objects frozen), and making an httpx client,
    which ``Providers`` does for every send."""
    import gc

    import httpx

    tracked = len(gc.get_objects())
    started = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - started
    gc.freeze()
    started = time.perf_counter()
    gc.collect()
    frozen = time.perf_counter() - started
    gc.unfreeze()
    clients = []
    for _ in range(3):
        started = time.perf_counter()
        client = httpx.AsyncClient()
        clients.append(time.perf_counter() - started)
        del client
    results.notes.append(
        f"a full gc.collect() with the window open: {full * 1000:.0f} ms ({tracked:,} "
        f"tracked objects); after gc.freeze(): {frozen * 1000:.1f} ms. "
        f"httpx.AsyncClient() construction (SSL context): median "
        f"{_median(clients) * 1000:.0f} ms"
    )


def _mean_ms(rows: list[tuple[float, float, int]]) -> str:
    if not rows:
        return "-"
    return f"{sum(r[1] for r in rows) / len(rows) * 1000:.2f}"


def sidebar(window: MainWindow, app: QApplication, results: Results) -> None:
    model, view = window.sidebar.model, window.sidebar.view
    started = time.perf_counter()
    model.fetch_all()
    fetched = time.perf_counter()
    app.processEvents()  # the view lays the new rows out
    view.viewport().repaint()
    laid_out = time.perf_counter()
    bar = view.verticalScrollBar()
    bar.setValue(0)
    view.viewport().repaint()
    steps: list[float] = []
    value = 0
    scrolled = time.perf_counter()
    while value < bar.maximum() and len(steps) < 100_000:
        value = min(bar.maximum(), value + bar.pageStep())
        step = time.perf_counter()
        bar.setValue(value)
        view.viewport().repaint()
        steps.append(time.perf_counter() - step)
    done = time.perf_counter()
    rows = model.rowCount()
    bottom = view.visualRect(model.index(rows - 1, 0)).intersects(view.viewport().rect())
    v = results.values
    v["fetch_all"] = fetched - started
    v["sidebar_layout"] = laid_out - fetched
    v["scroll_total"] = done - scrolled
    v["scroll_step"] = _median(steps) if steps else None
    v["scroll_step_max"] = max(steps) if steps else None
    results.notes.append(
        f"sidebar: {rows:,} top-level rows after fetch_all; relayout + first repaint "
        f"{(laid_out - fetched) * 1000:.0f} ms; {len(steps)} page steps of "
        f"{bar.pageStep()} px, median {(v['scroll_step'] or 0) * 1000:.2f} ms, max "
        f"{(v['scroll_step_max'] or 0) * 1000:.1f} ms; the last row shown at the end: {bottom}"
    )


# -- set-up and the table ---------------------------------------------------------------------
def prepare(db: Path, folder: Path, results: Results) -> Path:
    import shutil

    data = folder / "data"
    data.mkdir()
    started = time.perf_counter()
    shutil.copyfile(db, data / "ikgui.db")
    for suffix in ("-wal",):
        extra = db.with_name(db.name + suffix)
        if extra.exists():
            shutil.copyfile(extra, data / ("ikgui.db" + suffix))
    os.sync()  # no write-back of the copy running under the measurements
    results.notes.append(
        f"database copied to a temporary folder in {time.perf_counter() - started:.1f} s "
        f"({db.stat().st_size / 1e6:.0f} MB)"
    )
    return data / "ikgui.db"


def make_home(folder: Path, name: str, database: Path, url: str, last: str | None) -> Path:
    home = folder / name
    home.mkdir()
    (home / "ikgui.db").symlink_to(database)
    (home / "config.toml").write_text(
        f"""[defaults]
provider = "local"
model = "mock-gpt"

[providers.local]
kind = "openai"
base_url = "{url}/v1"
api_key_env = "{KEY_ENV}"
""",
        encoding="utf-8",
    )
    if last is not None:
        (home / "window.ini").write_text(f"[General]\nlast_conversation={last}\n")
    return home


def closed_url() -> str:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def pick_ids(database: Path) -> dict[str, str]:
    import sqlite3

    from make_db import BIG_ID, CHAIN_IDS

    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        (newest,) = conn.execute(
            "SELECT id FROM conversation WHERE trashed_at IS NULL ORDER BY updated_at DESC LIMIT 1"
        ).fetchone()
        (other, count) = conn.execute(
            "SELECT id, (SELECT count(*) FROM event WHERE conversation_id = c.id) FROM "
            "conversation c WHERE trashed_at IS NULL AND parent_id IS NULL AND id != ? "
            "ORDER BY updated_at DESC LIMIT 1",
            (BIG_ID,),
        ).fetchone()
    finally:
        conn.close()
    return {
        "big": BIG_ID,
        "chain": CHAIN_IDS[-1],
        "newest": newest,
        "other": other,
        "other_events": str(count),
    }


def start_server() -> tuple[subprocess.Popen[str], str]:
    return start_child(Path(__file__).resolve(), "server", str(DELTAS))


def start_child(script: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """``script --child ARGS`` as a wire server in its own process; its URL."""
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, str(script), "--child", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    LIVE.append(proc)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit("the wire server did not start")
    return proc, url


def stop_server(proc: subprocess.Popen[str]) -> None:
    import subprocess

    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()
    LIVE.remove(proc)


def row(measure: str, figure: float | None, unit: str, target: float | None) -> str:
    """One line of the table; ``figure`` in seconds for ms/µs, else in ``unit``."""
    if figure is None:
        shown, verdict = "n/a", "FAILED"
    else:
        scale = {"ms": 1e3, "µs": 1e6}.get(unit, 1)
        number = figure * scale
        shown = f"{number:,.2f} {unit}" if number < 10 else f"{number:,.0f} {unit}"
        if unit == "x":
            shown = f"{figure:.2f}x"
        verdict = "" if target is None else ("ok" if figure <= target else "SLOW")
    if target is None:
        goal = "-"
    elif unit == "ms":
        goal = f"≤ {target * 1000:g} ms"
    elif unit == "x":
        goal = f"≈ 1 (≤ {target:g})"
    else:
        goal = f"≤ {target:g} {unit}"
    return f"{measure:<58} {shown:>12}  {goal:<14} {verdict}"


def table(v: dict[str, float | None], runs: int, ids: dict[str, str]) -> list[str]:
    big = ids["big"]
    lines = [
        f"{'measure':<58} {'figure':>12}  {'target':<14} verdict",
        "-" * 95,
        row(f"1. start-up to painted window (median of {runs})", v.get("startup"), "ms", 0.35),
        row("   floor: PySide6 + empty QMainWindow painted", v.get("floor"), "ms", None),
        row("   start-up less the floor of the same round", v.get("startup_over"), "ms", None),
        row("   ...interpreter + imports (ikgui.app.root)", v.get("startup_imported"), "ms", None),
        row("   ...app.main until window.show() returns", v.get("startup_build"), "ms", None),
        row("   ...then the first paint", v.get("startup_paint"), "ms", None),
        row("   ...then the work left for after it", v.get("startup_settled"), "ms", None),
        row(
            f"   start-up when the last conversation is {ids['other']}",
            v.get("startup_small"),
            "ms",
            None,
        ),
        row(f"2. switch to {big} (10,000 events) until painted", v.get("switch_big"), "ms", 0.100),
        row(f"   switch back to {ids['other']}", v.get("switch_back"), "ms", None),
        row(
            f"   switch to {ids['chain']} (leaf of a 50-deep fork chain)",
            v.get("switch_chain"),
            "ms",
            None,
        ),
        row(f"3. streaming {DELTAS:,} deltas: loop lateness p50", v.get("late_p50"), "ms", None),
        row("   loop lateness p99 (first reply of the process)", v.get("late_p99"), "ms", 0.016),
        row("   loop lateness max", v.get("late_max"), "ms", None),
        row("   per delta, first 1,000 (median interval)", v.get("delta_first"), "µs", None),
        row("   per delta, last 1,000 (median interval)", v.get("delta_last"), "µs", None),
        row("   last / first", v.get("delta_ratio"), "x", 1.5),
        row("   the end: rendering the rest (scrollback.update_event)", v.get("final"), "ms", None),
        row("   time to finish the reply (send to done)", v.get("stream_total"), "ms", None),
        row("   again, a second reply: loop lateness p99", v.get("again: late_p99"), "ms", 0.016),
        row("   again: loop lateness max", v.get("again: late_max"), "ms", None),
        row("   again: per delta, first 1,000", v.get("again: delta_first"), "µs", None),
        row("   again: per delta, last 1,000", v.get("again: delta_last"), "µs", None),
        row("   again: the end (scrollback.update_event)", v.get("again: final"), "ms", None),
        row("   again: time to finish the reply", v.get("again: stream_total"), "ms", None),
        row("4. sidebar model.fetch_all() (10,000 conversations)", v.get("fetch_all"), "ms", None),
        row("   relayout of the list + first repaint", v.get("sidebar_layout"), "ms", None),
        row("   scroll top to bottom, page steps, total", v.get("scroll_total"), "ms", None),
        row("   per page step (median)", v.get("scroll_step"), "ms", None),
        row("   per page step (max)", v.get("scroll_step_max"), "ms", None),
        row("5. peak RSS of this process after all of the above", v.get("rss_self"), "MB", 250),
        row(f"   peak RSS, fresh process: open + switch to {big}", v.get("rss_child"), "MB", 250),
        row("   peak RSS, fresh process: start-up only", v.get("rss_startup"), "MB", None),
    ]
    return lines


def watchdog(seconds: float) -> None:
    """After ``seconds``: print where the main thread is, kill the children, remove the
    temporary folder and exit."""
    import faulthandler
    import shutil
    import threading

    def fire() -> None:
        print(f"\nbench_window: not done after {seconds:g} s; giving up", file=sys.stderr)
        faulthandler.dump_traceback(all_threads=True)
        for thing in list(LIVE):
            if isinstance(thing, Path):
                shutil.rmtree(thing, ignore_errors=True)
            else:
                thing.kill()
        os._exit(2)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()


def parent_main() -> int:
    import argparse
    import faulthandler
    import subprocess
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=DEFAULT_DB)
    parser.add_argument("--runs", type=int, default=11, help="start-up rounds (median)")
    parser.add_argument(
        "--startup-only", action="store_true", help="only the start-up and the floor"
    )
    parser.add_argument(
        "--streaming-only", action="store_true", help="only the window's two streamed replies"
    )
    parser.add_argument("--code", type=Path, help="import ikgui from this checkout")
    parser.add_argument("--profile", type=Path, help="cProfile the first reply")
    parser.add_argument("--timeout", type=float, default=300, help="abort after this many s")
    args = parser.parse_args()
    if args.code is not None:  # (imported now: make_db puts this checkout first)
        sys.path.insert(0, str(args.code.resolve()))
        import ikgui
    PROFILE[:] = [args.profile] if args.profile else []
    watchdog(args.timeout)
    faulthandler.dump_traceback_later(args.timeout + 30, exit=True)  # if the GIL is stuck
    os.environ[KEY_ENV] = "bench"
    if not args.db.exists():
        print(f"{args.db} is missing; making it (about 20 s)...", flush=True)
        args.db.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "make_db.py"), str(args.db)], check=True
        )
    results = Results()
    v = results.values
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ikgui-bench-window-") as tmp:
        folder = Path(tmp)
        LIVE.append(folder)
        database = prepare(args.db, folder, results)
        ids = pick_ids(database)
        results.notes.append(
            f"start-up opens the newest conversation, {ids['newest']}; the small one is "
            f"{ids['other']} ({ids['other_events']} events)"
        )
        nowhere = closed_url()
        import ikgui

        results.notes.append(f"ikgui imported from {Path(ikgui.__file__).parent}")
        if args.streaming_only:
            return in_process(folder, database, ids, results, args, began)
        results.notes.append(compile_bytecode())
        print("start-up subprocesses...", flush=True)
        homes = {
            "startup": make_home(folder, "startup", database, nowhere, None),
            "small": make_home(folder, "small", database, nowhere, ids["other"]),
        }
        startup_results(startup_rounds(homes, args.runs), args.runs, results)
        if args.startup_only:
            return finish(results, args.runs, ids, began, startup_only=True)
        memory_home = make_home(folder, "memory", database, nowhere, ids["other"])
        _, _, text = run_child(["window", str(memory_home), ids["big"]])
        v["rss_child"] = child_rss(text)
        if v["rss_child"] is None:
            print(f"memory child failed:\n{text[-1000:]}", file=sys.stderr)
        return in_process(folder, database, ids, results, args, began)


def in_process(
    folder: Path, database: Path, ids: dict[str, str], results: Results, args: Any, began: float
) -> int:
    """Sections 2-4: the window in this process (3 only with ``--streaming-only``)."""
    import asyncio

    print("the window in this process...", flush=True)
    server, url = start_server()
    try:
        home = make_home(folder, "window", database, url, ids["other"])
        from ikgui.ui.loop import new_loop

        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            benchmarks = window_benchmarks(home, ids, results, args.streaming_only)
            loop.run_until_complete(asyncio.wait_for(benchmarks, 120))
    except Exception as exc:  # report what was measured before it
        import traceback

        traceback.print_exc()
        results.notes.append(f"the in-process benchmarks stopped early: {exc!r}")
    finally:
        stop_server(server)
    if args.streaming_only:
        return finish(results, args.runs, ids, began, only=("3.", "4."))
    return finish(results, args.runs, ids, began)


def startup_results(series: dict[str, dict[str, Any]], runs: int, results: Results) -> None:
    v = results.values
    main, small, floor = series["startup"], series["small"], series["floor"]
    if main["painted"]:
        v["startup"] = _median(main["painted"])
        for key, name in (("imported", "imported"), ("shown", "build"), ("paint", "paint")):
            v[f"startup_{name}"] = _median(main[key])
        v["startup_settled"] = _median(main["settled"])
        v["rss_startup"] = _median(main["rss"])
        if main["over_floor"]:
            v["startup_over"] = _median(main["over_floor"])
    if small["painted"]:
        v["startup_small"] = _median(small["painted"])
    if floor["painted"]:
        v["floor"] = _median(floor["painted"])
    loaded = sorted(main["loaded"] | small["loaded"])
    results.notes.append(
        f"start-up to the first paint, {runs} rounds interleaved with the floor, median "
        f"(range): {spread(main['painted'])}; on the small conversation "
        f"{spread(small['painted'])}; the floor {spread(floor['painted'])}; start-up less "
        f"the floor of the same round {spread(main['over_floor'])}, on the small one "
        f"{spread(small['over_floor'])}. CPU time (user + system) to the first paint: "
        f"{spread(main['cpu'])}, on the small one {spread(small['cpu'])}, the floor "
        f"{spread(floor['cpu'])}. Loaded at the first paint, of "
        f"{', '.join(NOT_BEFORE_PAINT)}: {', '.join(loaded) or 'none'}"
    )


def finish(
    results: Results,
    runs: int,
    ids: dict[str, str],
    began: float,
    startup_only: bool = False,
    only: tuple[str, str] | None = None,
) -> int:
    import faulthandler

    lines = table(results.values, runs, ids)
    if startup_only:  # the header, section 1 and the start-up's peak RSS
        section = next(i for i, line in enumerate(lines) if line.startswith("2."))
        lines = lines[:section] + lines[-1:]
    if only is not None:  # the header and the lines from section only[0] to only[1]
        start = next(i for i, line in enumerate(lines) if line.startswith(only[0]))
        stop = next(i for i, line in enumerate(lines) if line.startswith(only[1]))
        lines = lines[:2] + lines[start:stop]
    print()
    print("\n".join(lines))
    print()
    for note in results.notes:
        print(f"- {note}")
    print(f"- whole benchmark {time.perf_counter() - began:.0f} s")
    faulthandler.cancel_dump_traceback_later()
    return 1 if any(line.endswith("FAILED") for line in lines) else 0


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        kind = sys.argv[2]
        if kind == "window":
            child_window(sys.argv[3], sys.argv[4])
        elif kind == "floor":
            child_floor()
        elif kind == "server":
            child_server(int(sys.argv[3]))
        return 0
    return parent_main()


if __name__ == "__main__":
    sys.exit(main())
