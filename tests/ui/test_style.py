"""Icons and the style: every action icon renders in both themes; the style sheet is
filled from the palette; light and dark palettes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor, QIcon, QImage, QPalette
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from ikgui.ui import icons, style

ACTIONS = [
    "new",
    "mark",
    "rewind",
    "fork",
    "clear",
    "stop",
    "rename",
    "tags",
    "export",
    "delete",
    "settings",
    "send",
    "trash",
    "restore",
    "search",
    "context",
    "retry",
    "copy",
    "warning",
]


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


def painted(image: QImage) -> list[QColor]:
    """The colours of the pixels that are (mostly) opaque."""
    return [
        image.pixelColor(x, y)
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).alpha() > 200
    ]


def test_every_action_has_an_icon_file() -> None:
    assert set(ACTIONS) <= set(icons.ICON_NAMES)
    for name in [*ACTIONS, "ikgui"]:
        path = icons.resource_path("icons", f"{name}.svg")
        assert path.is_file(), path
        text = path.read_text("utf-8")
        assert 'viewBox="0 0 24 24"' in text or name == "ikgui"
        if name != "ikgui":
            assert 'stroke="currentColor"' in text and 'stroke-linecap="round"' in text


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [16, 24])
def test_icons_render_in_the_palette_text_colour(app: QApplication, theme: str, size: int) -> None:
    palette = style.dark_palette() if theme == "dark" else style.light_palette()
    app.setPalette(palette)
    text = palette.color(QPalette.ColorRole.WindowText)
    for name in ACTIONS:
        image = icons.icon(name).pixmap(size, size).toImage()
        assert image.width() == size, name
        pixels = painted(image)
        assert len(pixels) >= size, f"{name} at {size} px draws (almost) nothing"
        assert all(abs(c.lightness() - text.lightness()) < 40 for c in pixels), name


def test_disabled_icons_are_dimmed(app: QApplication) -> None:
    app.setPalette(style.light_palette())
    normal = icons.icon("send").pixmap(24, 24, QIcon.Mode.Normal).toImage()
    disabled = icons.icon("send").pixmap(24, 24, QIcon.Mode.Disabled).toImage()
    darkest_normal = min(c.lightness() for c in painted(normal))
    darkest_disabled = min(c.lightness() for c in painted(disabled))
    assert darkest_disabled > darkest_normal + 60


def test_icons_are_cached_per_colour(app: QApplication) -> None:
    app.setPalette(style.light_palette())
    assert icons.icon("copy").cacheKey() == icons.icon("copy").cacheKey()
    light = icons.icon("copy").cacheKey()
    app.setPalette(style.dark_palette())
    assert icons.icon("copy").cacheKey() != light


def test_an_unknown_icon_is_an_error() -> None:
    with pytest.raises(KeyError):
        icons.icon("no-such-icon")


def test_the_app_icon_renders_small_and_large(app: QApplication) -> None:
    icon = icons.app_icon()
    assert not icon.isNull()
    for size in (16, 256):
        image = icon.pixmap(size, size).toImage()
        assert image.width() == size
        assert len(painted(image)) > size * size // 2


def test_apply_style_sets_fusion_a_palette_and_a_style_sheet(app: QApplication) -> None:
    style.apply_style(app, "dark")
    assert style.is_dark(app.palette())
    sheet = app.styleSheet()
    app.setStyleSheet("")  # (with a style sheet, app.style() is a nameless wrapper)
    assert app.style().name().lower() == "fusion"
    app.setStyleSheet(sheet)
    for selector in ("#promptEditor", "#workingPromptEditor", "#banner", "#sendButton"):
        assert selector in sheet
    assert "#stopButton" in sheet and "QToolBar" in sheet and "QStatusBar" in sheet
    assert "${" not in sheet
    assert style.ACCENT_DARK in sheet
    assert style.current_theme(app) == "dark"
    style.apply_style(app, "light")
    assert not style.is_dark(app.palette())
    assert style.ACCENT_LIGHT in app.styleSheet()
    assert app.styleSheet() != sheet


def test_system_theme_follows_the_colour_scheme(app: QApplication) -> None:
    style.apply_style(app, "system")
    assert style.current_theme(app) == "system"
    # offscreen reports no scheme: the light theme
    assert style.is_dark(app.palette()) == (
        app.styleHints().colorScheme() == style.Qt.ColorScheme.Dark
    )


def test_is_dark() -> None:
    assert style.is_dark(style.dark_palette())
    assert not style.is_dark(style.light_palette())


def test_a_theme_change_re_tints_icons(app: QApplication, qtbot: QtBot) -> None:
    button = QPushButton("Send")
    qtbot.addWidget(button)
    style.apply_style(app, "light")
    icons.set_icon(button, "send")
    light = button.icon().cacheKey()
    style.apply_style(app, "dark")
    assert button.icon().cacheKey() != light
    image = button.icon().pixmap(24, 24).toImage()
    assert min(c.lightness() for c in painted(image)) > 150  # light strokes on dark


def test_the_style_sheet_styles_the_banner(app: QApplication, qtbot: QtBot) -> None:
    style.apply_style(app, "light")
    from PySide6.QtWidgets import QLabel

    banner = QLabel("No system keyring is available")
    banner.setObjectName("banner")
    qtbot.addWidget(banner)
    banner.resize(300, 40)
    banner.show()
    image = banner.grab().toImage()
    background = image.pixelColor(150, 20)
    assert background.name() != app.palette().color(QPalette.ColorRole.Window).name()
    assert background.red() > background.blue()  # a warm, soft warning colour
