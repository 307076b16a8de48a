"""The working prompt's versions (issue 11, item 4): who set each one and when, and what
it changed against the one before; any version can be copied or restored (a restore is a
new edit: history is never rewritten)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.state.prompt_history import PromptVersion, diff_counts, word_diff
from ikgui.ui.plain import line, make_plain
from ikgui.ui.prompt.diff_text import write_diff


def _when(timestamp: float) -> str:
    return time.strftime("%d %b %H:%M", time.localtime(timestamp))


def _summary(version: PromptVersion) -> str:
    inserted, deleted = diff_counts(word_diff(version.previous, version.text))
    change = f"+{inserted} −{deleted} words" if version.previous else "first version"
    return f"{version.label} · {_when(version.created_at)} · {change}"


class PromptHistoryDialog(QDialog):
    """Newest first; the selected version's diff against the one before it."""

    def __init__(
        self,
        versions: Sequence[PromptVersion],
        current: str,
        restore: Callable[[PromptVersion], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("promptHistoryDialog")
        self.setWindowTitle("Working prompt history")
        self.resize(760, 480)
        self.versions = list(reversed(versions))
        self._restore = restore
        self._current = current
        layout = QVBoxLayout(self)
        if not self.versions:
            layout.addWidget(
                make_plain(QLabel("No versions yet: this conversation has no working prompt."))
            )
        split = QSplitter(Qt.Orientation.Horizontal, self)
        self.list = QListWidget(split)
        self.list.setObjectName("promptVersions")
        self.list.setAccessibleName("Versions")
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(2)
        for index, version in enumerate(self.versions):
            text = version.text.strip()
            first = line(text.splitlines()[0] if text else "(empty)")
            now = " · current" if index == 0 and version.text == current else ""
            item = QListWidgetItem(f"{_summary(version)}{now}\n{first[:80]}")
            item.setToolTip(_summary(version))
            self.list.addItem(item)
        self.diff = QTextEdit(split)
        self.diff.setObjectName("promptVersionDiff")
        self.diff.setAccessibleName("Changes in this version")
        self.diff.setReadOnly(True)
        self.diff.setAcceptRichText(False)
        split.setSizes([330, 430])
        layout.addWidget(split, 1)
        self._build_bottom(layout)
        self.list.currentRowChanged.connect(self._show)
        if self.versions:
            self.list.setCurrentRow(0)
        else:
            self.copy_button.setEnabled(False)
            self.restore_button.setVisible(False)

    def _build_bottom(self, layout: QVBoxLayout) -> None:
        self.full = QPlainTextEdit(self)  # the version as it is, for reading and copying
        self.full.setReadOnly(True)
        self.full.setObjectName("promptVersionText")
        self.full.setMaximumHeight(110)
        layout.addWidget(self.full)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setObjectName("promptVersionCopy")
        self.restore_button = QPushButton("Restore this version")
        self.restore_button.setObjectName("promptVersionRestore")
        self.copy_button.setAutoDefault(False)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.copy_button.clicked.connect(self._copy)
        self.restore_button.clicked.connect(self._restored)

    def selected(self) -> PromptVersion | None:
        row = self.list.currentRow()
        return self.versions[row] if 0 <= row < len(self.versions) else None

    def _show(self, row: int) -> None:
        version = self.selected()
        self.diff.clear()
        if version is None:
            return
        write_diff(QTextCursor(self.diff.document()), word_diff(version.previous, version.text))
        self.full.setPlainText(version.text)
        # The version in force has nothing to restore: no button rather than a dead one.
        self.restore_button.setVisible(version.text != self._current)

    def _copy(self) -> None:
        version = self.selected()
        if version is not None:
            QGuiApplication.clipboard().setText(version.text)

    def _restored(self) -> None:
        version = self.selected()
        if version is not None:
            self._restore(version)
            self.accept()
