"""Asking the user about a tool call (SPEC §12): one card per call waiting for a decision
(``toolCallCard``), under the transcript where the call is shown, until it is decided.

The card names the server and the tool, shows the arguments as readable JSON — plain
text, editable: edited arguments go into the decision and are what runs — and offers
Allow once (the default: Enter), Allow in this conversation, Always allow, and Deny
(Escape) with an optional note for the model. Several cards waiting: "Allow all" allows
each once. The approver the tool loop awaits is :meth:`Approvals.ask`: a future the
buttons resolve; Stop cancels the send, which cancels the wait (nothing runs).
A server's question during a call (MCP elicitation) is :meth:`Approvals.answer`, the
loop's questioner: a form (:mod:`ikgui.ui.tool_form`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.session.tool_loop import PendingCall
from ikgui.domain.state.tool_use import ALWAYS, CONVERSATION, DENY, ONCE, Decision
from ikgui.domain.tools import Answer, Question
from ikgui.ui.plain import line, make_plain

#: The arguments editor grows with its text up to this many lines.
_MOST_LINES = 12
_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def _button(text: str, name: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setAccessibleName(text)
    button.setAccessibleDescription(tip)
    button.setToolTip(tip)
    return button


def edited_arguments(text: str) -> dict[str, Any]:
    """The arguments as edited on the card: a JSON object, else ``ValueError`` saying why."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"The arguments are not valid JSON: {exc.msg} (line {exc.lineno})"
        ) from exc
    if not isinstance(value, dict):
        raise ValueError("The arguments must be a JSON object ({ … })")
    return value


