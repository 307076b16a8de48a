"""The ``‹ 2/3 ›`` under a message with alternatives (SPEC §14): Retry and "Edit and
resend" keep every version of a turn, and this flips between them in place.

One :class:`AlternativeSwitcher` per such message in view, always shown (it says there is
more than one version), placed by :mod:`ikgui.ui.transcript.item_actions` in the room under
the message. It takes the keyboard as one stop (Tab): Left and Right (or the buttons) ask
for the previous and next version; its accessible name says where it is ("Alternative 2
of 3").
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from ikgui.domain.state.alternatives import Alternatives


class AlternativeSwitcher(QWidget):
    """``‹ 2/3 ›`` for one item; ``switched(alternatives, index)`` asks for a version."""

    switched = Signal(object, int)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("alternativeSwitcher")
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setAccessibleDescription("Left and Right arrows show the other versions")
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.alternatives: Alternatives | None = None
        self.event_id: int | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.setSpacing(0)
        self.previous = self._button("alternativePrevious", "‹", "Previous version")
        self.label = QLabel(self)
        self.label.setObjectName("alternativeLabel")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.next = self._button("alternativeNext", "›", "Next version")
        layout.addWidget(self.previous)
        layout.addWidget(self.label)
        layout.addWidget(self.next)
        self.previous.clicked.connect(lambda: self.step(-1))
        self.next.clicked.connect(lambda: self.step(1))
        self.hide()

    def _button(self, name: str, text: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setAutoRaise(True)
        # One stop for the keyboard: the switcher itself (its arrows keys).
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        return button

    def set_alternatives(self, event_id: int, alternatives: Alternatives) -> None:
        self.event_id = event_id
        if alternatives == self.alternatives:
            return
        self.alternatives = alternatives
        self.label.setText(alternatives.label)
        self.setAccessibleName(alternatives.accessible)
        self.setToolTip(f"{alternatives.accessible}: the other versions of this turn")
        self.previous.setEnabled(alternatives.index > 0)
        self.next.setEnabled(alternatives.index + 1 < alternatives.count)
        self.adjustSize()

    def step(self, by: int) -> None:
        """Ask for the version ``by`` places away (nothing past either end)."""
        found = self.alternatives
        if found is None:
            return
        index = found.index + by
        if 0 <= index < found.count:
            self.switched.emit(found, index)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Left:
            self.step(-1)
        elif key == Qt.Key.Key_Right:
            self.step(1)
        else:
            super().keyPressEvent(event)

    def event(self, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            self.update()  # the focus frame below
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.hasFocus():
            painter = QPainter(self)
            pen = QPen(self.palette().highlight().color())
            pen.setWidth(2)
            painter.setPen(pen)
            painter.drawRoundedRect(self.rect().adjusted(1, 1, -1, -1), 4, 4)
