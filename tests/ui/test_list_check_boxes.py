"""A checkable row's box (the Compare picker's models, issue 25's note) is visible in both
themes: its frame at least 3:1 against the list's background (WCAG's non-text contrast),
and a checked box filled."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QStyle, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from tests.ui.styled import app_styled, gone
from tests.ui.test_sidebar_finish import _contrast


def _box(view: QListWidget, row: int) -> QRect:
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    index = view.model().index(row, 0)
    option.rect = view.visualRect(index)
    option.features |= QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
    element = QStyle.SubElement.SE_ItemViewItemCheckIndicator
    return view.style().subElementRect(element, option, view)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_rows_check_box_shows_in_both_themes(qtbot: QtBot, theme: str) -> None:
    with app_styled(theme):
        view = QListWidget()  # (deleted here, before the style is taken off)
        for name, state in (("gpt-4o", Qt.CheckState.Unchecked), ("llama", Qt.CheckState.Checked)):
            item = QListWidgetItem(name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(state)
            view.addItem(item)
        view.resize(300, 200)
        view.show()
        try:
            qtbot.waitExposed(view)
            image = view.viewport().grab().toImage()
            ground = view.palette().color(QPalette.ColorRole.Base)
            unchecked, checked = _box(view, 0), _box(view, 1)
            assert unchecked.width() >= 12, unchecked
            frame = max(
                (
                    image.pixelColor(x, unchecked.center().y())
                    for x in range(unchecked.left(), unchecked.center().x())
                ),
                key=lambda c: _contrast(c, ground),
            )
            assert _contrast(frame, ground) >= 3.0, (frame.name(), ground.name())
            fill = image.pixelColor(checked.left() + 3, checked.top() + 3)
            assert _contrast(fill, ground) >= 3.0, (fill.name(), ground.name())
        finally:
            view.close()
            gone(view)
