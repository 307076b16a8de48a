"""The prompt's draft (saved with its conversation by the draft keeper,
:mod:`ikgui.ui.prompt.drafts`, or in the window's state while the conversation is
unsaved) and the poll that shows what ``ikgui run`` / ``ikgui conv``
changed in another process.

On PostgreSQL the store's change listener (``store.listener``: LISTEN/NOTIFY on a thread
of its own) also announces what another machine wrote: its callback queues a signal to
this thread, and the window re-reads within ``SOON_MS`` instead of at the next poll (the
poll stays, as the fallback). The same signal tells that the server answers again (the
listener announces each reconnection): changes waiting to be written are retried then."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from ikgui.domain.errors import DatabaseUnreachable, IkguiError
from ikgui.domain.session import elsewhere
from ikgui.ui.plain import line as safe_line
from ikgui.ui.prompt.drafts import DraftKeeper, carry_over
from ikgui.ui.window.elsewhere_mark import ElsewhereMark

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow

POLL_MS = 1000
DRAFT_MS = 500
#: After an announced change: gather the rest of a burst, then re-read once.
SOON_MS = 100
#: Seconds without a change before a reply shown as written elsewhere is checked for a
#: writer that died (its send lock is free).
QUIET_S = 10.0
#: The status line while the listener cannot reach the server (it reconnects by itself).
AWAY = "The database does not answer: changes from other machines wait — reconnecting…"


class DraftsAndPolling(QObject):
    #: Emitted from the change listener's thread; queued to the window's.
    changed_elsewhere = Signal()

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        #: The newest event of the open conversation this window has shown.
        self.last_seen_event: int | None = None
        #: The conversation whose draft the prompt editor holds.
        self._draft_of: str | None = None
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(POLL_MS)
        self._poll_timer.timeout.connect(self.poll_external_changes)
        self._draft_timer = QTimer(self)
        self._draft_timer.setSingleShot(True)
        self._draft_timer.setInterval(DRAFT_MS)
        self._draft_timer.timeout.connect(self.save_draft)
        window.prompt.textChanged.connect(self._draft_timer.start)
        window.prompt.submitted.connect(lambda _text: self.sent())
        self._soon_timer = QTimer(self)
        self._soon_timer.setSingleShot(True)
        self._soon_timer.setInterval(SOON_MS)
        self._soon_timer.timeout.connect(self.poll_external_changes)
        self.changed_elsewhere.connect(self._poll_soon, Qt.ConnectionType.QueuedConnection)
        self.changed_elsewhere.connect(self._server_answers, Qt.ConnectionType.QueuedConnection)
        self._listener: Any = None
        #: Both drafts of the open conversation (the message, the working prompt's).
        self.keeper = DraftKeeper(
            window.session, window.services.ui_state, writable=self._writable, parent=self
        )
        if not window.policy.read_only:
            carry_over(window.session, window.services.ui_state)
        #: When the poll last saw the database change (``time.monotonic()``).
        self._quiet_since = time.monotonic()
        #: The sidebar's streaming marker for a reply written elsewhere.
        self.elsewhere_mark = ElsewhereMark(window)

    def _writable(self) -> bool:
        """Whether drafts are written (not in the demo, nor to a store opened read-only)."""
        answer = self.window.session.read_only
        return answer is None or not answer.whole

    def start_polling(self) -> None:
        self._poll_timer.start()
        listener = getattr(self.window.store, "listener", None)
        if listener is not None and hasattr(listener, "on_change"):
            self._listener = listener
            listener.on_change = self.changed_elsewhere.emit

    def stop_polling(self) -> None:
        if self._listener is not None:
            self._listener.on_change = None
            self._listener = None
        self._poll_timer.stop()
        self._soon_timer.stop()

    def _poll_soon(self) -> None:
        """Another machine wrote: re-read shortly (a running wait is not restarted, so a
        steady stream of changes is still shown every ``SOON_MS``)."""
        if not self._soon_timer.isActive() and self._poll_timer.isActive():
            self._soon_timer.start()

    def _server_answers(self) -> None:
        """The listener heard from the server (it is connected again, or another machine
        wrote): what waits to be written is tried now, not at the retry loop's next step
        (up to half a minute away once it has backed off)."""
        window = self.window
        if window.session.writes and self._listener is not None:
            window.unsaved.retry_now()

    # -- drafts ----------------------------------------------------------------------------
    def save_draft(self) -> None:
        """Keep the editor's text as the open conversation's draft, and write every
        draft due (the working prompt's too). A database server that does not answer is
        no error here: the drafts stay due, and the first poll that reaches the server
        again (and finds no other change waiting) writes them."""
        self.keeper.keep("draft", self.window.prompt.toPlainText())
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
        window = self.window
        session = window.session
        if session.conversation.id == self._draft_of:
            return
        self._draft_of = session.conversation.id
        draft = self.keeper.of_open("draft") or ""
        window.prompt.blockSignals(True)
        window.prompt.setPlainText(draft)
        window.prompt.blockSignals(False)

    # -- other processes -------------------------------------------------------------------
    def own_last_event(self) -> int | None:
        window = self.window
        return window.store.last_event_id(window.current_id) if window.session.saved else None

    def mark_seen(self) -> None:
        """Remember the stored newest event as shown."""
        self.last_seen_event = self.own_last_event()

    def poll_external_changes(self) -> None:
        """Show changes made by ``ikgui run``/``ikgui conv`` in another process."""
        window = self.window
        session = window.session
        listener = self._listener
        if listener is not None and getattr(listener, "error", None):
            window.statusBar().showMessage(AWAY, POLL_MS + 500)
        try:
            changed = window.sidebar.poll()
            if self.keeper.waits and not session.writes:
                self.keeper.flush()
            if not changed:
                self._check_writer()
            else:
                self._quiet_since = time.monotonic()
                if session.saved and not session.streaming:
                    self._take_in()
                    window.chrome.refresh()
            self.elsewhere_mark.update()
        except DatabaseUnreachable as exc:
            window.statusBar().showMessage(away(exc.where), POLL_MS + 500)
        except IkguiError as exc:
            window.statusBar().showMessage(safe_line(exc.line), 8000)

    def _check_writer(self) -> None:
        """Nothing changed for ``QUIET_S``: is a reply shown as written elsewhere still
        written? (Its writer may have died: then it is marked interrupted.)"""
        if time.monotonic() - self._quiet_since < QUIET_S:
            return
        self._quiet_since = time.monotonic()
        session = self.window.session
        if session.saved and not session.streaming:
            elsewhere.settle_abandoned(session.current)

    def _take_in(self) -> None:
        """What another process wrote to the open conversation: a reply growing or
        finished, a few new events, taken in place (no replay, the view stays where the
        user reads); anything else replays it (see ``ikgui.domain.session.elsewhere``)."""
        window = self.window
        window.scrollback.quiet = True
        try:
            taken = elsewhere.take_in(window.session.current, self.last_seen_event)
        finally:
            window.scrollback.quiet = False
        if taken:
            return
        if self.own_last_event() != self.last_seen_event:
            window.session.reload()
        else:
            window.session.refresh_conversation()


def away(where: str) -> str:
    return safe_line(f"Cannot reach the database at {where} — reconnecting…")
