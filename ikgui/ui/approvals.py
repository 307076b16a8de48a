"""Asking the user about a tool call (SPEC §12): the call's own item in the transcript
turns into a card (``toolCallCard``) while it waits for a decision, and back into the
plain call — followed by its decision and result — once decided.

The card names the server and the tool, shows the arguments as readable JSON — plain
text, editable: edited arguments go into the decision and are what runs — and offers
Allow once (the default: Enter), Allow in this conversation, Always allow, and Deny
(Escape) with an optional note for the model. Several cards waiting: "Allow all once" on
each allows every one once. The approver the tool loop awaits is :meth:`Approvals.ask`:
a future the buttons resolve; Stop cancels the send, which cancels the wait (nothing runs).
A server's question during a call (MCP elicitation) is :meth:`Approvals.answer`, the
loop's questioner: a form (:mod:`ikgui.ui.tool_form`).

How the card sits in the transcript: the transcript is one ``QTextDocument``, which
cannot hold widgets, so the card is a child of the transcript's viewport laid over the
call's frame — as the inline editor lays itself over a message
(:mod:`ikgui.ui.transcript.inline_edit`): the frame's bottom margin grows while the card
waits so the document keeps room for it, and the card follows scrolling, resizing, the
document's growth and rebuilds (a switch of conversation, a theme change), found again by
the call's event id. Nothing in the document changes: the call's item is written as it
always is (its text stays selectable and copyable under the card), replay needs nothing
new, and a decided card simply goes, its frame getting its usual margin back. A card of a
conversation not on screen, or whose call is not loaded (far back, in a collapsed
group), is hidden and keeps its edits until it is shown again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QKeyEvent, QTextFrame
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
from ikgui.ui.transcript.inline_edit import bubble_rect
from ikgui.ui.transcript.items import ACTION_ROOM

if TYPE_CHECKING:
    from ikgui.ui.transcript.scrollback import ScrollbackView

#: The arguments editor grows with its text up to this many lines.
_MOST_LINES = 12
#: Pixels kept between the card and the next item.
_GAP = 8
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
        self.setAutoFillBackground(True)  # laid over the call's text in the transcript
        #: Not shown yet: the first time it is, it takes the keyboard and is scrolled to.
        self.fresh = True
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
        self.title.setWordWrap(True)  # (a long name must not widen the card)
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
        self.allow_all = _button(
            "Allow all once", "allowAllButton", "Run every call waiting here, once each"
        )
        self.allow_all.hide()  # (shown while several wait)
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
        self.column = column = QVBoxLayout(self)
        column.setContentsMargins(10, 8, 10, 8)
        column.setSpacing(6)
        top = QHBoxLayout()
        top.setSpacing(6)
        top.addWidget(self.title, 1)
        top.addWidget(self.allow_all)
        column.addLayout(top)
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
            self.allow_all,
        ):
            child.installEventFilter(self)

    def height_for(self, width: int) -> int:
        """The card's height at ``width`` (its description wraps)."""
        layout = self.column
        wanted = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else -1
        return max(wanted, layout.totalMinimumSize().height())

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


