"""Reading comfort (a mixin of :class:`ikgui.ui.transcript.scrollback.ScrollbackView`): the
transcript's text in a centred column about 80 characters wide, the window's extra width
left as margin on both sides, and the body text at the size the user chose (a percentage
of a reading size a little above the interface font's)."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QFont, QFontMetricsF, QTextDocument
from PySide6.QtWidgets import QApplication, QWidget

from ikgui.domain.settings import TEXT_SIZE_DEFAULT

#: Characters of body text a line holds at most.
COLUMN_CHARACTERS = 80
#: The body text's size at 100 %, relative to the interface font.
READING_SCALE = 1.2
#: The document's margin where the view is narrower than the column.
MARGIN = 14
#: What an item's frame takes beside its text: the bubble's offset, padding and border.
_CHROME = 56 + 2 * 11
#: Text whose average character width stands for prose.
_SAMPLE = "The quick brown fox jumps over the lazy dog, then naps in the warm sun. 0123456789"


class _View(Protocol):
    text_size: int

    def document(self) -> QTextDocument: ...
    def font(self) -> QFont: ...
    def setFont(self, font: QFont) -> None: ...
    def viewport(self) -> QWidget: ...


def column_width(font: QFont) -> int:
    """The widest the text column gets for body text in ``font`` (items' chrome included)."""
    metrics = QFontMetricsF(font)
    average = metrics.horizontalAdvance(_SAMPLE) / len(_SAMPLE)
    return round(average * COLUMN_CHARACTERS + _CHROME)


def body_font(percent: int) -> QFont:
    """The transcript's font at ``percent`` of the reading size."""
    font = QFont(QApplication.font())
    size = font.pointSizeF() if font.pointSizeF() > 0 else 9.0
    font.setPointSizeF(round(size * READING_SCALE * percent / 100 * 4) / 4)
    return font


class ColumnMixin:
    #: The text size in percent (of the reading size).
    text_size = TEXT_SIZE_DEFAULT

    def set_text_size(self: _View, percent: int) -> None:
        """Show the body text at ``percent`` (the view re-renders on the font change)."""
        self.text_size = percent
        self.setFont(body_font(percent))
        ColumnMixin.apply_column(self)

    def apply_column(self: _View, width: int | None = None) -> None:
        """Centre the text in a column of :func:`column_width`, for a viewport ``width``
        (default: the viewport's)."""
        width = self.viewport().width() if width is None else width
        column = column_width(self.font())
        side = max(MARGIN, (width - column) // 2)
        root = self.document().rootFrame()
        fmt = root.frameFormat()
        if fmt.leftMargin() == side and fmt.rightMargin() == side:
            return
        fmt.setLeftMargin(side)
        fmt.setRightMargin(side)
        root.setFrameFormat(fmt)
