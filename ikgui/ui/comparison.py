"""Models compared side by side (SPEC §14): the ``compareView`` page of the centre, one
column per model with its answer as it streams, time to first token, tokens per second,
tokens and cost, and "Continue with this one", which opens that answer's branch.

Answers change a few hundred times a second between them: each change only marks its
column, and a timer shows what arrived a few times a second (each column appends its
new text; nothing is laid out again whole). Every text here is the model's or a
server's: shown as plain text, never rich text."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.session.comparison import (
    DONE,
    FAILED,
    STOPPED,
    Answer,
    Comparison,
    stats_line,
)
from ikgui.domain.state.catalog import ModelGroup
from ikgui.domain.text.safe import reveal_bidi
from ikgui.ui.plain import block, line, make_plain, tooltip
from ikgui.ui.transcript.items import Colors
from ikgui.ui.transcript.markdown import render_markdown

#: How often what arrived is shown (ms): a few times a second, like the transcript.
INTERVAL = 50
#: The longest answer shown formatted once finished (a longer one stays plain text).
MARKDOWN_LIMIT = 200_000
#: A column's narrowest width: below it, the columns scroll sideways.
COLUMN_MIN = 260


class AnswerColumn(QFrame):
    """One model's answer."""

    continue_requested = Signal(str)  # the answer's branch id

    def __init__(self, answer: Answer, priced: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.answer = answer
        self.priced = priced
        self.shown = 0  # characters of the answer shown so far
        self.rendered = False  # the finished answer shown formatted
        self.setObjectName("compareColumn")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumWidth(COLUMN_MIN)
        label = answer.contender.label
        self.setAccessibleName(f"Answer of {label}")
        self.model = make_plain(QLabel(line(label)))
        self.model.setObjectName("compareModel")
        font = self.model.font()
        font.setBold(True)
        self.model.setFont(font)
        self.stats = make_plain(QLabel())
        self.stats.setObjectName("compareStats")
        self.stats.setWordWrap(True)
        self.text = QTextBrowser(self)
        self.text.setObjectName("compareText")
        self.text.setOpenLinks(False)  # (the model's links: nothing is followed from here)
        self.text.setTabChangesFocus(True)  # Tab goes on to "Continue with this one"
        self.text.setAccessibleName(f"Answer of {label}")
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.error = make_plain(QLabel())
        self.error.setObjectName("compareError")
        self.error.setProperty("error", True)
        self.error.setWordWrap(True)
        self.error.hide()
        self.keep = QPushButton("Continue with this one")
        self.keep.setObjectName("continueButton")
        self.keep.setAccessibleName(f"Continue with {label}")
        self.keep.setToolTip("Open this answer's branch; the others stay its alternatives")
        self.keep.setEnabled(False)
        self.keep.clicked.connect(lambda: self.continue_requested.emit(self.answer.branch_id))
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 8, 10, 8)
        column.addWidget(self.model)
        column.addWidget(self.stats)
        column.addWidget(self.error)
        column.addWidget(self.text, 1)
        column.addWidget(self.keep)

    def refresh(self, now: float) -> None:
        """Show what arrived since the last time, and the figures as they stand."""
        answer = self.answer
        text = answer.text
        if answer.finished is not None and not self.rendered:
            self.rendered = True
            if text and len(text) <= MARKDOWN_LIMIT:  # the whole answer, formatted
                self._render(text)
                self.shown = len(text)
            elif self.text.toPlainText() != block(text[: self.shown]):
                self.text.setPlainText("")  # (the stored reply differs from what streamed)
                self.shown = 0
        if len(text) > self.shown:
            cursor = self.text.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(block(text[self.shown :]))
            self.shown = len(text)
        self.stats.setText(line(stats_line(answer, now, self.priced)))
        if answer.state == FAILED and answer.error:
            self.error.setText(block(answer.error))
            self.error.show()
        self.keep.setEnabled(answer.state in (DONE, STOPPED) or answer.state == FAILED)

    def _render(self, text: str) -> None:
        """The finished answer as the transcript shows a reply: safe Markdown (no HTML,
        nothing loaded)."""
        style = Colors.from_palette(self.palette()).markdown()
        document = render_markdown(reveal_bidi(text), style)
        document.setDefaultFont(self.text.font())
        document.setParent(self.text)
        self.text.setDocument(document)


