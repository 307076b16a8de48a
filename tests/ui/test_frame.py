"""The window's frame as a first-time user meets it (issue 20): tooltips readable in both
themes, no blank column beside a conversation, the sidebar over the transcript when the
window is too narrow for both, F6 stopping only where the keyboard can be seen, the
demo's title, Export's folder and name, plain dialog buttons and the centre's title."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import (
    QApplication,
    QDialogButtonBox,
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QToolTip,
    QWidget,
)
from pytestqt.qtbot import QtBot

from ikgui.app.root import open_demo
from ikgui.ui import questions
from ikgui.ui.prompt.working_prompt import COLLAPSED_WIDTH
from ikgui.ui.window.export_file import documents, file_name
from ikgui.ui.window.main_window import MainWindow
from ikgui.ui.window.splitter import least_width
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import laid_out, wait_until
from tests.ui.styled import app_styled, gone
from tests.ui.test_window import closed, opened, reply, settle, type_and_send, write_config

__all__ = ["wire_server", "wire_server_session"]


def luminance(color: QColor) -> float:
    """WCAG 2's relative luminance."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in (color.redF(), color.greenF(), color.blueF()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def text_contrast(image: QImage, inset: int = 3) -> float:
    """The contrast of the text drawn on ``image`` against its background: the commonest
    colour inside the border is the background, the pixel furthest from it the text."""
    counts: dict[int, int] = {}
    for y in range(inset, image.height() - inset):
        for x in range(inset, image.width() - inset):
            rgb = image.pixel(x, y)
            counts[rgb] = counts.get(rgb, 0) + 1
    background = QColor(max(counts, key=lambda rgb: counts[rgb]))
    return max(contrast(background, QColor(rgb)) for rgb in counts)


def shown_tip() -> QWidget | None:
    tips = [w for w in QApplication.topLevelWidgets() if w.inherits("QTipLabel")]
    return next((w for w in tips if w.isVisible()), None)


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_a_shown_tooltip_reads_against_its_background(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, theme: str
) -> None:
    with app_styled(theme):
        home = tmp_path / "home"
        write_config(home, wire_server.url)
        win = await opened(home)
        try:
            send = win.send_button
            QToolTip.showText(send.mapToGlobal(QPoint(4, 4)), send.toolTip(), send)
            await wait_until(lambda: shown_tip() is not None)
            tip = shown_tip()
            assert tip is not None
            image = tip.grab().toImage()
            image.save(f"/tmp/lay/tip-{theme}.png")
            assert text_contrast(image) >= 4.5
        finally:
            QToolTip.hideText()
            await closed(win)
            gone(win)


def blank_at_the_right(win: MainWindow) -> int:
    """Pixels between the transcript's right edge and the window's, beside the working
    prompt collapsed to its toggle and the splitter's handle."""
    stack = win.centre_stack
    right = stack.mapTo(win, stack.rect().topRight()).x() + 1
    return win.width() - right - win.working.width() - win.splitter.handleWidth()


async def roomy(win: MainWindow, width: int = 1340, height: int = 820) -> None:
    win.resize(width, height)
    await wait_until(lambda: win.width() == width)
    await laid_out()  # the layouts settle in posted events (never processEvents here)


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_no_blank_column_beside_a_conversation_without_a_working_prompt(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, theme: str
) -> None:
    with app_styled(theme):
        first = await opened(tmp_path / "first", check_timeout=0.5)  # the first run
        try:
            for width in (1340, 1920, 800):
                await roomy(first, width, 700)
                assert first.working.collapsed
                assert first.working.width() <= COLLAPSED_WIDTH
                assert blank_at_the_right(first) <= 2, width
        finally:
            await closed(first)
            gone(first)
        home = tmp_path / "home"
        write_config(home, wire_server.url, prompt_mode="off")
        win = await opened(home)
        try:
            wire_server.route("/v1/chat/completions", reply("The aurora ", "borealis glows."))
            await type_and_send(qtbot, win, "northern lights")
            await settle(win)
            await roomy(win)
            assert win.working.collapsed and blank_at_the_right(win) <= 2
            win.prompt_panel.toggle()  # shown, then put away again: still no gap
            await roomy(win, 1341)
            assert not win.working.collapsed
            win.prompt_panel.toggle()
            await roomy(win, 1340)
            assert win.working.collapsed and blank_at_the_right(win) <= 2
            # the transcript takes all but the sidebar, the toggle and the handles
            room = win.width() - win.sidebar.width() - COLLAPSED_WIDTH
            assert win.centre_stack.width() >= room - 2 * win.splitter.handleWidth() - 4
        finally:
            await closed(win)
            gone(win)


