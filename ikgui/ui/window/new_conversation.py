"""A new conversation in the window (issue 12, item 8): Ctrl+N or New ▸ agent shows a
"New conversation" row at the top of the sidebar, selected, and an empty transcript
with a short hint; the row goes when the conversation is sent (its real row takes
over) or left with nothing typed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ikgui.ui.plain import line, make_plain
from ikgui.ui.sidebar.new_row import NewConversationRow

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow


def hint_text(agent: str | None) -> str:
    who = f"with {line(agent)}" if agent else "(no agent)"
    return (
        f"New conversation {who}.\n"
        "Type a message below and press Enter; / lists the commands.\n"
        "It is saved when you send the first message."
    )


class EmptyHint(QLabel):
    """A short hint centred over an empty transcript."""

    def __init__(self, viewport: QWidget) -> None:
        super().__init__(viewport)
        self.setObjectName("emptyTranscriptHint")
        make_plain(self)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setEnabled(False)  # the muted text colour
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        viewport.installEventFilter(self)
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def show_text(self, text: str) -> None:
        self.setText(text)
        self._place()
        self.show()

    def _place(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            width = min(parent.width() - 32, 520)
            height = self.heightForWidth(width) if width > 0 else 0
            self.setGeometry(
                (parent.width() - width) // 2, max(16, parent.height() // 3), width, height
            )


class NewConversationPresenter:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        sidebar = window.sidebar
        self.row = NewConversationRow(sidebar)
        layout = sidebar.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(sidebar.view), self.row)  # right above the list
        self.row.clicked.connect(self.go_back)
        sidebar.trash_toggle.toggled.connect(lambda _on: self.refresh())
        self.hint = EmptyHint(window.scrollback.viewport())
        #: The agent of the new conversation last shown (a click goes back to it).
        self.agent: str | None = None
        #: The session's ``switches`` while a new conversation was shown.
        self._new: int | None = None

    def typed(self) -> bool:
        """Whether the draft of a new conversation holds text."""
        window = self.window
        if not window.session.saved:
            return bool(window.prompt.toPlainText().strip())
        draft = window.services.ui_state.value("draft_unsaved", "", type=str)
        return bool(str(draft).strip())

    def refresh(self) -> None:
        window = self.window
        session = window.session
        new = not session.saved
        if new:
            self.agent = session.conversation.agent
        elif self._new == session.current.switches:  # (the same one, whatever its id now)
            # Its first message stored it: its real row takes over, selected.
            window.sidebar.refresh_conversation(window.current_id)
            window.sidebar.set_current(window.current_id)
        self._new = session.current.switches if new else None
        typed = self.typed()
        shown = (new or typed) and not window.sidebar.model.trashed and not window.read_only
        self.row.show_state(shown, new, self.agent, typed)
        window.sidebar.show_new_row(shown)
        empty = new and not session.state.scrollback and not window.read_only
        if empty:
            self.hint.show_text(hint_text(session.conversation.agent))
        else:
            self.hint.hide()

    def go_back(self) -> None:
        """The row was clicked: back to the new conversation (and its draft)."""
        window = self.window
        if window.session.saved:
            window.drafts.save_draft()
            window.commands.run("new", agent=self.agent)
