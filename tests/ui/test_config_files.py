"""Issue 21 item 7 in the window: a config.toml that is a FIFO (an open that would wait
for a writer forever) or nests 100,000 arrays deep (RecursionError) no longer keeps the
window from starting: it starts with the defaults and its banner names the file."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ikgui.ui.panels import Banner
from tests.ui.test_window import closed, opened

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files")


@pytest.mark.parametrize("kind", ["fifo", "nested"])
async def test_the_window_starts_with_defaults(
    tmp_path: Path, qtbot: QtBot, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    original = Banner.show_message

    def record(banner: Banner, text: str) -> None:
        shown.append(text)  # the model server's check may take the banner over later
        original(banner, text)

    monkeypatch.setattr(Banner, "show_message", record)
    home = tmp_path / "home"
    home.mkdir()
    path = home / "config.toml"
    if kind == "fifo":
        os.mkfifo(path)
        reason = "is a named pipe (FIFO), not a file"
    else:
        path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
        reason = "values are nested too deeply"
    win = await opened(home, check_timeout=0.5)
    try:
        assert win.session.settings.default_provider == "ollama"
        assert shown[0] == f"config.toml: {path}:1: {reason} (defaults are used)"
    finally:
        await closed(win)