async def test_a_narrow_window_shows_the_sidebar_over_the_transcript(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)  # (the agent drafts prompts: the panel is open)
    with app_styled("light"):
        win = await opened(home)
        try:
            wire_server.route("/v1/chat/completions", reply("Fine."))
            await type_and_send(qtbot, win, "first")
            await settle(win)
            await roomy(win, 800, 600)
            win.activateWindow()
            assert not win.working.collapsed
            before = win.centre_stack.width()
            toggle = win.chrome.responsive.sidebar_toggle
            qtbot.keyClick(win.prompt, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
            assert QApplication.focusWidget() is win.sidebar.search_box  # Ctrl+F shows it
            qtbot.keyClick(win.sidebar.search_box, Qt.Key.Key_Escape)  # (nothing typed)
            assert not win.sidebar.isVisible() and not toggle.isChecked()
            toggle.trigger()
            await wait_until(lambda: win.sidebar.isVisible())
            side, stack = win.sidebar, win.centre_stack
            assert stack.width() == before  # over it, not beside it
            over = side.geometry().intersected(stack.geometry().translated(win.splitter.pos()))
            assert not over.isEmpty()
            assert side.width() >= 240 and side.height() == win.splitter.height()
            assert side.view.hasFocus() or side.isAncestorOf(QApplication.focusWidget())
            qtbot.keyClick(side.view, Qt.Key.Key_Escape)  # Escape puts it away
            assert not side.isVisible() and not toggle.isChecked()
            assert QApplication.focusWidget() is win.prompt
            toggle.trigger()
            win.scrollback.setFocus()  # the keyboard elsewhere: put away
            assert not side.isVisible()
            toggle.trigger()
            side.conversation_activated.emit(win.current_id, None)  # a conversation chosen
            assert not side.isVisible()
            await roomy(win, 1340, 820)  # room for both: beside the transcript again
            assert side.isVisible() and win.splitter.indexOf(side) == 0
            assert side.width() >= least_width(side)
            assert side.geometry().right() < win.pane.geometry().left()
        finally:
            await closed(win)
            gone(win)


def f6_stops(win: MainWindow, qtbot: QtBot, start: QWidget) -> list[QWidget]:
    """Press F6 from ``start`` until the keyboard is back there: every stop on the way."""
    start.setFocus()
    stops: list[QWidget] = []
    for _ in range(10):
        focus = QApplication.focusWidget()
        assert focus is not None
        qtbot.keyClick(focus, Qt.Key.Key_F6)
        now = QApplication.focusWidget()
        assert now is not None and now is not focus, "F6 left the keyboard where it was"
        if now is start:
            return stops
        stops.append(now)
    raise AssertionError(f"F6 never came back: {[w.objectName() for w in stops]}")


def assert_visible_and_shown_focused(win: MainWindow, qtbot: QtBot, start: QWidget) -> None:
    stops = f6_stops(win, qtbot, start)
    assert win.working.toggle not in stops
    looks = {}
    for stop in [start, *stops]:
        stop.setFocus(Qt.FocusReason.ShortcutFocusReason)
        assert stop.isVisible() and stop.width() > 0 and stop.height() > 0, stop.objectName()
        looks[stop] = stop.grab().toImage()
    for stop, focused in looks.items():  # seen again without the keyboard: it looks other
        other = start if stop is not start else stops[0]
        other.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if stop is win.sidebar.view:
            continue  # the sidebar's own focus ring is the sidebar's (issue 20, item 17)
        assert stop.grab().toImage() != focused, f"{stop.objectName()} shows no focus"


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_every_f6_stop_is_shown_and_shows_the_keyboard(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, theme: str
) -> None:
    with app_styled(theme):
        first = await opened(tmp_path / "first", check_timeout=0.5)  # the welcome
        try:
            first.activateWindow()
            assert first.working.collapsed
            assert_visible_and_shown_focused(first, qtbot, first.prompt)
        finally:
            await closed(first)
            gone(first)
        home = tmp_path / "home"
        write_config(home, wire_server.url, prompt_mode="off")
        win = await opened(home)
        try:
            wire_server.route("/v1/chat/completions", reply("The aurora ", "borealis glows."))
            await type_and_send(qtbot, win, "northern lights")
            await settle(win)
            win.activateWindow()
            assert win.working.collapsed
            qtbot.keyClick(win.prompt, Qt.Key.Key_F6)  # from the prompt: not the toggle
            assert QApplication.focusWidget() is not win.working.toggle
            assert_visible_and_shown_focused(win, qtbot, win.prompt)
            win.prompt_panel.toggle()  # shown: its editor is a stop
            assert win.working.editor in f6_stops(win, qtbot, win.prompt)
            await roomy(win, 800, 600)  # narrow: the sidebar is put away, no stop
            assert not win.sidebar.isVisible()
            assert win.sidebar.view not in f6_stops(win, qtbot, win.prompt)
        finally:
            await closed(win)
            gone(win)


def as_shown(title: str, display_name: str = "ikgui") -> str:
    """A window title as Qt hands it to the desktop: the application's display name is
    added unless the title ends with it (``QPlatformWindow::formatWindowTitle``)."""
    return title if title.endswith(display_name) else f"{title} — {display_name}"


async def test_the_demo_s_title_names_the_app_once(tmp_path: Path, qtbot: QtBot) -> None:
    win = await opened(tmp_path / "home", check_timeout=0.3)
    demo: MainWindow = open_demo()
    try:
        demo.chrome.refresh()
        shown = as_shown(demo.windowTitle())
        assert shown.count("ikgui") == 1 and "read-only" in shown, shown
        assert as_shown(win.windowTitle()).count("ikgui") == 1
    finally:
        await closed(demo)
        await closed(win)


async def test_export_starts_in_documents_under_the_title(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, str]] = []

    def save_as(parent: QWidget, caption: str, start: Path, kinds: str, then: object) -> None:
        asked.append((caption, str(start)))  # (never answered: cancelled)

    monkeypatch.setattr(questions, "ask_save_path", save_as)
    home = tmp_path / "home"
    write_config(home, wire_server.url, prompt_mode="off")
    win = await opened(home)
    try:
        wire_server.route("/v1/chat/completions", reply("Fine."))
        await type_and_send(qtbot, win, "plans")
        await settle(win)
        win.sidebar.rename_requested.emit(win.current_id, 'Plans: Q3/Q4 "draft"?\u202e')
        await wait_until(lambda: win.session.conversation.title.startswith("Plans"))
        win.toolbar_actions["actionExport"].trigger()
        assert len(asked) == 1
        start = Path(asked[0][1])
        assert start.parent == documents() and start.parent != Path.cwd()
        assert start.name == "Plans Q3 Q4 draft.json"
    finally:
        await closed(win)


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Trip planning: Lofoten in March", "Trip planning Lofoten in March.json"),
        ("../../etc/passwd", "etc passwd.json"),
        ("a\nb\tc\u200fd", "a b c d.json"),
        ("CON", "abc123.json"),
        ("...", "abc123.json"),
        ("", "abc123.json"),
        ("x" * 200, "x" * 80 + ".json"),
    ],
)
def test_an_export_s_file_name_is_the_title_made_safe(title: str, name: str) -> None:
    assert file_name(title, "abc123") == name


