"""Every test fails on a bug it leaves behind (tests/support/error_watch.py): an ERROR
log record from ikgui or asyncio, a task exception never retrieved, an unraisable
exception; a test marked ``logs_errors`` causes them on purpose and passes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import asyncio
import logging

import pytest


def test_clean():
    logging.getLogger("ikgui.storage").warning("a warning is not a bug")
    logging.getLogger("someone.else").error("not ikgui's")


def test_an_ikgui_error_record():
    logging.getLogger("ikgui.domain.state.replay").error("replay went wrong")


def test_a_task_exception_never_retrieved():
    async def fails():
        raise ValueError("nobody looked")

    async def main():
        asyncio.ensure_future(fails())
        await asyncio.sleep(0.01)

    asyncio.run(main())


class Dies:
    def __del__(self):
        raise RuntimeError("in a finaliser")


def test_an_unraisable_exception():
    holder = Dies()
    holder.cycle = holder  # collected at the end of the test
    del holder


@pytest.mark.logs_errors
def test_marked_errors_are_on_purpose():
    logging.getLogger("ikgui").error("on purpose")
    holder = Dies()
    del holder
"""


def test_tests_fail_on_errors_they_leave_behind(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    settings = ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
    run = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-p", "tests.support.error_watch", "-rfEp", *settings, "."),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=tmp_path,
    )

    def named(outcome: str) -> set[str]:
        return {
            line.split("::")[1].split(" ")[0]
            for line in run.stdout.splitlines()
            if line.startswith(f"{outcome} test_probe.py::")
        }

    # (A failure found at the end of a test is an error in its teardown.)
    assert named("ERROR") == {
        "test_an_ikgui_error_record",
        "test_a_task_exception_never_retrieved",
        "test_an_unraisable_exception",
    }, run.stdout + run.stderr
    assert {"test_clean", "test_marked_errors_are_on_purpose"} <= named("PASSED")
    assert "replay went wrong" in run.stdout and "nobody looked" in run.stdout
    assert "in a finaliser" in run.stdout
