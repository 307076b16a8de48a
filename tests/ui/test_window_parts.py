"""The window's house rules (issue 9, items 4, 5 and 6 for the window): new settings take
effect in one place, the demo's rules live in one policy object, no module of the window
over 400 lines nor function over 60, and the dead code stays out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pytestqt.qtbot import QtBot

import ikgui.ui
from ikgui.app.root import open_demo
from ikgui.config.loading import load_settings
from ikgui.ui import loop
from ikgui.ui.sidebar.tree import ConversationTree
from ikgui.ui.transcript.scrollback import ScrollbackView
from ikgui.ui.window.main_window import MainWindow
from tests.ui.test_window import closed, opened

UI = Path(ikgui.ui.__file__).parent


async def test_saved_settings_take_effect_in_one_place(tmp_path: Path, qtbot: QtBot) -> None:
    home = tmp_path / "home"
    win = await opened(home, check_timeout=0.3)
    try:
        new = replace(win.session.settings, theme="dark", default_model="m-2")
        win.services.save_settings(new)  # what the Settings dialog's OK calls
        assert win.session.settings is new
        saved = load_settings(home / "config.toml")
        assert (saved.theme, saved.default_model) == ("dark", "m-2")
    finally:
        await closed(win)


async def test_the_demo_s_rules_are_one_policy_object(tmp_path: Path, qtbot: QtBot) -> None:
    win = await opened(tmp_path / "home", check_timeout=0.3)
    demo: MainWindow = open_demo()
    try:
        assert not win.policy.read_only and not win.policy.refuses()
        assert win.feedback.text() == ""
        assert demo.policy.read_only and demo.read_only
        assert demo.policy.refuses()
        assert demo.feedback.text().startswith("The demo is read-only")
        demo.chrome.refresh()  # the policy disables what the demo may not do
        enabled = [n for n, a in demo.toolbar_actions.actions.items() if a.isEnabled()]
        assert enabled == ["actionExport"] and not demo.send_button.isEnabled()
        assert demo.windowTitle().endswith(" (read-only demo) — ikgui")
        # the demo's settings change its session only: no config.toml is written
        demo.services.save_settings(replace(demo.session.settings, theme="dark"))
        assert demo.session.settings.theme == "dark"
    finally:
        await closed(demo)
        await closed(win)


def test_the_window_is_grouped_into_sub_packages() -> None:
    parts = {p.parent.name for p in UI.glob("*/__init__.py")}
    assert parts == {"prompt", "settings", "sidebar", "transcript", "window"}
    assert not list(UI.glob("sidebar_*.py")) and not list(UI.glob("scrollback*.py"))
    assert not list(UI.glob("settings_*.py"))


def test_dead_code_stays_out() -> None:
    assert not hasattr(loop, "asyncSlot")
    assert not hasattr(ConversationTree, "loaded_ids")
    assert not hasattr(ScrollbackView, "load_earlier_requested")
    for path in UI.rglob("*.py"):
        assert "next issue" not in path.read_text(encoding="utf-8"), path
