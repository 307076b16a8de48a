"""A Qt warning fails the test that caused it (pytest-qt's ``qt_log_level_fail``), except
the offscreen platform's three notes that it has no window manager (``qt_log_ignore``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
from PySide6.QtCore import qCritical, qWarning

def test_a_warning(qtbot):
    qWarning("QObject::connect: No such signal")

def test_a_critical_message(qtbot):
    qCritical("something broke")

def test_the_offscreen_platform_notes(qtbot):
    qWarning("This plugin does not support propagateSizeHints()")
    qWarning("This plugin does not support raise()")
    qWarning("This plugin does not support grabbing the keyboard")

def test_a_similar_warning_is_not_ignored(qtbot):
    qWarning("This plugin does not support raise() and something else")
"""


def test_qt_warnings_fail_tests_with_the_project_settings(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    settings = ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEp", *settings, "."],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
        cwd=tmp_path,
    )
    outcomes = {
        line.split("::")[-1].split(" ")[0]: line.split(" ")[0]
        for line in run.stdout.splitlines()
        if line.startswith(("PASSED ", "FAILED "))
    }
    assert outcomes == {
        "test_a_warning": "FAILED",
        "test_a_critical_message": "FAILED",
        "test_the_offscreen_platform_notes": "PASSED",
        "test_a_similar_warning_is_not_ignored": "FAILED",
    }, run.stdout + run.stderr
