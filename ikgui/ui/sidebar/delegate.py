"""Paints a sidebar row from its cached roles (never the store) and hosts the inline rename.

A row is two lines: the title in bold (a streaming badge at the right while a reply
arrives, a pin glyph on a pinned row); below, ``agent · N msgs · date`` and the tags as
small rounded chips (the date always shown: chips, then the rest of the line give way). Search
results add the matching snippet between the two. Closed branches are dimmed. A row is
indented by how deep it is nested, with an arrow when forks or versions are under it. A
group's header (``HeaderRole``: Pinned, Today, Yesterday...) is a row as tall as the
others, its name at the bottom, near the group's first row; the gap row (``GapRole``)
says conversations are being read. Every colour comes from the view's palette, so the
light and dark themes both read well.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtCore import Signal as _Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from ikgui.domain.events import ALTERNATIVE_REASONS
from ikgui.ui.icons import icon
from ikgui.ui.sidebar.chips import Chip, SecondLine, second_line
from ikgui.ui.sidebar.paint_helpers import distance as _distance
from ikgui.ui.sidebar.paint_helpers import mix as mix
from ikgui.ui.sidebar.paint_helpers import mixed as _mixed
from ikgui.ui.sidebar.paint_helpers import reader as _reader
from ikgui.ui.sidebar.paint_helpers import runs as _runs
from ikgui.ui.sidebar.rows import (
    BranchRole,
    ClosedRole,
    DepthRole,
    DetailRole,
    ExpandedRole,
    GapRole,
    HeaderRole,
    IdRole,
    PinnedRole,
    QueryRole,
    RelativeTimeRole,
    SnippetRole,
    StreamingRole,
    TagsRole,
    TitleRole,
    TrashedRole,
    VersionsRole,
    versions_text,
)
from ikgui.ui.sidebar.titles import fit_branch_title, shown_title
from ikgui.ui.sidebar.tree import ConversationTree

AnyIndex = QModelIndex | QPersistentModelIndex

PAD_X = 10
PAD_Y = 7
LINE_GAP = 3
#: Space below a group header's text (the rest of its row is above it).
HEADER_BOTTOM = 4
#: Each level of nesting indents a row by this much; a top-level row too (its arrow's
#: place).
INDENT = 16
STREAMING_TEXT = "replying"
#: Between a branch's glyph and its title; inside the ``3 versions`` pill.
GLYPH_GAP = 4
PILL_PAD = 5


def _paint_runs(
    painter: QPainter,
    fonts: _Fonts,
    line: QRect,
    text: str,
    query: str,
    ink: QColor,
    strong: QColor,
) -> None:
    """The snippet on one line, the words of the query in bold, elided at the right."""
    x, right = line.left(), line.right()
    align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    for piece, matched in _runs(text, query):
        font, metrics = (
            (fonts.small_bold, fonts.small_bold_fm) if matched else (fonts.small, fonts.small_fm)
        )
        width = metrics.horizontalAdvance(piece)
        last = x + width > right
        if last:
            piece = metrics.elidedText(piece, Qt.TextElideMode.ElideRight, right - x)
            width = metrics.horizontalAdvance(piece)
        painter.setFont(font)
        painter.setPen(strong if matched else ink)
        painter.drawText(QRect(x, line.top(), width + 1, line.height()), align, piece)
        x += width
        if last:
            break


def _draw_line(
    painter: QPainter, metrics: QFontMetrics, x: int, top: int, height: int, text: str
) -> None:
    """One line of (already elided) text, left-aligned and centred in ``height``: drawn at
    its baseline, the cheap path (a rectangle and flags lay the text out again)."""
    painter.drawText(QPoint(x, top + (height - metrics.height()) // 2 + metrics.ascent()), text)


class _TitleEdit(QLineEdit):
    """The inline title editor: all text selected, but scrolled to show its start."""

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        length = len(self.text())
        self.setCursorPosition(length)
        self.cursorBackward(True, length)


class _Fonts:
    def __init__(self, base: QFont) -> None:
        self.title = QFont(base)
        self.title.setWeight(QFont.Weight.DemiBold)
        self.untitled = QFont(base)
        self.untitled.setItalic(True)
        self.small = QFont(base)
        size = base.pointSizeF()
        if size > 0:
            self.small.setPointSizeF(max(7.0, size * 0.88))
        self.small_bold = QFont(self.small)
        self.small_bold.setWeight(QFont.Weight.DemiBold)
        self.small_bold_fm = QFontMetrics(self.small_bold)
        self.title_fm = QFontMetrics(self.title)
        self.untitled_fm = QFontMetrics(self.untitled)
        self.small_fm = QFontMetrics(self.small)
        self.chip_h = self.small_fm.height() + 2
        self.row_h = 2 * PAD_Y + self.title_fm.height() + LINE_GAP + self.chip_h


@dataclass(frozen=True)
class RowLayout:
    """Where a row's parts are painted (for the mouse, and to check the painting)."""

    pin: QRect | None  # the pin glyph of a pinned row
    line: SecondLine  # the detail, its date and the chips


