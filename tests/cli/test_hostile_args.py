"""Hostile arguments and closed pipes never show a traceback (issue 8, item 10).

Every failure is one ``Error: `` line with the SPEC §9 exit code; a reader that goes
away (``| head``) ends ikgui quietly, as it ends ``cat``.
"""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.conftest import Cli

HUGE = "99999999999999999999"


def test_huge_counts_are_one_usage_error(cli: Cli) -> None:
    cli.new_id("/mark", "a")
    listed = cli("conv", "list", "-n", HUGE)
    assert listed.code == 2
    assert listed.err.splitlines()[-1].startswith("Error: argument -n: give a number from 0")
    assert "Traceback" not in listed.err
    sessions = cli("run", "-c", f"/sessions {HUGE}")
    assert (sessions.code, sessions.err.strip()) == (
        2,
        "Error: Usage: /sessions [n], n at most 1000000000",
    )
    assert cli.ok("conv", "list", "-n", "1000000000").out.startswith("ID")


def _many_long_titles(cli: Cli, count: int = 60) -> None:
    """``count`` conversations with 3000-character titles: >64 KiB to list or find."""
    cli.ok("conv", "list")  # creates the database
    with sqlite3.connect(cli.home / "ikgui.db") as db:
        for n in range(count):
            conv_id = f"chat-{n:04d}"
            title = f"needle {n} " + "x" * 3000
            db.execute(
                "INSERT INTO conversation (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (conv_id, title, 1000.0 + n, 1000.0 + n),
            )
            db.execute(
                "INSERT INTO title_fts (title, conversation_id) VALUES (?, ?)", (title, conv_id)
            )


def _pipe(cli: Cli, command: str) -> subprocess.CompletedProcess[str]:
    """``ikgui COMMAND | head …`` in a real shell pipeline; the status is ikgui's."""
    env = dict(os.environ, IKGUI_HOME=str(cli.home))
    script = f'"{sys.executable}" -m ikgui {command}; echo "status=${{PIPESTATUS[0]}}" >&2'
    return subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("command", "head"),
    [
        ("conv list", "head -n 2"),
        ("conv search needle", "head -n 1"),
        ("conv export chat-big", "head -c 100"),
        ("conv show chat-big", "head -c 100"),
    ],
)
def test_a_closed_pipe_ends_quietly(cli: Cli, command: str, head: str) -> None:
    _many_long_titles(cli)
    big = cli.process("run", stdin="/prompt " + "y" * 2_000_000)
    with sqlite3.connect(cli.home / "ikgui.db") as db:
        db.execute("UPDATE conversation SET id = 'chat-big' WHERE id = ?", (big.err.strip(),))
        db.execute("UPDATE event SET conversation_id = 'chat-big'")
    done = _pipe(cli, f"{command} | {head}")
    assert done.stdout and len(done.stdout) <= 100_000
    assert done.stderr.strip() in ("status=141", "status=0"), done.stderr


@pytest.fixture
def fuzz_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("fuzz") / "home"
    home.mkdir()
    # A provider where nothing listens: a message fails fast with exit 3.
    (home / "config.toml").write_text(
        '[providers.ollama]\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n',
        encoding="utf-8",
    )
    yield home


_WORDS = st.sampled_from(
    ["x", "-", "--", "-1", "0", HUGE, "-" + HUGE, "1e999", "nan", "", " ", "#", "+", ",",
     "chat-", "\x1b]0;pwned\x07", "\x00", "\u202e", "é", "'", '"', "\\", "/", "//", "-n",
     "--json", "-l", "--trash", "--older", "--forks", "--format", "md", "-a", "-t", "-c",
     "--cid", "-m", "-p", "--no-save", "--no-stream", "-q", "7d", HUGE + "d", "+" + HUGE]
)  # fmt: skip
_TEXT = st.one_of(_WORDS, st.text(max_size=12))
_SLASH = st.sampled_from(
    ["/sessions", "/mark", "/rewind", "/fork", "/prompt", "/title", "/tag", "/load", "/tree",
     "/new", "/system", "/kill", "/clear", "/help", "/", "/nope", "/model"]
)  # fmt: skip
_CONV = st.sampled_from(
    ["list", "show", "context", "tree", "search", "title", "tag", "delete", "restore", "clean"]
)
_ARGV = st.one_of(
    st.tuples(st.just("conv"), _CONV, st.lists(_TEXT, max_size=4)).map(
        lambda t: [t[0], t[1], *t[2]]
    ),
    st.tuples(st.lists(_WORDS, max_size=2), _SLASH, st.lists(_TEXT, max_size=3)).map(
        lambda t: ["run", *t[0], t[1] + (" " + " ".join(t[2]) if t[2] else "")]
    ),
    st.lists(_TEXT, max_size=5),
)


@settings(
    max_examples=int(os.environ.get("IKGUI_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=_ARGV)
def test_no_argument_ever_shows_a_traceback(
    argv: list[str],
    fuzz_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ikgui.cli.main import main

    if "--help" in argv or "-h" in argv:
        return
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    capsys.readouterr()
    try:
        code = main(argv, home=fuzz_home)
    except SystemExit as exc:  # argparse's usage errors (and --version)
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err, (argv, err)
    assert "failed unexpectedly" not in err, (argv, err)
    assert code in (0, 1, 2, 3), (argv, code, err)
    for line in err.splitlines():
        assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line
    if code:
        assert any(line.startswith("Error: ") for line in err.splitlines()), (argv, err)
