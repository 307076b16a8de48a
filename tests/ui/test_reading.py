"""Reading comfort: the transcript in a centred column of about 80 characters, a text size
that Ctrl+= / Ctrl+- / Ctrl+0 and Settings → General change and that survives a restart,
and room above headings and tables."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from pytestqt.qtbot import QtBot

from ikgui.config.loading import load_settings, save_settings
from ikgui.domain.events import Event
from ikgui.domain.settings import Settings, stepped_text_size
from ikgui.ui.settings.general import GeneralPage
from ikgui.ui.transcript.scrollback import ScrollbackView
from tests.ui.test_window import closed, opened

LONG = " ".join(["A sentence long enough to fill a wide line of the transcript."] * 12)


def column(view: ScrollbackView, event_ids: list[int]) -> tuple[float, float]:
    """The left and right edges of the items' frames, in viewport pixels."""
    layout = view.document().documentLayout()
    rects = []
    for event_id in event_ids:
        frame = view.item_frame(event_id)
        assert frame is not None
        rects.append(layout.frameBoundingRect(frame))
    return min(r.left() for r in rects), max(r.right() for r in rects)


def test_at_1920_px_the_text_is_a_centred_column(qtbot: QtBot) -> None:
    view = ScrollbackView()
    qtbot.addWidget(view)
    view.resize(1920, 900)
    view.show()
    view.show_events(
        [
            Event(1, "c", "user", LONG),
            Event(2, "c", "assistant", f"## Heading\n\n{LONG}", {"model": "m"}),
        ]
    )
    left, right = column(view, [1, 2])
    width = view.viewport().width()
    assert 600 <= right - left <= 860
    assert abs(left - (width - right)) <= 2  # centred
    view.resize(700, 900)  # narrower than the column: the text takes the width
    left, right = column(view, [1, 2])
    assert left <= 16 and view.viewport().width() - right <= 16


def test_a_heading_after_a_table_has_room_above_it(qtbot: QtBot) -> None:
    view = ScrollbackView()
    qtbot.addWidget(view)
    view.resize(900, 900)
    view.show()
    text = "Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n### After the table\n\nText."
    view.show_events([Event(1, "c", "assistant", text, {"model": "m"})])
    cell = view.document().find("2")
    heading = view.document().find("After the table")
    assert cell.currentTable() is not None
    table_bottom = view.cursorRect(cell).bottom()
    heading_top = view.cursorRect(QTextCursor(heading.block())).top()
    assert heading_top - table_bottom >= 14


def test_text_sizes_step_within_their_range() -> None:
    assert stepped_text_size(100, 1) == 110
    assert stepped_text_size(100, -1) == 90
    assert stepped_text_size(200, 1) == 200
    assert stepped_text_size(70, -1) == 70
    assert stepped_text_size(130, 0) == 100


def test_the_text_size_is_saved_in_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_settings(Settings(text_size=130), path)
    assert "text_size = 130" in path.read_text(encoding="utf-8")
    assert load_settings(path).text_size == 130
    path.write_text("[defaults]\ntext_size = 5\n", encoding="utf-8")
    loaded = load_settings(path)
    assert loaded.text_size == 100 and "defaults.text_size" in loaded.problems[0]


def test_settings_general_edits_the_text_size(qtbot: QtBot) -> None:
    page = GeneralPage(Settings(text_size=120), list, list, "system")
    qtbot.addWidget(page)
    assert page.text_size() == 120
    page.text_size_spin.setValue(150)
    assert page.text_size() == 150


async def test_ctrl_plus_enlarges_the_text_and_the_size_survives_a_restart(
    tmp_path: Path, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[providers.ollama]\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n',
        encoding="utf-8",
    )
    win = await opened(home, check_timeout=0.3)
    try:
        view = win.scrollback
        normal = view.font().pointSizeF()
        win.activateWindow()
        qtbot.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
        larger = view.font().pointSizeF()
        assert larger > normal * 1.15
        assert "text_size = 120" in (home / "config.toml").read_text(encoding="utf-8")
        qtbot.keyClick(view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
        assert normal < view.font().pointSizeF() < larger
    finally:
        await closed(win)
    win = await opened(home, check_timeout=0.3)
    try:
        view = win.scrollback
        assert view.text_size == 110 and view.font().pointSizeF() > normal
        qtbot.keyClick(view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
        assert view.font().pointSizeF() == normal
        assert load_settings(home / "config.toml").text_size == 100
        dialog = win.open_settings("general")  # Settings → General → Text size
        dialog.general_page.text_size_spin.setValue(150)
        dialog.save()
        assert view.text_size == 150 and view.font().pointSizeF() > normal * 1.4
        assert load_settings(home / "config.toml").text_size == 150
    finally:
        await closed(win)
