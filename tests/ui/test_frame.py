"""The window's frame as a first-time user meets it (issue 20): tooltips readable in both
themes, no blank column beside a conversation, the sidebar over the transcript when the
window is too narrow for both, F6 stopping only where the keyboard can be seen, the
demo's title, Export's folder and name, plain dialog buttons and the centre's title."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QToolTip, QWidget
from pytestqt.qtbot import QtBot

from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.styled import app_styled, gone
from tests.ui.test_window import closed, opened, write_config

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
