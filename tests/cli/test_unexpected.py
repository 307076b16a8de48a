"""An unexpected error in the command line: one line says so and where the log is; the
traceback goes to the log file under the data folder, never to the screen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ikgui.local.log import log_path

# A bug planted in a real function before the command line imports it (no test-only
# hook in ikgui: the listing's formatter itself fails).
BROKEN_LISTING = """
import sys
import ikgui.domain.library.listing as listing

def format_listing(*args, **kwargs):
    raise ZeroDivisionError("a planted bug")

listing.format_listing = format_listing
from ikgui.__main__ import main
sys.argv = ["ikgui", *sys.argv[1:]]
sys.exit(main())
"""


def run_broken(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, IKGUI_HOME=str(home))
    env.pop("IKGUI_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-c", BROKEN_LISTING, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_an_unexpected_error_is_one_line_and_its_traceback_is_in_the_log(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    assert (
        subprocess.run(
            [sys.executable, "-m", "ikgui", "run", "/prompt hello"],
            env=dict(os.environ, IKGUI_HOME=str(home)),
            capture_output=True,
            timeout=120,
        ).returncode
        == 0
    )  # one conversation, so the listing has a row to format

    run = run_broken(home, "conv", "list")

    log = log_path(home)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        "Error: ikgui failed unexpectedly (ZeroDivisionError: a planted bug)",
        f"The details are in {log}",
    ]
    assert "Traceback" not in run.stdout + run.stderr
    text = log.read_text(encoding="utf-8")
    assert "ERROR ikgui.crash: ikgui (command line) failed unexpectedly" in text
    assert "Traceback (most recent call last)" in text
    assert "in cmd_list" in text and "in format_listing" in text

    run_broken(home, "conv", "list")  # a second one is added to the same file
    assert log.read_text(encoding="utf-8").count("a planted bug\n") == 2


def test_a_log_that_cannot_be_written_leaves_the_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    subprocess.run(
        [sys.executable, "-m", "ikgui", "run", "/prompt hello"],
        env=dict(os.environ, IKGUI_HOME=str(home)),
        capture_output=True,
        timeout=120,
        check=True,
    )
    (home / "logs").write_text("a file where the folder should be", encoding="utf-8")

    run = run_broken(home, "conv", "list")

    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        "Error: ikgui failed unexpectedly (ZeroDivisionError: a planted bug)"
    ]
