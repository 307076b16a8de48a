""" "Show context": exactly what the model receives next (the same as ``ikgui conv
context``), and what changed since the request of the last reply (issue 11, item 6)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtGui import QFontDatabase, QGuiApplication, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.folders import SystemPart
from ikgui.domain.state.context_diff import LineOp, line_diff
from ikgui.domain.state.reading import format_context
from ikgui.ui.plain import block, line, plain_label
from ikgui.ui.prompt.diff_text import run_format

Messages = list[dict[str, Any]]
_MARKS: dict[LineOp, str] = {"equal": "  ", "insert": "+ ", "delete": "− ", "skipped": "  "}


def _line_format(op: LineOp) -> QTextCharFormat:
    if op == "skipped":
        fmt = QTextCharFormat()
        fmt.setFontItalic(True)
        return fmt
    return run_format("equal" if op == "equal" else op)


class ContextDialog(QDialog):
    def __init__(
        self,
        conv_id: str,
        provider: str,
        model: str | None,
        messages: Messages,
        previous: Messages | None = None,
        parent: QWidget | None = None,
        parts: Sequence[SystemPart] = (),
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contextDialog")
        self.setWindowTitle(f"Context of {line(conv_id)}")
        self.resize(760, 580)
        self.document = {"id": conv_id, "provider": provider, "model": model, "messages": messages}
        layout = QVBoxLayout(self)
        layout.addWidget(
            plain_label(
                f"What the model ({line(provider)} · {line(model or 'default model')}) "
                "receives next, "
                "before your new message: the system prompt, the history with notices, and "
                "the current working prompt last."
            )
        )
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.tabs = QTabWidget(self)
        self.view = QPlainTextEdit(self)
        self.view.setObjectName("contextView")
        self.view.setReadOnly(True)
        self.view.setFont(fixed)
        # Each part of the system prompt says where it came from (agent, project, /system).
        self.view.setPlainText(block(format_context(messages, parts)))
        self.changes = QTextEdit(self)
        self.changes.setObjectName("contextChanges")
        self.changes.setReadOnly(True)
        self.changes.setAcceptRichText(False)
        self.changes.setFont(fixed)
        self.tabs.addTab(self.view, "Next request")
        self.tabs.addTab(self.changes, "Changes since the last reply")
        self._fill_changes(messages, previous)
        layout.addWidget(self.tabs, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy as JSON", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(self.copy_json)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)

    def _fill_changes(self, messages: Messages, previous: Messages | None) -> None:
        cursor = QTextCursor(self.changes.document())
        if previous is None:
            cursor.insertText("The model has not been asked yet in this conversation.")
            return
        diff = line_diff(block(format_context(previous)), block(format_context(messages)))
        if all(op == "equal" for op, _ in diff):
            cursor.insertText("Nothing changed: the next request repeats the last one.")
            return
        for index, (op, text) in enumerate(diff):
            if index:
                cursor.insertText("\n", QTextCharFormat())
            shown = f"… {text} …" if op == "skipped" else text
            cursor.insertText(_MARKS[op] + shown, _line_format(op))

    def copy_json(self) -> None:
        QGuiApplication.clipboard().setText(json.dumps(self.document, indent=2, ensure_ascii=False))
