"""A tool server's question to the user during a call (MCP elicitation, SPEC §12): a
window-modal form (``toolQuestionDialog``) built from the question's schema.

It names the server, shows its message, and has one labelled field per property — a
line for text, a spin box for a number, a check box for yes/no, a list for one choice,
check boxes for several — required ones marked, descriptions as tooltips and accessible
descriptions. Submit (the default) checks the answer against the schema first and says
under each field what is wrong; Decline refuses; Cancel (Escape) closes it without
choosing. A question in url mode shows its address: Open opens it in the browser.

The message, titles, descriptions and choices are the server's: plain text, always.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.tools import (
    ACCEPT,
    BOOLEAN,
    CANCEL,
    CHOICE,
    CHOICES,
    DECLINE,
    INTEGER,
    NUMBER,
    Answer,
    Question,
    QuestionField,
)
from ikgui.ui.plain import block, line, make_plain, tooltip, window_title

#: The dialog's object name (tests and the bug dialog find it by it).
OBJECT_NAME = "toolQuestionDialog"
#: What a number box shows for "not given" (an optional number without a default).
_NOT_GIVEN = "—"
#: The widest range a number box offers when the schema gives no bound.
_FAR = 2_000_000_000
#: The form's least width, and the most height its fields take before they scroll.
_LEAST_WIDTH, _MOST_HEIGHT = 480, 440
#: The schemes Open opens (an address of another kind is shown, not opened).
_OPENABLE = ("http", "https")


class _Input:
    """One field's widget, how its value is read, and where its problem is said."""

    def __init__(self, field: QuestionField, widget: QWidget, read: Callable[[], Any]) -> None:
        self.field = field
        self.widget = widget
        self.read = read
        self.problem = make_plain(QLabel())
        self.problem.setObjectName(f"toolQuestionProblem_{field.name}")
        self.problem.setProperty("error", True)
        self.problem.setWordWrap(True)
        self.problem.hide()
        # Its description, then its type in words: "In metres (a number)".
        about = " ".join(field.description.split())
        self.description = line(f"{about} ({field.hint()})" if about else field.hint().capitalize())
        #: Several choices: each one's value and check box.
        self.boxes: list[tuple[str, QCheckBox]] = []

    def say(self, problem: str | None) -> None:
        self.problem.setText(problem or "")
        self.problem.setVisible(bool(problem))
        about = self.description
        if problem:
            about = f"{problem} {about}".strip()
        self.widget.setAccessibleDescription(about)


