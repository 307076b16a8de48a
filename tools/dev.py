#!/usr/bin/env python3
"""Set up everything ikgui needs, then open the app or run every check.

    python3 tools/dev.py app     # virtualenv + packages + Qt's system libraries, then ikgui
    python3 tools/dev.py test    # the same set-up and a PostgreSQL server for the tests,
                                 # then ruff, mypy, import-linter, pytest

Needs only Python 3.11+ with pip. Idempotent: a second run reuses .venv and only
reinstalls when pyproject.toml changed. Extra arguments go to ikgui or pytest.

`test` prints one line per check (a check's own output only when it fails), then
pytest's progress on one worker per core (``-n 0`` among the extra arguments: one
process), and ends with the names of the tests that failed.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".ikgui-installed"
# Debian/Ubuntu packages Qt needs offscreen, and on a real X11 screen.
QT_OFFSCREEN = [
    "libglib2.0-0",
    "libgl1",
    "libegl1",
    "libxkbcommon0",
    "libfontconfig1",
    "libdbus-1-3",
    "fonts-dejavu-core",
]
QT_X11 = [
    "libxkbcommon-x11-0",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xkb1",
]


def say(text: str) -> None:
    print(f"[ikgui setup] {text}", flush=True)


def run(cmd: list[str], **kw: object) -> None:
    subprocess.run(cmd, check=True, **kw)  # type: ignore[call-overload]


def run_quiet(cmd: list[str], **kw: object) -> None:
    """``run``, its output shown only when it fails (pip's notes and setuptools' banner
    about editable installs say nothing a newcomer must act on)."""
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if done.returncode != 0:
        sys.stdout.write(done.stdout + done.stderr)
        raise subprocess.CalledProcessError(done.returncode, cmd)


def make_venv() -> None:
    if PY.exists():
        return
    say(f"creating a virtual environment in {VENV}")
    try:
        run([sys.executable, "-m", "venv", str(VENV)], stdout=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        # Debian's python3 without python3-venv lacks ensurepip: use virtualenv instead.
        shutil.rmtree(VENV, ignore_errors=True)
        say("python -m venv is unavailable here; using virtualenv")
        run([sys.executable, "-m", "pip", "install", "--user", "--quiet", "virtualenv"])
        run([sys.executable, "-m", "virtualenv", "--quiet", str(VENV)])


def install_packages() -> None:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == digest:
        return
    say("installing ikgui and its packages (first run takes a minute)")
    run_quiet([str(PY), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    run_quiet([str(PY), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[dev]"])
    STAMP.write_text(digest)


def qt_works(platform: str) -> bool:
    probe = (
        "from PySide6.QtWidgets import QApplication; from PySide6.QtGui import QFontDatabase; "
        "app = QApplication([]); import sys; sys.exit(0 if QFontDatabase.families() else 3)"
    )
    env = dict(os.environ, QT_QPA_PLATFORM=platform)
    result = subprocess.run([str(PY), "-c", probe], env=env, capture_output=True, text=True)
    return result.returncode == 0


def apt_install(packages: list[str]) -> bool:
    if not shutil.which("apt-get"):
        return False
    prefix: list[str] = []
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        if not shutil.which("sudo"):
            return False
        prefix = ["sudo", "-n"]
    say("installing system packages: " + " ".join(packages))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        run_quiet([*prefix, "apt-get", "update", "-qq"], env=env)
        run_quiet(
            [*prefix, "apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
            env=env,
        )
    except subprocess.CalledProcessError:
        return False
    return True


def ensure_qt(platform: str) -> None:
    if qt_works(platform):
        return
    packages = QT_OFFSCREEN + (QT_X11 if platform == "xcb" else [])
    if apt_install(packages) and qt_works(platform):
        return
    sys.exit(
        "[ikgui setup] Qt cannot start here. Install these system packages and retry:\n  "
        + " ".join(packages)
        + "\n(set QT_DEBUG_PLUGINS=1 to see what Qt is missing)"
    )


def postgres_bin_dir() -> Path | None:
    """Where PostgreSQL's server programs are (what tests/support/pg_server.py looks for):
    $IKGUI_PG_BIN, PATH, then the distributions' versioned directories, newest first."""
    found = shutil.which("initdb")
    candidates = [os.environ.get("IKGUI_PG_BIN", ""), os.path.dirname(found or "")]
    for pattern in ("/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"):
        versions = {d: [int(n) for n in re.findall(r"\d+", d)] for d in glob.glob(pattern)}
        candidates += sorted(versions, key=versions.__getitem__, reverse=True)
    for directory in filter(None, candidates):
        if all(os.path.isfile(os.path.join(directory, p)) for p in ("initdb", "pg_ctl")):
            return Path(directory)
    return None


