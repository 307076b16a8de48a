"""The bug dialog (:mod:`ikgui.ui.bugs`): what happened, in plain words, and the
details for a report. Imported when the first bug is shown, never at start-up."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.text.safe import one_line
from ikgui.ui.plain import make_plain


class BugDialog(QDialog):
    """What happened, in plain words; the details (tracebacks, plain text) below, and a
    button that copies them. Errors after the first are added to it, never stacked."""

    def __init__(self, log_file: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ikgui ran into a bug")
        self.setModal(False)
        self.count = 0
        self.log_file = log_file
        self.summary = make_plain(QLabel())
        self.summary.setWordWrap(True)
        self.more = make_plain(QLabel())
        self.more.hide()
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setMinimumSize(560, 220)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("Copy details")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_details)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.more)
        layout.addWidget(self.details, 1)
        layout.addWidget(buttons)

    def add(self, what: str, details: str) -> None:
        self.count += 1
        if self.count == 1:
            where = (
                f"The details are also kept in {self.log_file}."
                if self.log_file is not None
                else "The details below were not saved anywhere else."
            )
            self.summary.setText(
                f"Something went wrong inside ikgui: {one_line(what)}.\n\n"
                "What you were doing may not have finished; what was already saved is "
                "safe. If it happens again, please report it with the details below "
                f"(Copy details). {where}"
            )
        else:
            more = self.count - 1
            noun = "error" if more == 1 else "errors"
            self.more.setText(f"{more} more {noun} since then (their details are below).")
            self.more.show()
        text = self.details.toPlainText()
        self.details.setPlainText(f"{text}\n\n{details}" if text else details)

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.details.toPlainText())
