"""A new conversation in the window (issue 12, item 8): Ctrl+N or New ▸ agent shows a
"New conversation" row at the top of the sidebar, selected, and an empty transcript
with a short hint; the row goes when the conversation is sent (its real row takes
over) or left with nothing typed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from ikgui.ui.plain import line, make_plain
from ikgui.ui.sidebar.new_row import NewConversationRow

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.window.collaborators import Runner


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
    def __init__(
        self,
        session: Session,
        sidebar: ConversationSidebar,
        viewport: QWidget,
        prompt: QPlainTextEdit,
        ui_state: QSettings,
        runner: Runner,
        save_draft: Callable[[], None],
        read_only: bool,
    ) -> None:
        self.session = session
        self.sidebar = sidebar
        self.prompt = prompt
        self.ui_state = ui_state
        self.runner = runner
        self.save_draft = save_draft
        self.read_only = read_only
        self.row = NewConversationRow(sidebar)
        layout = sidebar.list_area.layout()  # (under the folder tree, with the list)
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(sidebar.view), self.row)  # right above the list
        self.row.clicked.connect(self.go_back)
        sidebar.trash_toggle.toggled.connect(lambda _on: self.refresh())
        self.hint = EmptyHint(viewport)
        #: The agent of the new conversation last shown (a click goes back to it).
        self.agent: str | None = None
        #: The session's ``switches`` while a new conversation was shown.
        self._new: int | None = None

    def typed(self) -> bool:
        """Whether the draft of a new conversation holds text."""
        if not self.session.saved:
            return bool(self.prompt.toPlainText().strip())
        draft = self.ui_state.value("draft_unsaved", "", type=str)
        return bool(str(draft).strip())

    def refresh(self) -> None:
        session, sidebar = self.session, self.sidebar
        new = not session.saved
        if new:
            self.agent = session.conversation.agent
        elif self._new == session.current.switches:  # (the same one, whatever its id now)
            # Its first message stored it: its real row takes over, selected.
            sidebar.refresh_conversation(session.conversation.id)
            sidebar.set_current(session.conversation.id)
        self._new = session.current.switches if new else None
        typed = self.typed()
        shown = (new or typed) and not sidebar.model.trashed and not self.read_only
        self.row.show_state(shown, new, self.agent, typed)
        sidebar.show_new_row(shown)
        empty = new and not session.state.scrollback and not self.read_only
        if empty:
            self.hint.show_text(hint_text(session.conversation.agent))
        else:
            self.hint.hide()

    def go_back(self) -> None:
        """The row was clicked: back to the new conversation (and its draft)."""
        if self.session.saved:
            self.save_draft()
            self.runner.run("new", agent=self.agent)