def pin_place(data: Callable[[int], Any], fonts: _Fonts, rect: QRect, right: int) -> QRect | None:
    """Where a pinned row's pin glyph goes on line 1, ending at ``right`` (``None``:
    not pinned, or in the Trash, where pins do not count)."""
    if not data(PinnedRole) or data(TrashedRole):
        return None
    side = fonts.small_fm.height()
    line_h = fonts.title_fm.height()
    return QRect(right - side + 1, rect.top() + (line_h - side) // 2, side, side)


def indent_of(index: AnyIndex) -> int:
    """How far a row's content starts from its left edge (its arrow's place and its
    nesting; search results have neither)."""
    depth = index.data(DepthRole)
    return INDENT * (depth + 1) if isinstance(depth, int) else 0


def snippet_height(index: AnyIndex, fonts: _Fonts) -> int:
    """What a search result's snippet line adds to the plain two lines."""
    return LINE_GAP + fonts.small_fm.height() if index.data(SnippetRole) is not None else 0


class ConversationDelegate(QStyledItemDelegate):
    """Draws rows; the inline editor commits through ``rename_committed`` (an intent)."""

    rename_committed = _Signal(str, str)  # conv id, new title (whitespace collapsed)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._editing = QPersistentModelIndex()  # the row under the inline editor
        self._fonts: tuple[QFont, _Fonts] | None = None

    def fonts(self, font: QFont) -> _Fonts:
        """The fonts and metrics for ``font``, made once (every row asks, often)."""
        if self._fonts is None or self._fonts[0] != font:
            self._fonts = (QFont(font), _Fonts(font))
        return self._fonts[1]

    # -- geometry -------------------------------------------------------------------------
    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> Any:
        """Every row of the conversation list is as tall as the others (the view asks
        once); a search result is taller by its snippet line."""
        fonts = self.fonts(option.font)
        extra = 0 if isinstance(index.model(), ConversationTree) else snippet_height(index, fonts)
        return QSize(max(option.rect.width(), 0), fonts.row_h + extra)

    # -- painting --------------------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        data = _reader(index)
        header = data(HeaderRole)
        if header or data(GapRole):
            self._paint_other(painter, option, str(header or data(Qt.ItemDataRole.DisplayRole)))
            return
        opt, fonts = self._row_option(option)
        opt.state &= ~QStyle.StateFlag.State_HasFocus
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        if self._editing.isValid() and self._editing == index:
            return  # the editor covers the row

        palette: QPalette = opt.palette
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole
        text = palette.color(role.HighlightedText if selected else role.Text)
        ground = palette.color(role.Highlight if selected else role.Base)
        accent = palette.color(role.Accent)
        if selected and _distance(accent, ground) < 0.25:
            accent = text
        closed = bool(data(ClosedRole))
        if closed:
            text = _mixed(text, ground, 0.45)
        muted = _mixed(text, ground, 0.38)
        indent = indent_of(index)
        self._paint_arrow(painter, data, opt.rect, indent, muted)
        rect: QRect = opt.rect.adjusted(indent + PAD_X, PAD_Y, -PAD_X, -PAD_Y)

        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        line_h = fonts.title_fm.height()
        right = self._paint_badge(painter, data, fonts, rect, line_h, muted, accent)
        right = self._paint_pin(painter, data, fonts, rect, right, muted)
        right = self._paint_versions(painter, data, fonts, rect, right, muted)
        left = self._paint_glyph(painter, data, fonts, rect, muted)
        place = QRect(left, rect.top(), right - left, line_h)
        self._paint_title(painter, data, fonts, place, (text, muted))

        y = rect.top() + line_h + LINE_GAP
        snippet = data(SnippetRole)
        if snippet is not None:
            small_h = fonts.small_fm.height()
            line = QRect(rect.left(), y, rect.width(), small_h)
            words = str(data(QueryRole) or "")
            _paint_runs(painter, fonts, line, str(snippet), words, mix(text, ground, 0.25), text)
            y += small_h + LINE_GAP
        line2 = QRect(rect.left(), y, rect.width(), fonts.chip_h)
        detail = str(data(DetailRole) or "")
        if closed:
            detail = f"closed · {detail}"
        laid = self._second_line(data, fonts, line2, detail)
        self._paint_chips(painter, laid.chips, fonts, text, ground, accent)
        painter.setFont(fonts.small)
        painter.setPen(muted)
        _draw_line(painter, fonts.small_fm, line2.left(), y, fonts.chip_h, laid.text)
        painter.restore()

    def _row_option(self, option: QStyleOptionViewItem) -> tuple[QStyleOptionViewItem, _Fonts]:
        opt = QStyleOptionViewItem(option)
        # No ``initStyleOption``: it asks the model for ten roles the row never uses (its
        # text, icon, font, colours...); the style only paints the row's background.
        opt.text = ""
        return opt, self.fonts(opt.font)

    def _paint_other(self, painter: QPainter, opt: QStyleOptionViewItem, text: str) -> None:
        """A group's header (or the gap): its text on the list's own background, small,
        muted and bold, left-aligned with the titles, at the bottom of the row (near the
        rows it heads; the space above it parts it from the group before)."""
        fonts = self.fonts(opt.font)
        palette: QPalette = opt.palette
        # (A header is not a conversation: no item flags, so the style hands it the
        # palette's disabled colours; its text takes the active ones, muted.)
        active = QPalette.ColorGroup.Active
        ground = palette.color(active, QPalette.ColorRole.Base)
        ink = mix(palette.color(active, QPalette.ColorRole.Text), ground, 0.4)
        height = fonts.small_bold_fm.height()
        area = QRect(
            opt.rect.left() + INDENT + PAD_X,
            opt.rect.bottom() - HEADER_BOTTOM - height,
            opt.rect.width() - INDENT - 2 * PAD_X,
            height,
        )
        painter.save()
        painter.fillRect(opt.rect, ground)
        painter.setFont(fonts.small_bold)
        painter.setPen(ink)
        text = fonts.small_bold_fm.elidedText(text, Qt.TextElideMode.ElideRight, area.width())
        painter.drawText(area, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        painter.restore()

    def arrow_rect(self, option: QStyleOptionViewItem, index: AnyIndex) -> QRect | None:
        """Where the row's arrow is (``None``: nothing is nested under it)."""
        if index.data(ExpandedRole) is None:
            return None
        return self._arrow_cell(option.rect, indent_of(index))

    @staticmethod
    def _arrow_cell(rect: QRect, indent: int) -> QRect:
        return QRect(rect.left() + indent - INDENT, rect.top(), INDENT, rect.height())

    def _paint_arrow(
        self, painter: QPainter, data: Callable[[int], Any], rect: QRect, indent: int, ink: QColor
    ) -> None:
        """A chevron left of the title, pointing down when the row's forks or versions
        are shown below it, right when they are not."""
        expanded = data(ExpandedRole)
        if expanded is None:
            return
        cell = self._arrow_cell(rect, indent)
        side = min(INDENT, cell.height())
        square = QRect(0, 0, side, side)
        square.moveCenter(cell.center())
        painter.save()
        painter.translate(square.center())
        if not expanded:
            painter.rotate(-90)
        painter.translate(-square.center())
        icon("chevron-down", ink).paint(painter, square)
        painter.restore()

    def _paint_badge(
        self,
        painter: QPainter,
        data: Callable[[int], Any],
        fonts: _Fonts,
        rect: QRect,
        line_h: int,
        muted: QColor,
        accent: QColor,
    ) -> int:
        """The streaming badge at the right of line 1 while a reply arrives; returns the
        x where the title must end."""
        if not data(StreamingRole):
            return rect.right()
        painter.setFont(fonts.small)
        width = fonts.small_fm.horizontalAdvance(STREAMING_TEXT)
        left = rect.right() - width
        painter.setPen(accent)
        align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(QRect(left, rect.top(), width + 1, line_h), align, STREAMING_TEXT)
        dot = 7
        left -= dot + 5
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
        painter.drawEllipse(QRectF(left, rect.top() + (line_h - dot) / 2, dot, dot))
        return left - 8

    def _second_line(
        self, data: Callable[[int], Any], fonts: _Fonts, line: QRect, detail: str
    ) -> SecondLine:
        date = str(data(RelativeTimeRole) or "")
        tags = data(TagsRole) or ()
        return second_line(detail, date, tags, fonts.small_fm, fonts.chip_h, line)

    def _paint_chips(
        self,
        painter: QPainter,
        chips: list[Chip],
        fonts: _Fonts,
        text: QColor,
        ground: QColor,
        accent: QColor,
    ) -> None:
        """Tag chips right-aligned on the second line (see ``sidebar_chips``)."""
        if not chips:
            return
        fill = _mixed(ground, accent, 0.16)
        ink = _mixed(text, accent, 0.35)
        painter.setFont(fonts.small)
        for chip in chips:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(chip.rect, fonts.chip_h / 2, fonts.chip_h / 2)
            painter.setPen(ink)
            painter.drawText(chip.rect, Qt.AlignmentFlag.AlignCenter, chip.label)

    def _paint_pin(
        self,
        painter: QPainter,
        data: Callable[[int], Any],
        fonts: _Fonts,
        rect: QRect,
        right: int,
        ink: QColor,
    ) -> int:
        """A pin glyph at the right of line 1 for a pinned row; returns where the title
        must end."""
        place = pin_place(data, fonts, rect, right)
        if place is None:
            return right
        icon("pin", ink).paint(painter, place)
        return place.left() - 6

    def _paint_title(
        self,
        painter: QPainter,
        data: Callable[[int], Any],
        fonts: _Fonts,
        place: QRect,
        inks: tuple[QColor, QColor],
    ) -> None:
        """The title on line 1 (``Untitled`` in muted italics: ``inks`` is the text's
        colour and the muted one); a branch's own part kept whole, siblings differing
        at the end of their titles."""
        untitled = not data(Qt.ItemDataRole.EditRole)
        painter.setPen(inks[1] if untitled else inks[0])
        painter.setFont(fonts.untitled if untitled else fonts.title)
        metrics = fonts.untitled_fm if untitled else fonts.title_fm
        branch = data(BranchRole)
        shown = shown_title(str(data(TitleRole) or ""), branch is not None)
        if branch is None:
            title = metrics.elidedText(shown, Qt.TextElideMode.ElideRight, place.width())
        else:
            title = fit_branch_title(shown, metrics, place.width())
        _draw_line(painter, metrics, place.left(), place.top(), place.height(), title)

    def _paint_glyph(
        self,
        painter: QPainter,
        data: Callable[[int], Any],
        fonts: _Fonts,
        rect: QRect,
        ink: QColor,
    ) -> int:
        """A branch glyph at the left of line 1 for a deliberate branch (a fork, a
        compared model's answer); returns where the title starts."""
        reason = data(BranchRole)
        if reason is None or reason in ALTERNATIVE_REASONS:
            return rect.left()
        side = fonts.small_fm.height()
        top = rect.top() + (fonts.title_fm.height() - side) // 2
        icon("fork", ink).paint(painter, QRect(rect.left(), top, side, side))
        return rect.left() + side + GLYPH_GAP

    def _paint_versions(
        self,
        painter: QPainter,
        data: Callable[[int], Any],
        fonts: _Fonts,
        rect: QRect,
        right: int,
        ink: QColor,
    ) -> int:
        """``3 versions`` in a small outlined pill at the right of line 1 for a row with
        alternatives folded under it (edits, retries); returns where the title must end."""
        count = data(VersionsRole)
        if not count:
            return right
        label = versions_text(int(count))
        metrics = fonts.small_fm
        width = metrics.horizontalAdvance(label) + 2 * PILL_PAD
        height = fonts.chip_h
        place = QRect(
            right - width + 1, rect.top() + (fonts.title_fm.height() - height) // 2, width, height
        )
        painter.setFont(fonts.small)
        painter.setPen(ink)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(QRectF(place).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
        painter.drawText(place, Qt.AlignmentFlag.AlignCenter, label)
        return place.left() - 6

    def layout_of(self, option: QStyleOptionViewItem, index: AnyIndex) -> RowLayout:
        """Where the row painted in ``option.rect`` puts its pin glyph, date and chips."""
        fonts = self.fonts(option.font)
        data = _reader(index)
        rect: QRect = option.rect.adjusted(indent_of(index) + PAD_X, PAD_Y, -PAD_X, -PAD_Y)
        right = rect.right()
        if data(StreamingRole):
            right -= fonts.small_fm.horizontalAdvance(STREAMING_TEXT) + 7 + 5 + 8
        y = rect.top() + fonts.title_fm.height() + LINE_GAP
        if data(SnippetRole) is not None:
            y += fonts.small_fm.height() + LINE_GAP
        line = QRect(rect.left(), y, rect.width(), fonts.chip_h)
        detail = str(data(DetailRole) or "")
        if data(ClosedRole):
            detail = f"closed · {detail}"
        return RowLayout(
            pin_place(data, fonts, rect, right), self._second_line(data, fonts, line, detail)
        )

    def tag_at(self, option: QStyleOptionViewItem, index: AnyIndex, pos: QPoint) -> str | None:
        """The tag of the chip under ``pos`` in the row painted in ``option.rect``."""
        if self._editing.isValid() and self._editing == index:
            return None
        for chip in self.layout_of(option, index).line.chips:
            if chip.tag is not None and chip.rect.contains(QPointF(pos)):
                return chip.tag
        return None

    # -- inline rename -------------------------------------------------------------------
    def createEditor(
        self, parent: QWidget, option: QStyleOptionViewItem, index: AnyIndex
    ) -> QWidget:
        self._editing = QPersistentModelIndex(index)
        editor = _TitleEdit(parent)
        editor.setObjectName("renameEditor")
        editor.setAccessibleName("Conversation title")
        editor.setPlaceholderText("Untitled")
        return editor

    def setEditorData(self, editor: QWidget, index: AnyIndex) -> None:
        if isinstance(editor, QLineEdit):
            text = str(index.data(Qt.ItemDataRole.EditRole) or "")
            editor.setText(text)

    def destroyEditor(self, editor: QWidget, index: AnyIndex) -> None:
        self._editing = QPersistentModelIndex()
        super().destroyEditor(editor, index)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: AnyIndex) -> None:
        if not isinstance(editor, QLineEdit):
            return
        title = " ".join(editor.text().split())
        if title != (index.data(Qt.ItemDataRole.EditRole) or ""):
            self.rename_committed.emit(str(index.data(IdRole)), title)

    def updateEditorGeometry(
        self, editor: QWidget, option: QStyleOptionViewItem, index: AnyIndex
    ) -> None:
        rect: QRect = option.rect.adjusted(indent_of(index), 0, 0, 0)
        height = min(rect.height(), max(editor.sizeHint().height(), 24))
        top = rect.top() + (rect.height() - height) // 2
        editor.setGeometry(rect.left() + 4, top, rect.width() - 8, height)
