"""Chips outside the list: a wrapping layout for them and their look (accent-tinted
pills in the palette's colours, like the chips the row delegate paints). Used by the
tag filter's chips and the tag editor's."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget

from ikgui.ui.sidebar.delegate import mix


def chip_style(palette: QPalette, chip: str, quiet: str) -> str:
    """A style sheet for ``QToolButton#<chip>`` pills and ``#<quiet>`` text buttons (and
    ``QLabel#tagFilterSummary`` and ``#tagChipsMore``)."""
    role = QPalette.ColorRole
    ground, text = palette.color(role.Base), palette.color(role.Text)
    accent = palette.color(role.Accent)
    fill, hover = mix(ground, accent, 0.18), mix(ground, accent, 0.32)
    ink, muted = mix(text, accent, 0.35), mix(text, ground, 0.4)
    return (
        f"QToolButton#{chip} {{ border: none; border-radius: 10px; padding: 2px 9px;"
        f" background: {fill.name()}; color: {ink.name()}; }}"
        f" QToolButton#{chip}:hover {{ background: {hover.name()}; }}"
        f" QToolButton#{quiet} {{ border: none; background: transparent;"
        f" color: {muted.name()}; padding: 2px 4px; }}"
        f" QToolButton#{quiet}:hover {{ color: {text.name()}; }}"
        f" QLabel#tagFilterSummary, QLabel#tagChipsMore {{ color: {muted.name()};"
        " padding: 2px 2px; }"
    )


class FlowLayout(QLayout):
    """Children left to right, wrapping onto new lines (the chips)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        return size

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        x, y, line_h = rect.x(), rect.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x + hint.width() > rect.right() + 1 and line_h:
                x, y, line_h = rect.x(), y + line_h + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            line_h = max(line_h, hint.height())
        return y + line_h - rect.y()
