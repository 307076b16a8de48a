"""The plain text of a part of the transcript, as copying it should give: code blocks
without their header line (language and Copy), and tables as rows of tab-separated cells
(so they paste into a spreadsheet or an editor as a table)."""

from __future__ import annotations

from PySide6.QtGui import (
    QTextBlock,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextTable,
)

from ikgui.ui.transcript.code_blocks import HEADER_PROPERTY
from ikgui.ui.transcript.items import EVENT_ID_PROPERTY

#: What ``QTextDocument.toPlainText`` turns into plain characters.
_PLAIN = str.maketrans({"\u2028": "\n", "\u2029": "\n", "\u00a0": " "})


def fragment_text(fragment: QTextDocumentFragment, tables: bool = True) -> str:
    """``fragment``'s plain text; with ``tables``, each table as tab-separated rows
    (else one cell per line, as Qt gives it)."""
    document = QTextDocument()
    QTextCursor(document).insertFragment(fragment)
    return document_text(document, tables)


def document_text(document: QTextDocument, tables: bool = True) -> str:
    lines: list[str] = []
    block = document.begin()
    while block.isValid():
        table = QTextCursor(block).currentTable() if tables else None
        if table is not None:
            lines.extend(_rows(table))
            block = document.findBlock(table.lastPosition() + 1)
            continue
        if not block.blockFormat().hasProperty(HEADER_PROPERTY):
            lines.append(block.text())
        block = block.next()
    return "\n".join(lines).translate(_PLAIN)


def _rows(table: QTextTable) -> list[str]:
    """A table's rows, cells separated by tabs (a cell's own line breaks as spaces)."""
    rows = []
    for row in range(table.rows()):
        cells = []
        for column in range(table.columns()):
            cell = table.cellAt(row, column)
            if cell.row() != row or cell.column() != column:
                cells.append("")  # covered by a merged cell
                continue
            texts = []
            block: QTextBlock = cell.firstCursorPosition().block()
            while block.isValid() and block.position() <= cell.lastPosition():
                texts.append(block.text())
                block = block.next()
            cells.append(" ".join(t.strip() for t in texts if t.strip()).replace("\t", " "))
        rows.append("\t".join(cells))
    if table.format().hasProperty(EVENT_ID_PROPERTY):  # a mark: a rule, its label, a rule
        return [" ".join(" ".join(rows).split())]
    return rows
