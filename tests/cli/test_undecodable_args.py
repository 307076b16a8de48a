"""Issue 21 item 9: an argument whose bytes are not UTF-8 (``conv title REF $'\\xff'``,
``run $'\\xff\\xfe'``) is refused by every command with one ``Error:`` line and exit 2,
before anything runs; file names may be any bytes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli.conftest import Cli

BAD = b"caf\xff\xfe".decode("utf-8", "surrogateescape")  # what Python makes of the bytes
REFUSED = (
    "Error: the argument 'caf\\xff\\xfe' is not valid text (its bytes are not UTF-8): "
    "give text arguments as UTF-8\n"
)


@pytest.mark.parametrize(
    "line",
    [
        ("run", BAD),
        ("run", "/mark", BAD),
        ("run", "-m", BAD, "hello"),
        ("conv", "title", "REF", BAD),
        ("conv", "tag", "REF", "+" + BAD),
        ("conv", "search", BAD),
        ("conv", "show", BAD),
        ("conv", "list", "-t", BAD),
        ("conv", "tag-rename", "a", BAD),
        ("keys", "set", BAD),
    ],
)
def test_every_command_refuses_undecodable_text(cli: Cli, line: tuple[str, ...]) -> None:
    conv_id = cli.new_id("/mark", "a")
    before = cli.ok("conv", "show", conv_id, "--json").out
    args = tuple(conv_id if part == "REF" else part for part in line)
    result = cli(*args)
    assert (result.code, result.out) == (2, "")
    assert result.err in (REFUSED, REFUSED.replace("'caf", "'+caf"))
    assert cli.ok("conv", "show", conv_id, "--json").out == before  # nothing changed


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX argument bytes")
def test_the_real_command_line_gets_the_bytes(cli: Cli) -> None:
    cli.ok("conv", "list")
    done = subprocess.run(
        [sys.executable.encode(), b"-m", b"ikgui", b"run", b"caf\xff\xfe"],
        env=dict(os.environ, IKGUI_HOME=str(cli.home)),
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == REFUSED
    # A file name is the system's bytes: looked for as given, and named as it can be.
    done = subprocess.run(
        [sys.executable.encode(), b"-m", b"ikgui", b"conv", b"import", b"caf\xff\xfe.json"],
        env=dict(os.environ, IKGUI_HOME=str(cli.home)),
        cwd=cli.home,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "Error: Cannot read caf\\udcff\\udcfe.json: No such file or directory\n"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX argument bytes")
def test_text_on_standard_input_is_refused_the_same_way(cli: Cli) -> None:
    cli.new_id("/mark", "a")
    done = subprocess.run(
        [sys.executable, "-m", "ikgui", "run", "-c"],
        env=dict(os.environ, IKGUI_HOME=str(cli.home)),
        input=b"caf\xff\xfe",
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (
        "Error: the text on standard input is not valid text (its bytes are not UTF-8): "
        "give text as UTF-8\n"
    )