def ensure_postgres() -> None:
    """The tests run against a real PostgreSQL server: install Debian's package when its
    programs are missing. Without them the PostgreSQL tests fail and say what to install."""
    if postgres_bin_dir() is not None:
        return
    if apt_install(["postgresql"]) and postgres_bin_dir() is not None:
        return
    say(
        "PostgreSQL's server programs (initdb, pg_ctl) are missing and could not be "
        "installed; the tests that need a PostgreSQL server will fail. Install them: "
        "Debian/Ubuntu `sudo apt-get install postgresql`, Fedora `sudo dnf install "
        "postgresql-server`, macOS `brew install postgresql` (or set IKGUI_PG_BIN to the "
        "directory holding initdb and pg_ctl)"
    )


def setup(platform: str) -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this script may run on an older Python
        sys.exit("[ikgui setup] ikgui needs Python 3.11 or newer")
    make_venv()
    install_packages()
    ensure_qt(platform)


def validators() -> None:
    """The desktop-file and AppStream validators the packaging tests use (best effort:
    without them those two tests are skipped with the reason)."""
    missing = [
        pkg
        for tool, pkg in (
            ("desktop-file-validate", "desktop-file-utils"),
            ("appstreamcli", "appstream"),
        )
        if not shutil.which(tool)
    ]
    if missing and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        apt_install(missing)


def pytest_args(extra: list[str]) -> list[str]:
    """pytest's arguments: quiet, and one worker per core unless ``extra`` chooses
    (``-n``). (pyproject's ``-ra`` ends the output with the failing tests' names.)"""
    chosen = any(
        a in ("-n", "--numprocesses") or a.startswith(("-n", "--numprocesses=")) for a in extra
    )
    workers = [] if chosen or "no:xdist" in extra else ["-n", "auto"]
    return ["-q", *workers, *extra]


def checks(extra: list[str]) -> int:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    quiet_steps = [
        (
            "ruff",
            [str(PY), "-m", "ruff", "check", "ikgui", "tests", "benchmarks", "tools", "packaging"],
        ),
        ("mypy", [str(PY), "-m", "mypy", "ikgui"]),
        ("import-linter", [str(BIN / "lint-imports")]),
    ]
    for name, cmd in quiet_steps:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stdout.write(done.stdout + done.stderr)
            say(f"{name} failed (exit {done.returncode})")
            return done.returncode
        say(f"{name}: ok")
    say("pytest, one process per core (about 3 minutes on 2 idle cores, 6 on a busy machine)")
    code = subprocess.run(
        [str(PY), "-m", "pytest", *pytest_args(extra)], cwd=ROOT, env=env
    ).returncode
    if code != 0:
        say(f"pytest failed (exit {code}); the FAILED/ERROR lines above name the tests")
    return code


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("app", "test", "setup"):
        print(__doc__)
        return 2
    what, extra = argv[0], argv[1:]
    if what == "app":
        platform = os.environ.get("QT_QPA_PLATFORM") or (
            "wayland"
            if os.environ.get("WAYLAND_DISPLAY")
            else "xcb"
            if os.environ.get("DISPLAY")
            else "offscreen"
        )
        setup(platform)
        if platform == "offscreen" and not os.environ.get("QT_QPA_PLATFORM"):
            say(
                "no display found (DISPLAY/WAYLAND_DISPLAY unset): everything is installed, but a "
                "window needs a screen. The command line works: .venv/bin/ikgui conv list"
            )
            return 1
        return subprocess.run([str(BIN / "ikgui"), *extra], cwd=ROOT).returncode
    setup("offscreen")
    if what == "setup":
        return 0
    validators()
    ensure_postgres()
    return checks(extra)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