class ToolCallCard(QFrame):
    """One call waiting for a decision; ``decided(Decision)`` once the user chose."""

    decided = Signal(object)

    def __init__(self, call: PendingCall, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.call = call
        self.setObjectName("toolCallCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        where = call.qualified
        self.setAccessibleName(f"Tool call waiting for your approval: {line(where)}")
        self.setAccessibleDescription(
            "Enter allows it once, Escape denies it; the arguments can be edited first"
        )
        self._build()
        self._lay_out()

    def _build(self) -> None:
        call = self.call
        self.title = make_plain(QLabel(f"Run {line(call.server or '?')} · {line(call.tool)}?"))
        self.title.setObjectName("toolCallTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.about = make_plain(QLabel(line(" ".join(call.description.split()))[:300]))
        self.about.setObjectName("toolCallDescription")
        self.about.setWordWrap(True)
        self.about.setVisible(bool(call.description.strip()))
        self.original = call.arguments_text()
        self.arguments = QPlainTextEdit(self)
        self.arguments.setObjectName("toolArguments")
        self.arguments.setAccessibleName("Arguments (JSON, editable before you allow)")
        self.arguments.setPlainText(self.original)  # plain text: never rich
        self.arguments.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.arguments.setTabChangesFocus(True)
        lines = min(max(self.original.count("\n") + 1, 2), _MOST_LINES)
        margins = (
            round(self.arguments.document().documentMargin()) * 2 + 2 * self.arguments.frameWidth()
        )
        spacing = self.arguments.fontMetrics().lineSpacing()
        height = spacing * lines + margins + spacing // 2 + 4
        self.arguments.setFixedHeight(height)
        self.problem = make_plain(QLabel())
        self.problem.setObjectName("toolArgumentsProblem")
        self.problem.setProperty("error", True)
        self.problem.hide()
        self.once = _button("Allow once", "allowOnceButton", "Run this call once (Enter)")
        self.once.setDefault(True)
        self.conversation = _button(
            "Allow in this conversation",
            "allowConversationButton",
            "Run this tool without asking again in this conversation (until /tools revoke)",
        )
        self.always = _button(
            "Always allow",
            "alwaysAllowButton",
            "Run this tool without asking, in every conversation (kept in config.toml)",
        )
        self.deny = _button("Deny", "denyButton", "Do not run it; the model is told (Escape)")
        self.note = QLineEdit(self)
        self.note.setObjectName("denyNote")
        self.note.setPlaceholderText("Note for the model if you deny (optional)")
        self.note.setAccessibleName("Note for the model if you deny")
        self.once.clicked.connect(lambda: self.choose(ONCE))
        self.conversation.clicked.connect(lambda: self.choose(CONVERSATION))
        self.always.clicked.connect(lambda: self.choose(ALWAYS))
        self.deny.clicked.connect(lambda: self.choose(DENY))
        self.note.returnPressed.connect(lambda: self.choose(DENY))

    def _lay_out(self) -> None:
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 8, 10, 8)
        column.setSpacing(6)
        column.addWidget(self.title)
        column.addWidget(self.about)
        column.addWidget(self.arguments)
        column.addWidget(self.problem)
        row = QHBoxLayout()
        row.setSpacing(6)
        for button in (self.once, self.conversation, self.always):
            row.addWidget(button)
        row.addStretch(1)
        column.addLayout(row)
        refuse = QHBoxLayout()  # the note goes with Deny: the model reads it
        refuse.setSpacing(6)
        refuse.addWidget(self.note, 1)
        refuse.addWidget(self.deny)
        column.addLayout(refuse)
        for child in (
            self.arguments,
            self.note,
            self.once,
            self.conversation,
            self.always,
            self.deny,
        ):
            child.installEventFilter(self)

    # -- keys ----------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(watched, event)
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._key(self, event):
            super().keyPressEvent(event)

    def _key(self, watched: QObject, event: QKeyEvent) -> bool:
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.choose(DENY)
            return True
        if key not in _ENTER:
            return False
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if watched is self.arguments and not ctrl:
            return False  # a new line in the JSON (Ctrl+Enter allows)
        if watched is self.note:
            return False  # returnPressed denies with the note
        if isinstance(watched, QPushButton) and watched is not self.once:
            watched.click()  # Enter on a focused button presses that button
            return True
        self.choose(ONCE)
        return True

    # -- the decision --------------------------------------------------------------------
    def choose(self, decision: str) -> None:
        if not self.isEnabled():
            return
        if decision == DENY:
            self._decide(Decision(DENY, note=self.note.text().strip() or None))
            return
        text = self.arguments.toPlainText()
        arguments: Any = None
        if text.strip() != self.original.strip():
            try:
                arguments = edited_arguments(text)
            except ValueError as exc:
                self.problem.setText(str(exc))
                self.problem.show()
                self.arguments.setFocus()
                return
            if arguments == self.call.arguments:
                arguments = None  # only its layout changed
        self._decide(Decision(decision, arguments=arguments))

    def _decide(self, decision: Decision) -> None:
        self.setEnabled(False)
        self.decided.emit(decision)


class Approvals(QWidget):
    """The cards waiting for a decision (objectName ``toolApprovals``), shown for the
    conversation on screen; ``changed`` when one is added or goes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolApprovals")
        self.setAccessibleName("Tool calls waiting for your approval")
        #: The conversation on screen, and how a screen reader is told (set by the window).
        self.current: Callable[[], str] = lambda: ""
        self.say: Callable[[str], None] = lambda text: None
        self.cards: list[ToolCallCard] = []
        self._shown = 0
        self.allow_all = _button(
            "Allow all once", "allowAllButton", "Run every call waiting here, once each"
        )
        self.allow_all.clicked.connect(self.allow_every)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(8, 0, 8, 0)
        self._column.setSpacing(6)
        top = QHBoxLayout()
        top.addStretch(1)
        top.addWidget(self.allow_all)
        self._column.addLayout(top)
        self.hide()

    def waiting(self, conv_id: str | None = None) -> list[ToolCallCard]:
        """The cards waiting (for ``conv_id`` only, when given)."""
        return [c for c in self.cards if conv_id is None or c.call.conversation_id == conv_id]

    async def ask(self, call: PendingCall) -> Decision:
        """The approver: show a card, wait for its decision (cancelled: the card goes)."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        card = ToolCallCard(call, self)

        def settle(decision: Decision) -> None:
            if not future.done():
                future.set_result(decision)

        card.decided.connect(settle)
        self.cards.append(card)
        self._column.addWidget(card)
        self.refresh()
        if call.conversation_id == self.current():
            self.say(f"A tool call waits for your approval: {call.qualified}")
            focus = QApplication.focusWidget()
            if focus is None or not any(c.isAncestorOf(focus) for c in self.cards[:-1]):
                card.once.setFocus()  # (a card already in hand keeps the keyboard)
        try:
            return await future
        finally:
            self.cards.remove(card)
            card.hide()
            card.deleteLater()
            self.refresh()

    async def answer(self, call: PendingCall, question: Question) -> Answer:
        """The questioner: a server's question during ``call``, asked on a window-modal
        form (cancelled — Stop — the form closes and the answer is Cancel)."""
        from ikgui.ui.questions import answered
        from ikgui.ui.tool_form import ToolQuestionDialog

        dialog = ToolQuestionDialog(question, self.window())
        given: list[Answer] = []  # (read at once: the dialog deletes itself once closed)
        dialog.finished.connect(lambda _result: given.append(dialog.answer))
        self.say(f"The tool server {line(question.server)} asks a question")
        try:
            await answered(dialog)
        finally:
            if not given:  # cancelled (Stop): the form goes
                dialog.reject()
        return given[0]

    def allow_every(self) -> None:
        for card in self.waiting(self.current()):
            card.choose(ONCE)

    def refresh(self) -> None:
        """Show the cards of the conversation on screen (after a switch, too)."""
        current = self.current()
        shown = 0
        for card in self.cards:
            mine = card.call.conversation_id == current
            card.setVisible(mine)
            shown += mine
        self.allow_all.setVisible(shown > 1)
        self.setVisible(shown > 0)
        if shown != self._shown:  # (a switch with none waiting changes nothing here)
            self._shown = shown
            self.changed.emit()
