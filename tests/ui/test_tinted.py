"""The style sheet's tinted icons (the combo box and menu-button chevrons) are served from
memory by Qt's resource system (ikgui/ui/tinted.py): no file is written, and the
chevron a combo box shows is drawn in the theme's muted colour."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QIcon, QImage, QPalette
from PySide6.QtWidgets import QApplication, QComboBox
from pytestqt.qtbot import QtBot

from ikgui.ui import icons, style, tinted


@pytest.fixture
def app(qapp: QApplication) -> Iterator[QApplication]:
    """The application, with its look restored after the test."""
    sheet, palette, style_name = qapp.styleSheet(), QPalette(qapp.palette()), qapp.style().name()
    try:
        yield qapp
    finally:
        qapp.setProperty("ikguiTheme", None)
        qapp.setProperty("ikguiFusion", None)
        qapp.setStyleSheet(sheet)
        qapp.setStyle(style_name)
        qapp.setPalette(palette)
        qapp.styleHints().unsetColorScheme()
        icons.clear_cache()


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_making_the_style_and_its_icons_writes_no_file(
    app: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(style, "_tinted_dir", None, raising=False)  # the old folder
    for theme in ("light", "dark", "light"):
        style.apply_style(app, theme)
        for name in icons.ICON_NAMES:
            icons.icon(name).pixmap(24, 24)
    assert _files(tmp_path) == []
    assert ":/ikgui-tinted/chevron-down-" in app.styleSheet()


def _muted(palette: QPalette) -> QColor:
    text, window = palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Window)
    return style._mix(text, window, 0.45)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_chevron_resource_is_the_icon_in_the_tint(app: QApplication, theme: str) -> None:
    palette = style.dark_palette() if theme == "dark" else style.light_palette()
    muted = _muted(palette)
    image = QIcon(tinted.path("chevron-down", muted)).pixmap(96, 96).toImage()
    opaque = {
        image.pixelColor(x, y).name()
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).alpha() == 255
    }
    assert opaque == {muted.name()}


def _distance(a: QColor, b: QColor) -> int:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue())


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_combo_box_shows_its_chevron_in_the_muted_colour(
    app: QApplication, qtbot: QtBot, theme: str
) -> None:
    style.apply_style(app, theme)
    palette = app.palette()
    muted, base = _muted(palette), palette.color(QPalette.ColorRole.Base)
    combo = QComboBox()
    combo.addItems(["a model"])
    combo.resize(200, 32)
    qtbot.addWidget(combo)
    combo.show()
    qtbot.waitExposed(combo)
    image: QImage = combo.grab().toImage()
    arrow = [
        image.pixelColor(QPoint(x, y))
        for y in range(image.height())
        for x in range(image.width() - 24, image.width())
    ]
    # The pixel of the arrow region farthest from the field's background is the tint
    # (up to antialiasing), not the text colour nor black or white.
    ink = max(arrow, key=lambda c: _distance(c, base))
    assert _distance(ink, muted) < 40, (ink.name(), muted.name())
    assert _distance(ink, base) > 60


def test_the_resource_is_the_binary_rcc_writes() -> None:
    # Written by ``pyside6-rcc --binary --format-version 1 --no-compress`` for a file
    # named chevron-down-8a929c.svg holding ``<svg>x</svg>`` (PySide6 6.11).
    from_rcc = bytes.fromhex(
        "71726573000000010000005800000014000000240000000c3c7376673e783c2f7376673e"
        "0017072018c700630068006500760072006f006e002d0064006f0077006e002d0038006100"
        "39003200390063002e00730076006700000000000200000001000000010000000000000000"
        "000100000000"
    )
    assert tinted.rcc("chevron-down-8a929c.svg", b"<svg>x</svg>") == from_rcc
