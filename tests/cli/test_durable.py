"""``ikgui run`` on a full disk keeps the reply; two senders on one conversation take turns.

The full disk is real: a 400 KiB tmpfs mounted in a user+mount namespace
(``unshare --user --map-root-user --mount``, no root needed) holds ``IKGUI_HOME``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.cli.test_run import local, sse, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer

__all__ = ["local", "wire_server", "wire_server_session"]

PIECES = [f"{i:05d} " + "all work and no play makes a reply " * 29 for i in range(1000)]  # 1 MB


@pytest.fixture
def spare_tmp(tmp_path: Path) -> Iterator[Path]:
    """The fallback folder for recovery files (``TMPDIR`` of the child process)."""
    folder = tmp_path / "spare-tmp"
    folder.mkdir()
    yield folder


def test_a_reply_that_cannot_be_saved_goes_to_a_recovery_file(
    cli: Cli, local: WireServer, spare_tmp: Path
) -> None:
    local.route("/v1/chat/completions", sse_reply("hi"))
    conv = cli.new_id("hello")  # the database exists, with room to spare for a little more
    local.route("/v1/chat/completions", sse_reply(*PIECES, pause=0.001))
    staged = cli.home.parent / "staged"
    subprocess.run(["cp", "-a", str(cli.home), str(staged)], check=True)
    python = shlex.quote(sys.executable)
    home = shlex.quote(str(cli.home))
    script = (
        f"mount -t tmpfs -o size=400k tmpfs {home} && cp -a {shlex.quote(str(staged))}/. {home} "
        f"&& {python} -m ikgui run -c {conv} 'tell me everything'; rc=$?; "
        f"cp -a {home}/. {shlex.quote(str(staged))}/; exit $rc"
    )
    env = dict(os.environ, IKGUI_HOME=str(cli.home), TMPDIR=str(spare_tmp))
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = "".join(PIECES)
    assert done.stdout == text + "\n", done.stderr  # it was printed as it came...
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1, done.stderr
    prefix = (
        f"Error: could not save the reply to {cli.home / 'ikgui.db'} "
        f"(the disk is full: no room left in {cli.home}); "
    )
    error = next(line for line in lines if line.startswith("Error: "))
    assert error.startswith(prefix + "its text is in "), done.stderr
    path = Path(error.removeprefix(prefix + "its text is in "))
    # ...and it survives: the disk of the database was full, so the spare folder has it.
    assert path.parent == spare_tmp / "ikgui-recovered" and path.name.startswith(conv)
    saved = path.read_text(encoding="utf-8")
    assert text in saved and f"--- {conv} assistant" in saved
    assert "Traceback" not in done.stderr
    # The database itself is intact: the question and what was saved of the reply.
    subprocess.run(["cp", "-a", f"{staged}/.", str(cli.home)], check=True)
    shown = cli.ok("conv", "show", conv, "--json").json["scrollback"]
    assert [e["kind"] for e in shown][:3] == ["user", "assistant", "user"]


#: Holds a read transaction on the database (``argv[1]``), so its write-ahead log stays
#: and a writer must grow it; touches ``argv[2]`` once it holds it, and holds it until killed.
HOLDER = """
import pathlib, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN")
db.execute("SELECT count(*) FROM event").fetchone()
pathlib.Path(sys.argv[2]).touch()
signal.pause()  # until the test kills it
"""


def test_after_a_rescue_on_a_full_disk_reading_still_works(
    cli: Cli, local: WireServer, spare_tmp: Path
) -> None:
    """Issue 21 item 2: the reply left unfinished on the full disk is marked at start-up,
    but that write failing never stops ``conv list``, ``show`` or ``search``: the marking
    waits for a later run, with room."""
    local.route("/v1/chat/completions", sse_reply("hi"))
    conv = cli.new_id("hello")
    local.route("/v1/chat/completions", sse_reply(*PIECES, pause=0.001))
    staged = cli.home.parent / "staged"
    subprocess.run(["cp", "-a", str(cli.home), str(staged)], check=True)
    python = shlex.quote(sys.executable)
    home = shlex.quote(str(cli.home))
    reads = " ".join(
        f"; echo '=== {' '.join(args)}'; {python} -m ikgui {' '.join(args)} 2>&1"
        for args in (("conv", "list"), ("conv", "show", conv), ("conv", "search", "hello"))
    )
    # The reply's last write fails on the full disk (it goes to a recovery file), so it is
    # left "streaming"; then the last bytes of the disk are taken while another reader
    # holds the log open: the database opens for writing, but no write fits.
    ready = shlex.quote(str(spare_tmp / "holding"))
    script = (
        f"mount -t tmpfs -o size=400k tmpfs {home} && cp -a {shlex.quote(str(staged))}/. {home} "
        f"&& {python} -m ikgui run -c {conv} 'tell me everything' > /dev/null 2>&1; "
        f"{python} -c {shlex.quote(HOLDER)} {home}/ikgui.db {ready} > /dev/null 2>&1 & "
        "holder=$!; "
        f"while [ ! -e {ready} ]; do sleep 0.01; done; "
        f"dd if=/dev/zero of={home}/filler bs=1k > /dev/null 2>&1; echo '=== filled' {reads}; "
        "kill $holder"
    )
    env = dict(os.environ, IKGUI_HOME=str(cli.home), TMPDIR=str(spare_tmp))
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sections = dict(part.split("\n", 1) for part in done.stdout.split("=== ")[1:] if "\n" in part)
    reading = done.stdout.partition("=== filled")[2]
    assert "disk is full" not in reading, reading
    assert "Traceback" not in reading and "unexpectedly" not in reading
    assert conv in sections["conv list"], done.stdout
    assert "hello" in sections[f"conv show {conv}"], done.stdout
    assert conv in sections["conv search hello"], done.stdout


def _slow(text: str, n: int = 40, pause: float = 0.05) -> Reply:
    parts = sse(*[f"{text}{i} " for i in range(n)]).split(b"\n\n")
    return Reply(
        chunks=tuple(p + b"\n\n" for p in parts if p),
        headers=(("content-type", "text/event-stream"),),
        pause=pause,
    )


def _start(cli: Cli, *args: str, wait: float = 60) -> subprocess.Popen[str]:
    env = dict(os.environ, IKGUI_HOME=str(cli.home), IKGUI_SEND_WAIT=str(wait))
    return subprocess.Popen(
        [sys.executable, "-m", "ikgui", "run", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _until(condition: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_two_runs_on_one_conversation_take_turns(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("ok"))
    conv = cli.new_id("start")
    local.route("/v1/chat/completions", _slow("r"))
    first = _start(cli, "-c", conv, "question A")
    _until(lambda: len(local.bodies("/v1/chat/completions")) == 2)  # A is streaming
    second = _start(cli, "-c", conv, "question B")
    out_a, err_a = first.communicate(timeout=60)
    out_b, err_b = second.communicate(timeout=60)
    assert (first.returncode, second.returncode) == (0, 0), err_a + err_b
    reply = " ".join(f"r{i}" for i in range(40))
    assert out_a.strip() == out_b.strip() == reply
    events = cli.ok("conv", "show", conv, "--json").json["scrollback"]
    assert [(e["kind"], e["content"].strip()) for e in events][2:] == [
        ("user", "question A"),
        ("assistant", reply),
        ("user", "question B"),
        ("assistant", reply),
    ]
    # B's model saw A's whole exchange, not A's question without its answer.
    sent_b = [m["content"].strip() for m in local.bodies("/v1/chat/completions")[-1]["messages"]]
    assert sent_b[-3:] == ["question A", reply, "question B"]


def test_a_second_run_gives_up_after_its_wait_with_one_line(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("ok"))
    conv = cli.new_id("start")
    local.route("/v1/chat/completions", _slow("r", n=120, pause=0.05))
    first = _start(cli, "-c", conv, "question A")
    _until(lambda: len(local.bodies("/v1/chat/completions")) == 2)
    refused = cli.process("run", "-c", conv, "question B")  # IKGUI_SEND_WAIT below
    assert first.poll() is None  # it gave up while A was still streaming
    first.communicate(timeout=60)
    assert first.returncode == 0
    assert refused.code == 1 and refused.out == ""
    assert refused.err.strip().splitlines() == [
        f"Error: Another reply is being written in {conv}; try again when it ends"
    ]
    kinds = [e["content"] for e in cli.ok("conv", "show", conv, "--json").json["scrollback"]]
    assert "question B" not in kinds and "question A" in kinds


@pytest.fixture(autouse=True)
def _short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IKGUI_SEND_WAIT", "0.5")
