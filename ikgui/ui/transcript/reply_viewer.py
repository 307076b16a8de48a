"""Read-only windows for what the transcript shows only in part: the full text of a long
reply (``FullTextDialog``) and a big Markdown table as a real table (``TableDialog``).

Both stay responsive whatever the size. The text viewer is a ``QPlainTextEdit`` (it lays
out only what is visible) filled in slices from a timer; lines longer than
:data:`LINE_SPLIT` are split for display only, since Qt lays out one paragraph as a
whole. The table is a ``QTableView`` over a model that splits a row into cells only when
it is painted. Copy always copies the original text. Everything is plain text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.text.safe import one_line, reveal_bidi
from ikgui.ui.plain import tooltip
from ikgui.ui.transcript.render_budget import split_row

#: Characters the viewer adds per timer tick (~30 ms on a slow machine).
SLICE = 200_000
#: A line longer than this is shown as several (the text itself is not changed).
LINE_SPLIT = 4_000
#: Characters of a table the table window takes in (~20,000 rows of 100 cells); the rows
#: past them are counted and left to "Open full reply".
TABLE_TEXT_CAP = 2_000_000
_LONG_RUN = re.compile(rf"([^\n]{{{LINE_SPLIT}}})(?=[^\n])")
_Index = QModelIndex | QPersistentModelIndex


class FullTextDialog(QDialog):
    """The whole text of one item, read-only, with Copy (objectName ``fullTextDialog``)."""

    def __init__(self, text: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fullTextDialog")
        self.setWindowTitle(one_line(title))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(900, 700)
        self.text = text
        self._loaded = 0
        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("fullText")
        self.editor.setReadOnly(True)
        self.editor.setUndoRedoEnabled(False)
        self.editor.document().setUndoRedoEnabled(False)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.status = QLabel(self)
        self.status.setObjectName("fullTextStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.setObjectName("fullTextCopy")
        copy.clicked.connect(self.copy_all)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.editor)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._load_slice)
        self._timer.start()
        self._show_status()

    def loaded(self) -> bool:
        return self._loaded >= len(self.text)

    def copy_all(self) -> None:
        """The original text, all of it, even before it is all shown."""
        QGuiApplication.clipboard().setText(self.text)

    def _load_slice(self) -> None:
        start, stop = self._loaded, min(len(self.text), self._loaded + SLICE)
        piece = reveal_bidi(_LONG_RUN.sub(r"\1\n", self.text[start:stop]))
        cursor = self.editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        cursor.insertText(piece)
        self._loaded = stop
        if start == 0:
            self.editor.moveCursor(self.editor.textCursor().MoveOperation.Start)
        if self.loaded():
            self._timer.stop()
        self._show_status()

    def _show_status(self) -> None:
        total = len(self.text)
        if self.loaded():
            self.status.setText(
                f"{total:,} characters. Lines longer than {LINE_SPLIT:,} characters are "
                "shown split; Copy copies the text as it is."
            )
        else:
            self.status.setText(f"Loading… {self._loaded:,} of {total:,} characters")


class PipeTableModel(QAbstractTableModel):
    """The rows of a Markdown table, split into cells when first shown."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lines = text.split("\n")
        self.header = [one_line(cell) for cell in split_row(lines[0])] if lines else []
        self.lines = lines[2:]
        self._row = lru_cache(maxsize=512)(self._split)

    def _split(self, row: int) -> list[str]:
        return [one_line(cell) for cell in split_row(self.lines[row])]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.lines)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.header)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        cells = self._row(index.row())
        cell = cells[index.column()] if index.column() < len(cells) else ""
        return tooltip(cell) if role == Qt.ItemDataRole.ToolTipRole else cell

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.header[section] if section < len(self.header) else ""
        return str(section + 1)


class TableDialog(QDialog):
    """One Markdown table in a ``QTableView`` (objectName ``tableDialog``), with Copy."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tableDialog")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(1000, 700)
        self.text = text
        shown = text
        if len(text) > TABLE_TEXT_CAP:
            shown = text[: max(text.rfind("\n", 0, TABLE_TEXT_CAP), 0)]
        self.model = PipeTableModel(shown, self)
        rows, columns = max(text.count("\n") - 1, 0), self.model.columnCount()
        self.setWindowTitle(f"Table: {rows:,} rows × {columns:,} columns")
        self.note = QLabel(self)
        self.note.setObjectName("tableNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setVisible(self.model.rowCount() < rows)
        self.note.setText(
            f"Showing the first {self.model.rowCount():,} of {rows:,} rows; the reply's "
            "full text has them all, and Copy copies the whole table."
        )
        self.view = QTableView(self)
        self.view.setObjectName("tableView")
        self.view.setModel(self.model)
        self.view.setWordWrap(False)
        header = self.view.horizontalHeader()
        header.setDefaultSectionSize(120)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.setObjectName("tableCopy")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text))
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
