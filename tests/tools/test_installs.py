"""The tests' own installs of MCP servers (tests/support/mcp_servers.py): done once, and
a failed one fails the test with what the installer said (never a skip)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support import mcp_servers


def test_a_failed_install_fails_saying_what_the_installer_said() -> None:
    installer = [sys.executable, "-c", "import sys; sys.exit('ERROR: no matching distribution')"]
    with pytest.raises(pytest.fail.Exception) as failed:
        mcp_servers._run(installer, "mcp-server-nothing==1")
    message = str(failed.value)
    assert message.startswith("could not install mcp-server-nothing==1 (")
    assert message.rstrip().endswith("ERROR: no matching distribution")


def test_a_missing_installer_fails_too(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        mcp_servers._run([str(tmp_path / "no-pip")], "mcp-server-nothing==1")
    assert str(failed.value).startswith("could not install mcp-server-nothing==1: ")


def test_an_install_is_kept_until_its_pins_change(tmp_path: Path) -> None:
    folder = tmp_path / "venv"
    folder.mkdir()
    assert not mcp_servers._installed(folder, ("a==1",))
    mcp_servers._mark(folder, ("a==1",))
    assert mcp_servers._installed(folder, ("a==1",))
    assert not mcp_servers._installed(folder, ("a==2",))


def test_the_install_folders_are_ignored_by_git() -> None:
    ignored = (mcp_servers.ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    for folder in (mcp_servers.PY_VENV, mcp_servers.NODE_DIR):
        assert f"{folder.name}/" in ignored
        assert f"{folder.name}.lock" in ignored
