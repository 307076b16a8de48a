"""SQLite and PostgreSQL side by side on the benchmark database, in one run (issue 14).

    python benchmarks/bench_stores.py --sqlite /tmp/bench/ikgui.db --pg-server
    python benchmarks/bench_stores.py --sqlite /tmp/bench/ikgui.db --pg postgresql://u@h/db

The SQLite database (10,000 conversations, 1,000,000 events, made by ``make_db.py``) is
copied to a temporary folder first and never used in place. ``--pg-server`` starts a
PostgreSQL server of its own (``tests/support/pg_server.py``, a temporary directory,
fsync off as in the tests) and loads the copy into it — with ``load_pg.py`` (COPY) or,
with ``--load cli``, with ``ikgui db copy --to URL``, timed. ``--pg URL`` uses an
existing database, loading it first if it has no conversations.

Measured for each store, the same way:

- ``ikgui conv list`` (all rows) as a user runs it: a new process, ``IKGUI_HOME`` and,
  for PostgreSQL, ``IKGUI_DATABASE_URL``; median wall time of ``--runs``; beside it the
  floor (``python -c pass``) and, for PostgreSQL, what importing psycopg and finding the
  keyring (where the database password may be) cost a new process;
- in a child process per store: the two-word searches of ``make_db.SEARCH_QUERIES``
  (``store.search``), the replay of the 10,000-event conversation
  (``replay_conversation``, and ``store.events`` alone), medians of warm runs;
- in the same child, the real window (offscreen) switching to that conversation until
  the scrollback is repainted (``bench_window.switch``, back and forth with a small one).

Prints a Markdown table with the issue's targets (for PostgreSQL) and notes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from make_db import BIG_ID, SEARCH_QUERIES  # noqa: E402

DEFAULT_DB = Path("/tmp/bench/ikgui.db")
URL_ENV = "IKGUI_DATABASE_URL"
#: Issue 14's targets on PostgreSQL, in seconds.
TARGETS = {"conv_list": 0.25, "search": 0.050, "replay": 0.100, "switch": 0.150}


def median_s(fn: Callable[[], object], runs: int) -> float:
    """The median wall time of ``runs`` warm calls (after one cold call)."""
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


# -- the child: one store, in-process -------------------------------------------------
def child(kind: str, home: str, location: str, other: str, runs: int, switches: int) -> None:
    """Search, replay and the window's switch on one store; prints ``RESULT {json}``."""
    from ikgui.domain.state.replay import replay_conversation
    from ikgui.storage import open_store

    if kind == "postgresql":
        os.environ[URL_ENV] = location
    figures: dict[str, Any] = {}
    store: Any = open_store(Path(location) if kind == "sqlite" else location)
    try:
        figures["store"] = store.describe() if hasattr(store, "describe") else location
        for words in SEARCH_QUERIES:
            hits = store.search(words)
            figures[f"search:{words}"] = median_s(lambda w=words: store.search(w), runs)
            figures[f"hits:{words}"] = len(hits)
        state = replay_conversation(store, BIG_ID)
        figures["replay_items"] = len(state.scrollback)
        figures["replay"] = median_s(lambda: replay_conversation(store, BIG_ID), runs)
        figures["events"] = median_s(lambda: store.events(BIG_ID), runs)
    finally:
        store.close()
    try:
        figures.update(window_switch(Path(home), kind, other, switches))
    except Exception as exc:  # report the rest
        figures["switch_error"] = repr(exc)
    print("RESULT " + json.dumps(figures), flush=True)


def window_switch(home: Path, kind: str, other: str, switches: int) -> dict[str, Any]:
    import asyncio

    from ikgui.ui.loop import new_loop

    loop = new_loop()
    asyncio.set_event_loop(loop)
    with loop:
        return loop.run_until_complete(
            asyncio.wait_for(_switching(home, kind, other, switches), 180)
        )


async def _switching(home: Path, kind: str, other: str, switches: int) -> dict[str, Any]:
    from bench_window import in_callback, quiet

    from ikgui.app.root import build_window
    from ikgui.ui.loop import application

    app = application()
    window = build_window(home, check_timeout=3.0)
    window.show()
    figures: dict[str, Any] = {}
    try:
        opened = getattr(window.store, "kind", "sqlite")
        if opened != kind:  # (the store choice is not wired: do not measure the wrong one)
            figures["switch_error"] = f"the window opened a {opened} store, not {kind}"
            return figures
        await quiet(window)
        await in_callback(app.processEvents)
        if window.current_id != other:
            await in_callback(lambda: window.open_conversation(other))
        figures.update(await _switch_back_and_forth(window, app, other, switches))
    finally:
        try:
            await window.shutdown()
        except Exception as exc:  # (the figures stand; say so)
            figures["shutdown_error"] = repr(exc)
        window.close()
    return figures


