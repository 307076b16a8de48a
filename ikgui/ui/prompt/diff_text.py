"""Word-level differences drawn as plain text with formats: inserted words on a green
ground, deleted words struck through on a red one (never HTML: prompts are user and
model text)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor

from ikgui.domain.state.prompt_history import DiffOp

#: Translucent grounds read on light and dark themes alike.
INSERTED = QColor(46, 160, 67, 70)
DELETED = QColor(248, 81, 73, 70)
#: Keeps a deletion and the insertion that replaces it apart on screen.
THIN_SPACE = "\u2009"


def run_format(op: DiffOp) -> QTextCharFormat:
    fmt = QTextCharFormat()
    if op == "insert":
        fmt.setBackground(INSERTED)
        fmt.setToolTip("added")
    elif op == "delete":
        fmt.setBackground(DELETED)
        fmt.setFontStrikeOut(True)
        fmt.setToolTip("removed")
    return fmt


def write_diff(cursor: QTextCursor, runs: Sequence[tuple[DiffOp, str]]) -> None:
    """Insert ``runs`` at ``cursor`` as plain text, each with its format (a thin space
    keeps a deletion and the insertion that replaces it apart)."""
    previous = "equal"
    for op, text in runs:
        if previous == "delete" and op == "insert":
            cursor.insertText(THIN_SPACE, run_format("equal"))
        cursor.insertText(text, run_format(op))
        previous = op
