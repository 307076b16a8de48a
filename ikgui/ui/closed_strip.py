"""The strip above the prompt of a closed branch: "This branch is closed", a Reopen
button, and the prompt editor disabled while it shows (issue 12, item 4).

It is its own small widget, not the start-up banner: a closed branch is a state of the
conversation on screen, shown as long as it lasts, while the banner says what to start
or configure and can be dismissed. The domain refuses input to a closed branch anyway
(:mod:`ikgui.domain.closing`); this only shows it and offers the way back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from ikgui.ui.icons import set_icon
from ikgui.ui.plain import make_plain

if TYPE_CHECKING:
    from ikgui.ui.main_window import MainWindow

TEXT = "This branch is closed. Reopen it to continue the conversation here."
PROMPT_CLOSED = "This branch is closed: Reopen it to write here."


class ClosedStrip(QFrame):
    """Shown while the conversation on screen is a closed branch."""

    reopen_requested = Signal()

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
        self.button.clicked.connect(self.reopen_requested)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()


class ClosedPresenter:
    """Keeps the strip and the prompt editor true to the conversation on screen."""

    def __init__(self, window: MainWindow, strip: ClosedStrip) -> None:
        self.window = window
        self.strip = strip
        self._placeholder = window.prompt.placeholderText()
        strip.reopen_requested.connect(self.reopen)

    def refresh(self) -> None:
        """After the chrome's refresh (which enables Send when nothing streams)."""
        window = self.window
        closed = window.session.closed
        self.strip.setHidden(not closed)
        if window.prompt.isEnabled() == closed:
            window.prompt.setEnabled(not closed)
            window.prompt.setPlaceholderText(PROMPT_CLOSED if closed else self._placeholder)
            window.working.editor.setReadOnly(closed or window.read_only)
        selector = window.toolbar_actions.model_selector
        if closed:
            window.send_button.setEnabled(False)
            selector.setEnabled(False)  # /model would append to its log
        elif not window.read_only:
            selector.setEnabled(selector.count() > 0)

    def reopen(self) -> None:
        self.window.commands.run("reopen")