class CompareView(QWidget):
    """The page of the centre that shows a comparison (``compareView``)."""

    continue_requested = Signal(str)  # a branch id: open it
    closed = Signal()  # back to the conversation

    def __init__(
        self,
        priced: Callable[[str], bool] = lambda model: False,
        clock: Callable[[], float] = time.monotonic,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("compareView")
        self.setAccessibleName("Models compared side by side")
        self.priced = priced
        self.clock = clock
        self.comparison: Comparison | None = None
        self.columns: list[AnswerColumn] = []
        self._dirty: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.flush)
        #: How many times the columns were refreshed (tests count work, not time).
        self.refreshes = 0

        self.heading = make_plain(QLabel())
        self.heading.setObjectName("compareHeading")
        self.heading.setWordWrap(True)
        self.back = QPushButton("Back to the conversation")
        self.back.setObjectName("compareBack")
        self.back.clicked.connect(self.closed)
        top = QHBoxLayout()
        top.setContentsMargins(12, 6, 12, 0)
        top.addWidget(self.heading, 1)
        top.addWidget(self.back, 0, Qt.AlignmentFlag.AlignTop)
        self.row = QWidget()
        self.row_layout = QHBoxLayout(self.row)
        self.row_layout.setContentsMargins(12, 6, 12, 12)
        self.row_layout.setSpacing(10)
        self.area = QScrollArea(self)
        self.area.setObjectName("compareColumns")
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.area.setWidget(self.row)
        self.area.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        page = QVBoxLayout(self)
        page.setContentsMargins(0, 0, 0, 0)
        page.addLayout(top)
        page.addWidget(self.area, 1)

    def show_comparison(self, comparison: Comparison) -> None:
        """Show ``comparison``'s answers, one column each, and follow them."""
        if self.comparison is not None:
            self.comparison.watchers = [
                w for w in self.comparison.watchers if w != self._answer_changed
            ]
        self.comparison = comparison
        for column in self.columns:
            column.setParent(None)
            column.deleteLater()
        self.columns = []
        for answer in comparison.answers:
            column = AnswerColumn(answer, self.priced(answer.contender.model), self.row)
            column.continue_requested.connect(self.continue_requested)
            self.row_layout.addWidget(column, 1)
            self.columns.append(column)
        count = len(comparison.answers)
        self.heading.setText(line(f"{count} models answer: {comparison.text}"))
        comparison.watchers.append(self._answer_changed)
        self._dirty = {a.branch_id for a in comparison.answers}
        self.flush_all()

    def _answer_changed(self, answer: Answer) -> None:
        self._dirty.add(answer.branch_id)
        if not self._timer.isActive():
            # an ending is shown at once; growth a few times a second
            self._timer.start(0 if answer.finished is not None else INTERVAL)

    def flush(self) -> None:
        """Show what arrived, one column a turn of the loop (three long answers laid out
        in one go would hold it for more than a frame)."""
        column = next((c for c in self.columns if c.answer.branch_id in self._dirty), None)
        if column is None:
            self._dirty.clear()
            return
        self._dirty.discard(column.answer.branch_id)
        column.refresh(self.clock())
        self.refreshes += 1
        if self._dirty and not self._timer.isActive():
            self._timer.start(0)  # the next column after the loop's other work

    def flush_all(self) -> None:
        """Show everything that arrived now (the first paint of a comparison)."""
        while self._dirty and self.columns:
            before = len(self._dirty)
            self.flush()
            if len(self._dirty) >= before:
                break
        self._timer.stop()

    def column_for(self, branch_id: str) -> AnswerColumn | None:
        return next((c for c in self.columns if c.answer.branch_id == branch_id), None)


class ComparePicker(QDialog):
    """The toolbar's Compare: the models of every configured provider, checkable; the
    next message goes to each model checked (at least two). Window-modal, never
    ``exec()``-ed: ``chosen`` carries the models as ``provider/name``."""

    chosen = Signal(list)

    def __init__(self, groups: list[ModelGroup], checked: set[str], parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("compareDialog")
        self.setWindowTitle("Compare models")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        intro = make_plain(QLabel("Send the next message to each model checked, side by side:"))
        intro.setWordWrap(True)
        self.models = QListWidget(self)
        self.models.setObjectName("compareModels")
        self.models.setAccessibleName("Models to compare")
        for group in groups:
            heading = QListWidgetItem(line(group.provider))
            heading.setFlags(Qt.ItemFlag.NoItemFlags)
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            self.models.addItem(heading)
            if not group.models:
                note = QListWidgetItem(line(f"  {group.note or 'no models listed'}"))
                note.setFlags(Qt.ItemFlag.NoItemFlags)
                self.models.addItem(note)
            for model in group.models:
                label = f"{group.provider}/{model}"
                item = QListWidgetItem(line(model))
                item.setData(Qt.ItemDataRole.UserRole, label)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
                state = Qt.CheckState.Checked if label in checked else Qt.CheckState.Unchecked
                item.setCheckState(state)
                item.setToolTip(tooltip(label))
                self.models.addItem(item)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Compare the next message")
        ok.setObjectName("compareOk")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self.models.itemChanged.connect(lambda _item: self._enable())
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.models, 1)
        layout.addWidget(self.buttons)
        self.resize(420, 460)
        self._enable()

    def checked(self) -> list[str]:
        found = []
        for row in range(self.models.count()):
            item = self.models.item(row)
            label = item.data(Qt.ItemDataRole.UserRole)
            if label and item.checkState() == Qt.CheckState.Checked:
                found.append(str(label))
        return found

    def _enable(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(len(self.checked()) >= 2)

    def _accept(self) -> None:
        models = self.checked()
        if len(models) < 2:
            return
        self.chosen.emit(models)
        self.accept()