class StockIcons(QProxyStyle):
    """Fusion as a Linux desktop's theme makes it: stock icons on dialog buttons."""

    def styleHint(self, hint, option=None, widget=None, data=None):  # type: ignore[no-untyped-def]
        if hint == QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons:
            return 1
        return super().styleHint(hint, option, widget, data)


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_dialog_buttons_carry_no_stock_icons(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, theme: str
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    with app_styled(theme) as app:
        app.setStyle(StockIcons(QStyleFactory.create("Fusion")))
        win = await opened(home)
        try:
            win.open_settings()
            dialogs = [win.settings_dialog, win.keys.show_shortcuts()]
            boxes = [b for d in dialogs for b in d.findChildren(QDialogButtonBox)]
            assert len(boxes) >= 2
            for box in boxes:
                for button in box.buttons():
                    assert button.icon().isNull(), f"{button.text()} has a stock icon"
            for dialog in dialogs:
                dialog.close()
        finally:
            await closed(win)
            gone(win)


async def test_the_centre_shows_the_title_and_a_click_renames_it(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url, prompt_mode="off")
    win = await opened(home)
    try:
        header = win.pane.title_header
        assert not header.isVisible()  # the first run's welcome: nothing named yet
        wire_server.route("/v1/chat/completions", reply("Fine."))
        await type_and_send(qtbot, win, "plans")
        await settle(win)
        conv_id = win.current_id
        assert header.isVisible() and header.shown_text() == win.session.conversation.title
        win.toolbar_actions["actionNew"].trigger()
        await wait_until(lambda: win.current_id != conv_id)
        assert header.shown_text() == "New conversation"
        qtbot.mouseClick(header.button, Qt.MouseButton.LeftButton)  # not stored yet
        assert header.currentWidget() is header.button
        win.open_conversation(conv_id)
        await wait_until(lambda: win.current_id == conv_id)
        qtbot.mouseClick(header.button, Qt.MouseButton.LeftButton)
        assert header.currentWidget() is header.editor and header.editor.hasSelectedText()
        qtbot.keyClicks(header.editor, "Trips <b>&</b> plans")  # typed over the old title
        qtbot.keyClick(header.editor, Qt.Key.Key_Return)
        renamed = "Trips <b>&</b> plans"
        await wait_until(lambda: win.store.get_conversation(conv_id).title == renamed)  # type: ignore[union-attr]
        await wait_until(lambda: header.shown_text() == "Trips <b>&</b> plans")  # plain
        assert header.currentWidget() is header.button
        qtbot.mouseClick(header.button, Qt.MouseButton.LeftButton)  # Escape: unchanged
        qtbot.keyClicks(header.editor, "never")
        qtbot.keyClick(header.editor, Qt.Key.Key_Escape)
        assert win.store.get_conversation(conv_id).title == "Trips <b>&</b> plans"  # type: ignore[union-attr]
        long = "A very long title about the northern lights over the fjord " * 4
        win.sidebar.rename_requested.emit(conv_id, long.strip())  # renamed elsewhere
        await wait_until(lambda: header.shown_text().endswith("…"))
        assert header.shown_text().startswith("A very long title")
        assert header.button.width() <= win.pane.width()
        assert win.minimumWidth() <= 800  # a long title never widens the window
    finally:
        await closed(win)


async def test_the_demo_s_title_is_not_renamed(tmp_path: Path, qtbot: QtBot) -> None:
    win = await opened(tmp_path / "home", check_timeout=0.3)
    demo: MainWindow = open_demo()
    try:
        header = demo.pane.title_header
        before = header.title
        assert before and header.isVisible()
        qtbot.mouseClick(header.button, Qt.MouseButton.LeftButton)
        assert header.currentWidget() is header.button and header.title == before
    finally:
        await closed(demo)
        await closed(win)