class ToolQuestionDialog(QDialog):
    """The form; :attr:`answer` once it closed (Cancel until then)."""

    def __init__(
        self,
        question: Question,
        parent: QWidget | None = None,
        opener: Callable[[QUrl], object] = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(parent)
        self.question = question
        self.opener = opener
        self.answer = Answer(CANCEL)
        self.inputs: list[_Input] = []
        self.setObjectName(OBJECT_NAME)
        self.setMinimumWidth(_LEAST_WIDTH)
        server = line(question.server)
        self.setWindowTitle(window_title(f"{question.server} asks"))
        self.setAccessibleName(f"The tool server {server} asks a question")
        column = QVBoxLayout(self)
        self.asker = make_plain(QLabel(f"The tool server {server} asks:"))
        self.asker.setObjectName("toolQuestionServer")
        font = self.asker.font()
        font.setBold(True)
        self.asker.setFont(font)
        column.addWidget(self.asker)
        self.message = make_plain(QLabel(block(question.message.strip())))
        self.message.setObjectName("toolQuestionMessage")
        self.message.setWordWrap(True)
        self.message.setAccessibleName("The server's question")
        column.addWidget(self.message)
        if question.url is not None:
            self._address(column, question.url)
        else:
            self._form(column)
        self._buttons(column)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.inputs:  # the keyboard starts in the first field
            first = self.inputs[0]
            (first.boxes[0][1] if first.boxes else first.widget).setFocus()

    # -- url mode ------------------------------------------------------------------------
    def _address(self, column: QVBoxLayout, url: str) -> None:
        self.address = make_plain(QLabel(line(url)))
        self.address.setObjectName("toolQuestionUrl")
        self.address.setWordWrap(True)
        self.address.setAccessibleName("The address it asks you to open")
        column.addWidget(self.address)
        self.openable = QUrl(url).scheme().lower() in _OPENABLE

    # -- form mode -----------------------------------------------------------------------
    def _form(self, column: QVBoxLayout) -> None:
        body = QWidget()
        form = QFormLayout(body)
        for field in self.question.fields:
            made = self._input(field)
            self.inputs.append(made)
            mark = " *" if field.required else ""
            label = make_plain(QLabel(f"{line(field.label)}{mark}"))
            label.setBuddy(made.widget)
            name = line(field.label) + (" (required)" if field.required else "")
            made.widget.setAccessibleName(name)
            made.say(None)
            if made.description:
                made.widget.setToolTip(tooltip(made.description))
                label.setToolTip(tooltip(made.description))
            cell = QVBoxLayout()
            cell.setSpacing(2)
            cell.addWidget(made.widget)
            cell.addWidget(made.problem)
            form.addRow(label, cell)
        if self.inputs:
            note = make_plain(QLabel("* required"))
            note.setObjectName("toolQuestionRequiredNote")
            note.setVisible(any(i.field.required for i in self.inputs))
            form.addRow(note)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # The whole form at once when it fits (room for two lines of problems); a long
        # one scrolls.
        room = body.sizeHint().height() + 2 * self.fontMetrics().lineSpacing() + 4
        scroll.setMinimumHeight(min(room, _MOST_HEIGHT))
        column.addWidget(scroll, 1)

    def _input(self, field: QuestionField) -> _Input:
        default = field.default
        if field.kind == BOOLEAN:
            box = QCheckBox("Yes")  # (its label is beside it)
            box.setChecked(default is True)
            return _Input(field, box, box.isChecked)
        if field.kind == CHOICE:
            return self._choice(field)
        if field.kind == CHOICES:
            return self._choices(field)
        if field.kind in (NUMBER, INTEGER):
            return self._number(field)
        edit = QLineEdit()
        edit.setObjectName(f"toolQuestionField_{field.name}")
        if isinstance(default, str):
            edit.setText(default)
        if field.format:
            edit.setPlaceholderText(field.format)
        return _Input(field, edit, lambda: edit.text() or None)

    def _choice(self, field: QuestionField) -> _Input:
        combo = QComboBox()
        combo.setObjectName(f"toolQuestionField_{field.name}")
        if field.default not in {v for v, _label in field.choices}:
            combo.addItem(_NOT_GIVEN, None)  # nothing chosen yet
        for value, label in field.choices:
            combo.addItem(line(label), value)
        if field.default is not None:
            found = combo.findData(str(field.default))
            combo.setCurrentIndex(max(found, 0))
        return _Input(field, combo, combo.currentData)

    def _choices(self, field: QuestionField) -> _Input:
        group = QWidget()
        group.setObjectName(f"toolQuestionField_{field.name}")
        rows = QVBoxLayout(group)
        rows.setContentsMargins(0, 0, 0, 0)
        chosen = field.default if isinstance(field.default, list) else []
        boxes: list[tuple[str, QCheckBox]] = []
        for value, label in field.choices:
            box = QCheckBox(line(label))
            box.setAccessibleName(f"{line(field.label)}: {line(label)}")
            box.setChecked(value in chosen)
            rows.addWidget(box)
            boxes.append((value, box))

        def read() -> list[str] | None:
            picked = [value for value, box in boxes if box.isChecked()]
            return picked if picked or field.required else None

        made = _Input(field, group, read)
        made.boxes = boxes
        return made

    def _number(self, field: QuestionField) -> _Input:
        whole = field.kind == INTEGER
        spin: QSpinBox | QDoubleSpinBox = QSpinBox() if whole else QDoubleSpinBox()
        spin.setObjectName(f"toolQuestionField_{field.name}")
        low = field.minimum if field.minimum is not None else -_FAR
        high = field.maximum if field.maximum is not None else _FAR
        if isinstance(spin, QDoubleSpinBox):
            spin.setDecimals(4)
        default = field.default
        given = isinstance(default, int | float) and not isinstance(default, bool)
        unset = not given and not field.required
        if unset:  # one step below the lowest value reads "not given"
            low -= 1
            spin.setSpecialValueText(_NOT_GIVEN)
        if isinstance(spin, QSpinBox):
            spin.setRange(int(low), int(high))
        else:
            spin.setRange(low, high)
        start: float | None = None
        if given:
            start = float(default)
        elif unset:
            start = float(spin.minimum())
        elif field.minimum is None and field.maximum is None:
            start = 0.0
        if start is not None and isinstance(spin, QSpinBox):
            spin.setValue(int(start))
        elif start is not None and isinstance(spin, QDoubleSpinBox):
            spin.setValue(start)

        def read() -> Any:
            value = spin.value()
            if unset and value == spin.minimum():
                return None
            if whole:
                return int(value)
            return int(value) if float(value).is_integer() else float(value)

        return _Input(field, spin, read)

    # -- the buttons ---------------------------------------------------------------------
    def _buttons(self, column: QVBoxLayout) -> None:
        url = self.question.url is not None
        self.submit = QPushButton("Open" if url else "Submit")
        self.submit.setObjectName("toolQuestionSubmit")
        self.submit.setDefault(True)
        self.submit.setAutoDefault(True)
        self.submit.setAccessibleDescription(
            "Open the address in your browser" if url else "Send your answer to the server"
        )
        if url and not self.openable:
            self.submit.setEnabled(False)
        self.decline = QPushButton("Decline")
        self.decline.setObjectName("toolQuestionDecline")
        self.decline.setAutoDefault(False)
        self.decline.setAccessibleDescription("Refuse to answer; the server is told")
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("toolQuestionCancel")
        self.cancel.setAutoDefault(False)
        self.cancel.setAccessibleDescription("Close without choosing (Escape)")
        row = QHBoxLayout()
        row.addStretch(1)
        for button in (self.submit, self.decline, self.cancel):
            row.addWidget(button)
        column.addLayout(row)
        self.submit.clicked.connect(self.send)
        self.decline.clicked.connect(lambda: self._close(Answer(DECLINE)))
        self.cancel.clicked.connect(self.reject)

    def content(self) -> dict[str, Any]:
        """The form's answer now (fields not given left out)."""
        values = {i.field.name: i.read() for i in self.inputs}
        return {name: value for name, value in values.items() if value is not None}

    def send(self) -> None:
        """Submit: the answer if it fits the schema, else what is wrong, under each field."""
        if self.question.url is not None:
            self.opener(QUrl(self.question.url))
            self._close(Answer(ACCEPT))
            return
        content = self.content()
        problems = self.question.problems(content)
        for made in self.inputs:
            made.say(problems.get(made.field.name))
        if problems:
            first = next(i for i in self.inputs if i.field.name in problems)
            first.widget.setFocus()
            return
        self._close(Answer(ACCEPT, content))

    def _close(self, answer: Answer) -> None:
        self.answer = answer
        self.accept()

    def reject(self) -> None:  # Escape, Cancel, the window's close button
        self.answer = Answer(CANCEL)
        super().reject()
