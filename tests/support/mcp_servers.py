"""Real MCP servers for the tests (issue 23 item 6), installed by the tests themselves.

The PyPI servers (``mcp-server-time``, ``mcp-server-git``) go into a virtual environment
of their own, ``.venv-mcp/`` at the repository's root (they must not share ikgui's
packages); the npm servers (``server-everything``, ``server-filesystem``) into
``.mcp-node/`` with ``npm install --prefix``. Both folders are git-ignored and installed
once: a marker file names the pinned versions, so a new pin installs again. Parallel
test processes (pytest-xdist) take a file lock, so only one of them installs.

A missing install is never a skip: it is installed, and a failed install fails the test
with what the installer said. ``tests/support/mcp_faulty.py`` (the failures no real
server makes on demand) runs with ikgui's own Python.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ikgui.domain.settings import ToolServerSettings

ROOT = Path(__file__).resolve().parents[2]
PY_VENV = ROOT / ".venv-mcp"
NODE_DIR = ROOT / ".mcp-node"
#: The releases these tests were last run against.
PYPI = ("mcp-server-time==2026.10.19", "mcp-server-git==2026.10.19")
NPM = (
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
)
FAULTY = Path(__file__).resolve().parent / "mcp_faulty.py"
INSTALL_SECONDS = 900


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    lock_path = folder.with_name(folder.name + ".lock")
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _installed(folder: Path, pins: tuple[str, ...]) -> bool:
    marker = folder / "ikgui-installed.txt"
    return marker.exists() and marker.read_text(encoding="utf-8") == "\n".join(pins)


def _mark(folder: Path, pins: tuple[str, ...]) -> None:
    (folder / "ikgui-installed.txt").write_text("\n".join(pins), encoding="utf-8")


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"could not install {what}: {exc}", pytrace=False)
    if done.returncode != 0:
        output = (done.stdout + done.stderr)[-3000:]
        pytest.fail(f"could not install {what} ({' '.join(command)}):\n{output}", pytrace=False)


def python_servers() -> Path:
    """The ``bin`` folder of ``.venv-mcp`` with ``mcp-server-time`` and ``mcp-server-git``."""
    with _locked(PY_VENV):
        if not _installed(PY_VENV, PYPI):
            shutil.rmtree(PY_VENV, ignore_errors=True)
            _run([sys.executable, "-m", "venv", str(PY_VENV)], "a virtual environment")
            pip = [str(PY_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
            _run([*pip, *PYPI], " and ".join(PYPI))
            _mark(PY_VENV, PYPI)
    return PY_VENV / "bin"


def node_servers() -> Path:
    """The ``node_modules/.bin`` folder of ``.mcp-node`` with the npm servers."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not on PATH: the npm MCP servers cannot be installed", pytrace=False)
    with _locked(NODE_DIR):
        if not _installed(NODE_DIR, NPM):
            shutil.rmtree(NODE_DIR, ignore_errors=True)
            NODE_DIR.mkdir()
            _run(
                [npm, "install", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund", *NPM],
                " and ".join(NPM),
            )
            _mark(NODE_DIR, NPM)
    return NODE_DIR / "node_modules" / ".bin"


# -- the servers as [mcp.<name>] settings -----------------------------------------------
def time_server(name: str = "time", **extra: object) -> ToolServerSettings:
    command = str(python_servers() / "mcp-server-time")
    return ToolServerSettings(name, command, ("--local-timezone", "UTC"), **extra)  # type: ignore[arg-type]


def git_server(repository: Path, name: str = "git", **extra: object) -> ToolServerSettings:
    command = str(python_servers() / "mcp-server-git")
    return ToolServerSettings(name, command, ("--repository", str(repository)), **extra)  # type: ignore[arg-type]


def everything_server(name: str = "everything", **extra: object) -> ToolServerSettings:
    command = str(node_servers() / "mcp-server-everything")
    return ToolServerSettings(name, command, ("stdio",), **extra)  # type: ignore[arg-type]


def everything_through_npm(name: str = "everything-npm") -> ToolServerSettings:
    """server-everything started as users start npm servers (``npx``): through npm,
    which runs a shell, which runs node — a tree of processes, not one."""
    node_servers()
    npm = shutil.which("npm") or "npm"
    args = ("exec", "--prefix", str(NODE_DIR), "--offline", "--", "mcp-server-everything")
    return ToolServerSettings(name, npm, (*args, "stdio"))


def filesystem_server(folder: Path, name: str = "files", **extra: object) -> ToolServerSettings:
    command = str(node_servers() / "mcp-server-filesystem")
    return ToolServerSettings(name, command, (str(folder),), **extra)  # type: ignore[arg-type]


def faulty_server(name: str = "faulty", *args: str, **extra: object) -> ToolServerSettings:
    """The suite's own server (``mcp_faulty.py``), run with ikgui's Python."""
    return ToolServerSettings(name, sys.executable, (str(FAULTY), *args), **extra)  # type: ignore[arg-type]


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def children_of(pid: int = os.getpid()) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def config_table(server: ToolServerSettings) -> str:
    """``server`` as its ``[mcp.<name>]`` table of config.toml."""
    lines = [f"[mcp.{server.name}]"]
    if server.command is not None:
        lines.append(f"command = {json.dumps(server.command)}")
        lines.append(f"args = {json.dumps(list(server.args))}")
    if server.url is not None:
        lines.append(f"url = {json.dumps(server.url)}")
    if server.env:
        pairs = ", ".join(f"{k} = {json.dumps(v)}" for k, v in server.env)
        lines.append(f"env = {{ {pairs} }}")
    if server.secret_env:
        lines.append(f"secret_env = {json.dumps(list(server.secret_env))}")
    if not server.enabled:
        lines.append("enabled = false")
    lines.append(f"timeout = {server.timeout:g}")
    return "\n".join(lines) + "\n"
