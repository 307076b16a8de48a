"""The window redraws only what changed (issue 22 item 3): after a fact the chrome
reduces its state and redraws the areas whose part differs, not all eleven."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Kind
from ikgui.ui.window.main_window import MainWindow
from tests.ui.test_window import closed, opened


def count_redraws(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the toolbar's enablement changes and checks, and the title's redraws."""
    counts: Counter[str] = Counter()
    for name, action in window.toolbar_actions.actions.items():

        def enabling(on: bool, action: Any = action, name: str = name) -> None:
            counts["setEnabled"] += 1
            type(action).setEnabled(action, on)

        monkeypatch.setattr(action, "setEnabled", enabling)
    can_run = window.session.can_run

    def checking(name: str) -> bool:
        counts["can_run"] += 1
        return can_run(name)

    monkeypatch.setattr(window.session, "can_run", checking)

    def titling(title: str) -> None:
        counts["setWindowTitle"] += 1
        MainWindow.setWindowTitle(window, title)

    monkeypatch.setattr(window, "setWindowTitle", titling)
    return counts


async def test_a_rename_redraws_the_title_and_nothing_else(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = await opened(tmp_path / "home", check_timeout=0.3)
    try:
        window.session.append(Kind.USER, "northern lights")  # stored: it can be renamed
        counts = count_redraws(window, monkeypatch)
        window.sidebar.rename_requested.emit(window.current_id, "Sky photos")
        assert window.windowTitle().startswith("Sky photos")
        assert window.pane.title_header.button.text() == "Sky photos"
        assert counts["setWindowTitle"] == 1
        assert counts["setEnabled"] == 0  # no toolbar action was touched
        assert window.chrome.drawn == ("title",)
    finally:
        await closed(window)


async def test_a_streamed_delta_redraws_no_toolbar_action(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = await opened(tmp_path / "home", check_timeout=0.3)
    try:
        event = window.session.append(Kind.USER, "northern lights")
        counts = count_redraws(window, monkeypatch)
        window.session.emit_delta(event, "more")  # (as a streaming reply does)
        window.chrome.follow()
        assert counts == Counter()  # not one enablement check, not one redraw
        assert window.chrome.drawn == ()
    finally:
        await closed(window)
