"""The centre of the window: the conversation's title, banner, the transcript (or the
first-run welcome), one line of command feedback, and the prompt editor with its Send
and Stop buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ikgui.ui.approvals import Approvals
from ikgui.ui.closed_strip import ClosedStrip
from ikgui.ui.icons import set_icon
from ikgui.ui.panels import Banner
from ikgui.ui.plain import block, make_plain
from ikgui.ui.prompt.attachments import AttachmentChips
from ikgui.ui.prompt.editor import PromptEditor
from ikgui.ui.title_header import TitleHeader
from ikgui.ui.transcript.scrollback import ScrollbackView
from ikgui.ui.window.splitter import sized_by_current_page

if TYPE_CHECKING:
    from ikgui.ui.comparison import CompareView
    from ikgui.ui.welcome import WelcomePanel


def _button(text: str, icon: str, name: str, tip: str, on_accent: bool = False) -> QPushButton:
    button = QPushButton(text)
    set_icon(button, icon, on_accent=on_accent)
    button.setObjectName(name)
    button.setAccessibleName(text)  # the object name is for tests (issue 13)
    button.setAccessibleDescription(tip)
    button.setToolTip(tip)
    return button


class ConversationPane(QWidget):
    #: The welcome's buttons (the welcome itself is built when first shown).
    setup_requested = Signal()
    demo_requested = Signal()
    #: A compared answer's "Continue with this one": its branch id.
    continue_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_header = TitleHeader(self)  # the open conversation's title: rename
        self.banner = Banner(self)
        self.scrollback = ScrollbackView(self)
        self._welcome: WelcomePanel | None = None
        self._compare: CompareView | None = None
        self.stack = QStackedWidget(self)
        self.stack.setObjectName("centreStack")
        self.stack.addWidget(self.scrollback)
        self._fit_stack = sized_by_current_page(self.stack)  # the hidden welcome: no minimum
        self.feedback = make_plain(QLabel())  # server and model text: never HTML
        self.feedback.setObjectName("commandFeedback")
        self.feedback.setAccessibleName("Command result")
        self.feedback.setWordWrap(True)
        self.feedback.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.feedback.hide()
        self.approvals = Approvals(self.scrollback)  # tool calls waiting: cards on their items
        self.closed_strip = ClosedStrip(self)  # a closed branch: Reopen (above the prompt)
        self.attachment_chips = AttachmentChips(self)  # the draft's files, above the editor
        self.prompt = PromptEditor(self)
        self.send_button = _button("Send", "send", "sendButton", "Send (Enter)", True)
        self.stop_button = _button("Stop", "stop", "stopButton", "Stop the reply (Escape)")
        self.stop_button.hide()
        self.attach_button = _button(
            "Attach", "attach", "attachButton", "Attach images, PDFs or text files"
        )

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addWidget(self.title_header)
        column.addWidget(self.banner)
        column.addWidget(self.stack, 1)
        column.addWidget(self.feedback)
        column.addWidget(self.closed_strip)
        column.addWidget(self.attachment_chips)
        row = QHBoxLayout()
        row.setContentsMargins(8, 0, 8, 8)
        row.addWidget(self.prompt, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.attach_button)
        buttons.addStretch(1)
        row.addLayout(buttons)
        column.addLayout(row)

    def show_feedback(self, text: str, error: bool = False) -> None:
        """One line under the transcript (an error in the error colour); empty hides it."""
        self.feedback.setProperty("error", error)
        self.feedback.setText(block(text))
        self.feedback.setVisible(bool(text))
        style = self.feedback.style()
        style.unpolish(self.feedback)
        style.polish(self.feedback)

    @property
    def welcome(self) -> WelcomePanel:
        """The first-run welcome (built on first use: most starts never show it)."""
        if self._welcome is None:
            from ikgui.ui.welcome import WelcomePanel

            self._welcome = WelcomePanel(self)
            self._welcome.setup_requested.connect(self.setup_requested)
            self._welcome.demo_requested.connect(self.demo_requested)
            self.stack.addWidget(self._welcome)
            self._fit_stack()
        return self._welcome

    def show_welcome(self, welcome: bool) -> None:
        self.title_header.setVisible(not welcome)  # (nothing is named yet)
        if welcome:
            self.stack.setCurrentWidget(self.welcome)
        elif self._welcome is not None and self.stack.currentWidget() is self._welcome:
            self.stack.setCurrentWidget(self.scrollback)

    @property
    def compare_view(self) -> CompareView:
        """Models compared side by side (built on first use)."""
        if self._compare is None:
            from ikgui.ui.comparison import CompareView

            self._compare = CompareView(parent=self)
            self._compare.closed.connect(lambda: self.show_compare(False))
            self._compare.continue_requested.connect(self.continue_requested)
            self.stack.addWidget(self._compare)
            self._fit_stack()
        return self._compare

    def show_compare(self, shown: bool) -> None:
        """The comparison's columns in the centre instead of the transcript, or back."""
        if shown:
            self.stack.setCurrentWidget(self.compare_view)
        elif self._compare is not None and self.stack.currentWidget() is self._compare:
            self.stack.setCurrentWidget(self.scrollback)

    @property
    def comparing_shown(self) -> bool:
        return self._compare is not None and self.stack.currentWidget() is self._compare

    def set_streaming(self, streaming: bool) -> None:
        self.send_button.setVisible(not streaming)
        self.send_button.setEnabled(not streaming)
        self.stop_button.setVisible(streaming)
