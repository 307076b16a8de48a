"""Issue 21 item 10: an exports folder that is a symbolic link loop is one clear line."""

from __future__ import annotations

import sys

import pytest

from tests.cli.conftest import Cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")
LOOP = "is a symbolic link that leads back to itself (a link loop)"


def test_an_exports_folder_that_loops_is_one_clear_line(cli: Cli) -> None:
    conv_id = cli.new_id("/mark", "a")
    exports = cli.home / "exports"
    exports.symlink_to(exports)
    result = cli("run", "-c", "/export")
    assert result.code == 1
    assert result.err == (
        f"Error: Cannot export to {exports}: it {LOOP}; give a file name (/export FILE)\n"
    )
    for line in (
        ("run", "-c", f"/export {exports}/a.json"),
        ("conv", "export", conv_id, "-o", f"{exports}/a.json"),
    ):
        result = cli(*line)
        assert result.code == 1
        assert result.err == f"Error: Could not write {exports}/a.json: its folder {LOOP}\n"
    assert cli.ok("run", "-c", f"/export {cli.home}/b.json").out.startswith("Exported to ")