class Approvals(QObject):
    """The cards waiting for a decision, laid over their calls in the transcript of the
    conversation on screen; ``changed`` when the number shown changes."""

    changed = Signal()

    def __init__(self, view: ScrollbackView) -> None:
        super().__init__(view)
        self.view = view
        #: The conversation on screen, and how a screen reader is told (set by the window).
        self.current: Callable[[], str] = lambda: ""
        self.say: Callable[[str, QWidget], None] = lambda text, source: None
        self.cards: list[ToolCallCard] = []
        self._shown = 0
        self._pending = False
        view.verticalScrollBar().valueChanged.connect(self.schedule)
        view.document().documentLayout().documentSizeChanged.connect(self.schedule)
        view.viewport().installEventFilter(self)
        # The hover row of actions never shows over a waiting card.
        view.item_actions.covers = self.covers

    def waiting(self, conv_id: str | None = None) -> list[ToolCallCard]:
        """The cards waiting (for ``conv_id`` only, when given)."""
        return [c for c in self.cards if conv_id is None or c.call.conversation_id == conv_id]

    def covers(self, event_id: int) -> bool:
        """Whether a card is laid over that item now."""
        return any(c.call.event.id == event_id and c.isVisible() for c in self.cards)

    async def ask(self, call: PendingCall) -> Decision:
        """The approver: turn the call's item into a card, wait for its decision
        (cancelled: the card goes)."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        card = ToolCallCard(call, self.view.viewport())
        card.hide()

        def settle(decision: Decision) -> None:
            if not future.done():
                future.set_result(decision)

        card.decided.connect(settle)
        card.allow_all.clicked.connect(self.allow_every)
        self.cards.append(card)
        here = call.conversation_id == self.current()
        if here and self.view.item_frame(call.event.id) is None and self.view.has_later():
            self.view.scroll_to_bottom()  # (the user was reading far back)
        self.refresh()
        if here:
            self.say(f"A tool call waits for your approval: {call.qualified}", card)
        try:
            return await future
        finally:
            self.cards.remove(card)
            focus = QApplication.focusWidget()
            had_focus = focus is not None and card.isAncestorOf(focus)
            card.hide()
            card.deleteLater()
            frame = self.view.item_frame(call.event.id)
            if frame is not None:
                _reserve(frame, ACTION_ROOM)
            self.refresh()
            if had_focus:  # the next card waiting, else the transcript
                following = [c for c in self.waiting(self.current()) if c.isEnabled()]
                if following and following[0].isVisible():
                    self._bring(following[0])
                else:
                    self.view.setFocus()

    async def answer(self, call: PendingCall, question: Question) -> Answer:
        """The questioner: a server's question during ``call``, asked on a window-modal
        form (cancelled — Stop — the form closes and the answer is Cancel)."""
        from ikgui.ui.questions import answered
        from ikgui.ui.tool_form import ToolQuestionDialog

        dialog = ToolQuestionDialog(question, self.view.window())
        given: list[Answer] = []  # (read at once: the dialog deletes itself once closed)
        dialog.finished.connect(lambda _result: given.append(dialog.answer))
        self.say(f"The tool server {line(question.server)} asks a question", dialog)
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
        self.place()

    # -- placing --------------------------------------------------------------------------
    def schedule(self) -> None:
        """Place the cards once the current burst of changes is over."""
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self.place)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.schedule()
        return False

    def place(self) -> None:
        """Lay every card of the conversation on screen over its call, the others hidden."""
        self._pending = False
        current = self.current()
        mine = self.waiting(current)
        for card in self.cards:
            if card.call.conversation_id != current or not self._put(card):
                card.hide()
        for card in mine:
            card.allow_all.setVisible(len(mine) > 1)
        if len(mine) != self._shown:  # (a switch with none waiting changes nothing here)
            self._shown = len(mine)
            self.changed.emit()

    def _put(self, card: ToolCallCard) -> bool:
        view = self.view
        frame = view.item_frame(card.call.event.id)
        if frame is None or not view.isVisible():
            return False
        box = bubble_rect(view, frame)
        content = round(box.height())
        height = max(card.height_for(round(box.width())), content)
        if _reserve(frame, max(ACTION_ROOM, height + _GAP - content)):
            box = bubble_rect(view, frame)
        card.setGeometry(round(box.left()), round(box.top()), round(box.width()), height)
        card.show()
        card.raise_()
        if card.fresh:
            card.fresh = False
            self._reveal(card)
        return True

    def _reveal(self, card: ToolCallCard) -> None:
        """A card shown for the first time is scrolled to and given the keyboard, unless
        another card of this conversation is shown already: the first of several keeps
        them (it offers "Allow all once"; the others are below it)."""
        if not any(c is not card and c.isVisible() for c in self.cards):
            self._bring(card)

    def _bring(self, card: ToolCallCard) -> None:
        """Scroll the transcript to ``card`` and give it the keyboard."""
        view = self.view
        view.sync_scroll_range()
        bar = view.verticalScrollBar()
        box = card.geometry()
        below = box.bottom() + _GAP - view.viewport().height()
        shift = min(below, box.top() - _GAP) if below > 0 else 0  # (its top stays in view)
        if box.top() < 0:
            shift = box.top() - _GAP
        if shift:
            bar.setValue(bar.value() + shift)  # (moves the card: placed again)
            self._put(card)
        card.once.setFocus()


def _reserve(frame: QTextFrame, margin: float) -> bool:
    """Keep ``margin`` under a frame; whether it changed."""
    fmt = frame.frameFormat()
    if fmt.bottomMargin() == margin:
        return False
    fmt.setBottomMargin(margin)
    frame.setFrameFormat(fmt)
    return True
