"""Issue 21 item 8: a home ikgui cannot write to (here a read-only mount, made in a user
and mount namespace of the test's own) opens the database read-only and says so:
``conv list``, ``show`` and ``search`` work; every write says plainly why not."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Cli, Result


def _can_mount_read_only() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True
    )
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(
    not _can_mount_read_only(), reason="needs unshare (a user and mount namespace)"
)


def read_only(home: Path, *args: str, mount: bool = True) -> Result:
    """``ikgui ARGS`` with ``home`` mounted read-only (for this process only), or
    (``mount=False``) in a user namespace where root's files keep only their owner's
    permission bits: a home and database without write permission stay unwritable."""
    folder = shlex.quote(str(home))
    ikgui = shlex.join([sys.executable, "-m", "ikgui", *args])
    if mount:
        line = ["--map-root-user", "--mount", "sh", "-c"]
        script = f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
        line.append(script + f"exec {ikgui}")
    else:
        line = ["sh", "-c", f"exec {ikgui}"]
    done = subprocess.run(
        ["unshare", "--user", *line],
        env=dict(os.environ, IKGUI_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr and "unexpectedly" not in done.stderr, done.stderr
    return Result(done.returncode, done.stdout, done.stderr)


def test_a_read_only_home_is_browsed_and_writes_say_why_not(cli: Cli) -> None:
    conv_id = cli.ok("run", "/mark", "needle").err.strip().splitlines()[-1]
    cli.ok("conv", "title", conv_id, "needle", "notes")
    before = cli.ok("conv", "list").out
    warning = (
        f"Warning: {cli.home} is on a read-only file system, so the database is open read-only.\n"
    )
    refused = (
        f"Error: Could not write to the database {cli.home / 'ikgui.db'}: {cli.home} is on a "
        "read-only file system, so the database is open read-only.\n"
    )
    listed = read_only(cli.home, "conv", "list")
    assert (listed.code, listed.out, listed.err) == (0, before, warning)
    shown = read_only(cli.home, "conv", "show", conv_id)
    assert shown.code == 0 and shown.out.startswith(f"{conv_id}  needle notes")
    found = read_only(cli.home, "conv", "search", "needle")
    assert found.code == 0 and found.out.startswith(conv_id)
    for args in (
        ("conv", "title", conv_id, "other"),
        ("conv", "tag", conv_id, "+x"),
        ("conv", "delete", conv_id),
    ):
        result = read_only(cli.home, *args)
        assert (result.code, result.err) == (1, warning + refused), args
    # A send is refused by the session before anything is tried (issue 22 item 3).
    sent = read_only(cli.home, "run", "-c", conv_id, "hello")
    session_refused = (
        f"Error: Your conversations are open read-only: {cli.home} is on a read-only file "
        "system, so the database is open read-only.\n"
    )
    assert (sent.code, sent.err) == (1, warning + session_refused)
    assert cli.ok("conv", "list").out == before  # nothing changed, nothing left behind


def test_a_home_without_write_permission_is_browsed_too(cli: Cli) -> None:
    conv_id = cli.ok("run", "/mark", "needle").err.strip().splitlines()[-1]
    before = cli.ok("conv", "list").out
    database = cli.home / "ikgui.db"
    database.chmod(0o444)
    cli.home.chmod(0o555)
    try:
        why = f"the folder {cli.home} cannot be written to (no permission)"
        warning = f"Warning: {why}, so the database is open read-only.\n"
        listed = read_only(cli.home, "conv", "list", mount=False)
        assert (listed.code, listed.out, listed.err) == (0, before, warning)
        titled = read_only(cli.home, "conv", "title", conv_id, "x", mount=False)
        assert (titled.code, titled.err) == (
            1,
            f"{warning}Error: Could not write to the database {database}: {why}, so the "
            "database is open read-only.\n",
        )
    finally:
        cli.home.chmod(0o755)
        database.chmod(0o644)
    assert cli.ok("conv", "list").out == before


def test_a_read_only_home_without_a_database_says_why_none_can_be_made(cli: Cli) -> None:
    cli.home.mkdir(parents=True)
    made = read_only(cli.home, "conv", "list")
    assert (made.code, made.out, made.err) == (
        1,
        "",
        f"Error: Could not create the database {cli.home / 'ikgui.db'}: {cli.home} is on a "
        "read-only file system.\n",
    )
