"""The strip above the prompt of a closed branch: "This branch is closed", a Reopen
button, and the prompt editor disabled while it shows (issue 12, item 4). A
conversation in the Trash shows it too, as "In the Trash" with Restore (issue 20,
item 4): it is read-only by the same rule until it is restored.

It is its own small widget, not the start-up banner: a closed branch is a state of the
conversation on screen, shown as long as it lasts, while the banner says what to start
or configure and can be dismissed. The domain refuses input to a closed branch anyway
(:mod:`ikgui.domain.session.closing`); this only shows it and offers the way back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from ikgui.ui.icons import set_icon
from ikgui.ui.plain import make_plain

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.window.collaborators import Runner

TEXT = "This branch is closed. Reopen it to continue the conversation here."
PROMPT_CLOSED = "This branch is closed: Reopen it to write here."
TRASHED_TEXT = "In the Trash. Restore it to continue the conversation here."
PROMPT_TRASHED = "In the Trash: Restore it to write here."


class ClosedStrip(QFrame):
    """Shown while the conversation on screen is a closed branch, or in the Trash."""

    reopen_requested = Signal()
    restore_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("closedStrip")
        self.setAccessibleName("This branch is closed")
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 8, 6)
        row.setSpacing(8)
        self.label = make_plain(QLabel(TEXT, self))
        self.label.setObjectName("closedStripText")
        self.label.setWordWrap(True)
        row.addWidget(self.label, 1)
        self.button = QPushButton("Reopen", self)
        self.button.setObjectName("reopenButton")
        self.button.setAccessibleName("Reopen this branch")
        self.button.setToolTip("Reopen this branch so it takes messages again (/reopen)")
        set_icon(self.button, "restore")
        self.button.clicked.connect(self._clicked)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)
        #: What the strip says now: ``closed`` (Reopen) or ``trashed`` (Restore).
        self.state = "closed"
        self.hide()

    def show_state(self, state: str | None) -> None:
        """``closed``, ``trashed``, or ``None`` (hidden)."""
        self.setHidden(state is None)
        if state is None or state == self.state:
            return
        self.state = state
        trashed = state == "trashed"
        self.label.setText(TRASHED_TEXT if trashed else TEXT)
        self.setAccessibleName("In the Trash" if trashed else "This branch is closed")
        self.button.setText("Restore" if trashed else "Reopen")
        self.button.setObjectName("restoreButton" if trashed else "reopenButton")
        self.button.setAccessibleName(
            "Restore this conversation from the Trash" if trashed else "Reopen this branch"
        )
        self.button.setToolTip(
            "Move this conversation out of the Trash so it takes messages again"
            if trashed
            else "Reopen this branch so it takes messages again (/reopen)"
        )

    def _clicked(self) -> None:
        if self.state == "trashed":
            self.restore_requested.emit()
        else:
            self.reopen_requested.emit()


class ClosedPresenter:
    """Keeps the strip and the prompt editor true to the conversation on screen."""

    def __init__(
        self,
        strip: ClosedStrip,
        session: Session,
        controls: Controls,
        runner: Runner,
        read_only: bool,
    ) -> None:
        self.strip = strip
        self.session = session
        self.controls = controls
        self.runner = runner
        self.read_only = read_only
        self._placeholder = controls.prompt.placeholderText()
        strip.reopen_requested.connect(self.reopen)
        strip.restore_requested.connect(self.restore)

    def refresh(self) -> None:
        """After the chrome's refresh (which enables Send when nothing streams)."""
        session, controls = self.session, self.controls
        prompt = controls.prompt
        state = "trashed" if session.trashed else "closed" if session.closed else None
        closed = state is not None
        self.strip.show_state(state)
        placeholder = PROMPT_TRASHED if state == "trashed" else PROMPT_CLOSED
        if prompt.isEnabled() == closed or (closed and prompt.placeholderText() != placeholder):
            prompt.setEnabled(not closed)
            prompt.setPlaceholderText(placeholder if closed else self._placeholder)
            controls.working_editor.setReadOnly(closed or self.read_only)
        selector = controls.selector
        if closed:
            controls.send_button.setEnabled(False)
            selector.setEnabled(False)  # /model would append to its log
        elif not self.read_only:
            selector.setEnabled(selector.count() > 0)

    def reopen(self) -> None:
        self.runner.run("reopen")

    def restore(self) -> None:
        """Out of the Trash, as the Trash view's Restore does (the sidebar follows)."""
        self.runner.run("restore", conversation=self.session.conversation.id)


@dataclass(frozen=True)
class Controls:
    """The widgets a closed conversation disables: the prompt editor, the working
    prompt's editor, Send and the model selector."""

    prompt: QPlainTextEdit
    working_editor: QPlainTextEdit
    send_button: QAbstractButton
    selector: QComboBox