async def _switch_back_and_forth(
    window: Any, app: Any, other: str, switches: int
) -> dict[str, Any]:
    import asyncio

    from bench_window import in_callback, switch

    big, back = [], []
    for _ in range(switches):
        big.append(await in_callback(lambda: switch(window, app, BIG_ID)))
        await asyncio.sleep(0.02)
        back.append(await in_callback(lambda: switch(window, app, other)))
        await asyncio.sleep(0.02)
    return {
        "switch": statistics.median(r["total"] for r in big),
        "switch_open": statistics.median(r["open"] for r in big),
        "switch_first": big[0]["total"],
        "switch_back": statistics.median(r["total"] for r in back),
    }


# -- the parent ---------------------------------------------------------------------------
def copy_sqlite(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    target = folder / "ikgui.db"
    shutil.copyfile(source, target)
    wal = source.with_name(source.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, folder / "ikgui.db-wal")
    os.sync()  # no write-back of the copy running under the measurements
    return target


def make_home(folder: Path, other: str, database: Path | None) -> Path:
    """A home with a provider that is never reached; the SQLite file only for SQLite (so
    that a PostgreSQL run can never measure SQLite by mistake)."""
    from bench_window import closed_url

    folder.mkdir(parents=True, exist_ok=True)
    if database is not None and database.parent != folder:
        (folder / "ikgui.db").symlink_to(database)
    (folder / "config.toml").write_text(
        '[defaults]\nprovider = "local"\nmodel = "mock-gpt"\n\n[providers.local]\n'
        f'kind = "openai"\nbase_url = "{closed_url()}/v1"\napi_key_env = "IKGUI_BENCH_KEY"\n',
        encoding="utf-8",
    )
    (folder / "window.ini").write_text(f"[General]\nlast_conversation={other}\n")
    return folder


def conv_list(home: Path, url: str | None, runs: int) -> tuple[float, int]:
    """Median wall time of ``ikgui conv list`` in a new process; rows it printed."""
    env = dict(os.environ, IKGUI_HOME=str(home))
    env.pop(URL_ENV, None)
    if url is not None:
        env[URL_ENV] = url
    command = [sys.executable, "-m", "ikgui", "conv", "list"]
    lines = [0]

    def once() -> None:
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=home)
        if done.returncode != 0:
            raise RuntimeError(f"ikgui conv list failed: {done.stderr.strip()[-500:]}")
        lines[0] = len(done.stdout.splitlines())

    return median_s(once, runs), lines[0]


def python_c(code: str, runs: int) -> float:
    """Median wall time of ``python -c code`` (the parts of a new process's start)."""
    return median_s(lambda: subprocess.run([sys.executable, "-c", code], check=True), runs)


def run_child(kind: str, home: Path, location: str, other: str, args: Any) -> dict[str, Any]:
    env = dict(os.environ, IKGUI_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    env.pop(URL_ENV, None)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, str(home)]
    command += [location, other, str(args.runs), str(args.switches)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[len("RESULT ") :])
            return result
    return {"error": f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-1500:]}"}


def load_postgres(sqlite: Path, home: Path, url: str, how: str) -> tuple[float, str]:
    """Load the SQLite copy into ``url``: (seconds, how)."""
    started = time.perf_counter()
    if how == "cli":
        env = dict(os.environ, IKGUI_HOME=str(home))
        env.pop(URL_ENV, None)
        command = [sys.executable, "-m", "ikgui", "db", "copy", "--to", url]
        subprocess.run(command, env=env, check=True, cwd=home)
        return time.perf_counter() - started, "`ikgui db copy --to URL`"
    from load_pg import load

    load(sqlite, url)
    return time.perf_counter() - started, "`benchmarks/load_pg.py` (COPY)"


def has_conversations(url: str) -> bool:
    import psycopg

    with psycopg.connect(url) as conn:
        found = conn.execute("SELECT to_regclass('conversation') IS NOT NULL").fetchone()
        if not (found and found[0]):
            return False
        row = conn.execute("SELECT EXISTS (SELECT 1 FROM conversation)").fetchone()
        return bool(row and row[0])


# -- the table ------------------------------------------------------------------------------
def _ms(value: Any) -> str:
    if not isinstance(value, int | float):
        return "n/a"
    return f"{value * 1000:.1f} ms" if value < 0.01 else f"{value * 1000:.0f} ms"


