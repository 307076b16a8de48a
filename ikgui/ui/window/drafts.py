"""The prompt's draft: kept with its conversation by the draft keeper
(:mod:`ikgui.ui.prompt.drafts`, or in the window's state while the conversation is
unsaved), written after a pause in typing, ended when the text is sent, and put back in
the editor when its conversation is shown again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QTimer

from ikgui.ui.prompt.drafts import DraftKeeper, carry_over

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.prompt.editor import PromptEditor

DRAFT_MS = 500


class PromptDrafts(QObject):
    def __init__(
        self,
        session: Session,
        prompt: PromptEditor,
        ui_state: QSettings,
        writable: Callable[[], bool],
        read_only: bool,
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.prompt = prompt
        #: The conversation whose draft the prompt editor holds.
        self._draft_of: str | None = None
        self._draft_timer = QTimer(self)
        self._draft_timer.setSingleShot(True)
        self._draft_timer.setInterval(DRAFT_MS)
        self._draft_timer.timeout.connect(self.save_draft)
        prompt.textChanged.connect(self._draft_timer.start)
        prompt.submitted.connect(lambda _text: self.sent())
        #: Both drafts of the open conversation (the message, the working prompt's).
        self.keeper = DraftKeeper(session, ui_state, writable=writable, parent=self)
        #: Shows the open conversation's attached files with its draft (set by the wiring).
        self.files_shown: Callable[[], None] = lambda: None
        if not read_only:
            carry_over(session, ui_state)

    def save_draft(self) -> None:
        """Keep the editor's text as the open conversation's draft, and write every
        draft due (the working prompt's too). A database server that does not answer is
        no error here: the drafts stay due, and the first poll that reaches the server
        again (and finds no other change waiting) writes them."""
        self.keeper.keep("draft", self.prompt.toPlainText())
        self.keeper.flush()

    def sent(self) -> None:
        """The editor's text was sent (or run): its draft ends now, before the send
        stores a new conversation. A draft saved while the text was typed slowly would
        otherwise outlive it (in the window's state file, for a new conversation: its
        "New conversation · draft" row, which one more Enter would send twice), and a
        debounced save still due would land after the send. A line refused and put
        back in the editor is a draft again (its text changed)."""
        self._draft_timer.stop()
        self.save_draft()  # (the editor is empty: submit clears it before it says so)

    def show_draft(self) -> None:
        """Put the open conversation's draft in the prompt (not as an edit); the same
        conversation shown again (re-read after another process wrote) keeps what is
        typed."""
        session = self.session
        self.files_shown()
        if session.conversation.id == self._draft_of:
            return
        self._draft_of = session.conversation.id
        draft = self.keeper.of_open("draft") or ""
        self.prompt.blockSignals(True)
        self.prompt.setPlainText(draft)
        self.prompt.blockSignals(False)