def table(sqlite: dict[str, Any], pg: dict[str, Any]) -> list[str]:
    """The Markdown table: one row per measure, SQLite and PostgreSQL side by side."""
    rows: list[tuple[str, str, str]] = [
        ("`ikgui conv list`, all rows, a new process", "conv_list", "conv_list"),
        ("  the floor: `python -c pass`", "floor", ""),
        ("  `python -c 'import psycopg'`", "floor_psycopg", ""),
        ("  `python -c 'import keyring; keyring.get_keyring()'`", "floor_keyring", ""),
    ]
    rows += [(f"two-word search `{w}`", f"search:{w}", "search") for w in SEARCH_QUERIES]
    rows += [
        (f"replay of {BIG_ID} (10,000 events), `replay_conversation`", "replay", "replay"),
        (f"  its events alone, `store.events('{BIG_ID}')`", "events", ""),
        (f"switch to {BIG_ID} in the window, until repainted", "switch", "switch"),
        ("  of which `open_conversation`", "switch_open", ""),
        ("  the first switch", "switch_first", ""),
        ("  switch back to a small conversation", "switch_back", ""),
    ]
    lines = [
        "| measure | SQLite | PostgreSQL | target (PostgreSQL) |",
        "|---|---|---|---|",
    ]
    for label, key, target_key in rows:
        target = TARGETS.get(target_key)
        figure = pg.get(key)
        verdict = ""
        if target is not None and isinstance(figure, int | float):
            verdict = " ok" if figure <= target else " **SLOW**"
        goal = f"≤ {target * 1000:g} ms" if target is not None else ""
        lines.append(f"| {label} | {_ms(sqlite.get(key))} | {_ms(figure)}{verdict} | {goal} |")
    return lines


def notes(sqlite: dict[str, Any], pg: dict[str, Any], extra: list[str]) -> list[str]:
    found = []
    for name, figures in (("SQLite", sqlite), ("PostgreSQL", pg)):
        store = figures.get("store", "?")
        hits = ", ".join(f"'{w}' {figures.get(f'hits:{w}', '?')}" for w in SEARCH_QUERIES)
        found.append(
            f"{name}: {store}; conv list printed {figures.get('conv_rows', '?')} lines; "
            f"search hits {hits}; replay {figures.get('replay_items', '?')} items"
        )
        for key in ("error", "switch_error", "shutdown_error"):
            if key in figures:
                found.append(f"{name} {key.replace('_', ' ')}: {figures[key]}")
    return found + extra


# -- the parent: main ---------------------------------------------------------------------
def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sqlite", type=Path, default=DEFAULT_DB, help="make_db.py's database")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--pg", metavar="URL", help="a PostgreSQL database (loaded if empty)")
    where.add_argument("--pg-server", action="store_true", help="start a server of our own")
    parser.add_argument("--load", choices=("fast", "cli"), default="fast")
    parser.add_argument("--runs", type=int, default=7, help="warm runs per median")
    parser.add_argument("--switches", type=int, default=7)
    return parser.parse_args(argv)


def measure(kind: str, home: Path, location: str, other: str, args: Any) -> dict[str, Any]:
    print(f"{kind}: conv list, search, replay, window switch...", flush=True)
    url = None if kind == "sqlite" else location
    figures: dict[str, Any] = {}
    try:
        figures["conv_list"], figures["conv_rows"] = conv_list(home, url, args.runs)
    except RuntimeError as exc:
        figures["error"] = str(exc)
    figures.update(run_child(kind, home, location, other, args))
    return figures


def parent(args: argparse.Namespace) -> int:
    from bench_window import pick_ids

    if not args.sqlite.exists():
        sys.exit(f"{args.sqlite} is missing: python benchmarks/make_db.py {args.sqlite}")
    extra: list[str] = []
    server = None
    with tempfile.TemporaryDirectory(prefix="ikgui-bench-stores-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        database = copy_sqlite(args.sqlite, folder / "sqlite")
        extra.append(f"SQLite copy made in {time.perf_counter() - started:.1f} s")
        other = pick_ids(database)["other"]
        sqlite_home = make_home(folder / "sqlite", other, database)
        pg_home = make_home(folder / "postgresql", other, None)
        try:
            if args.pg_server:
                from tests.support.pg_server import PgServer

                server = PgServer()
                url = server.create_database("ikgui_bench")
                extra.append(f"PostgreSQL server of our own: {server.bin_dir}, fsync off")
            else:
                url = args.pg
            if not has_conversations(url):
                print("loading the SQLite copy into PostgreSQL...", flush=True)
                seconds, how = load_postgres(database, sqlite_home, url, args.load)
                extra.append(f"loaded into PostgreSQL with {how} in {seconds:.0f} s")
            sqlite = measure("sqlite", sqlite_home, str(database), other, args)
            pg = measure("postgresql", pg_home, url, other, args)
            sqlite["floor"] = pg["floor"] = python_c("pass", args.runs)
            pg["floor_psycopg"] = python_c("import psycopg", args.runs)
            pg["floor_keyring"] = python_c("import keyring; keyring.get_keyring()", args.runs)
        finally:
            if server is not None:
                server.close()
    print()
    print("\n".join(table(sqlite, pg)))
    print()
    for note in notes(sqlite, pg, extra):
        print(f"- {note}")
    return 0


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        kind, home, location, other, runs, switches = sys.argv[2:8]
        child(kind, home, location, other, int(runs), int(switches))
        return 0
    return parent(parse(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
