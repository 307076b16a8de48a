"""The watcher of other processes' changes: the poll that shows what ``ikgui run`` /
``ikgui conv`` (or a window on another machine) changed.

On PostgreSQL the store's change listener (``store.listener``: LISTEN/NOTIFY on a thread
of its own) also announces what another machine wrote: its callback queues a signal to
this thread, and the window re-reads within ``SOON_MS`` instead of at the next poll (the
poll stays, as the fallback). The same signal tells that the server answers again (the
listener announces each reconnection): changes waiting to be written are retried then."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from ikgui.domain.errors import DatabaseUnreachable, IkguiError
from ikgui.domain.session import elsewhere
from ikgui.ui.plain import line as safe_line
from ikgui.ui.window.elsewhere_mark import ElsewhereMark

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.prompt.drafts import DraftKeeper
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.transcript.scrollback import ScrollbackView
    from ikgui.ui.window.collaborators import Feedback

POLL_MS = 1000
#: After an announced change: gather the rest of a burst, then re-read once.
SOON_MS = 100
#: Seconds without a change before a reply shown as written elsewhere is checked for a
#: writer that died (its send lock is free).
QUIET_S = 10.0
#: The status line while the listener cannot reach the server (it reconnects by itself).
AWAY = "The database does not answer: changes from other machines wait — reconnecting…"


class ExternalChanges(QObject):
    #: Emitted from the change listener's thread; queued to the window's.
    changed_elsewhere = Signal()

    def __init__(
        self,
        session: Session,
        sidebar: ConversationSidebar,
        scrollback: ScrollbackView,
        keeper: DraftKeeper,
        feedback: Feedback,
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.sidebar = sidebar
        self.scrollback = scrollback
        self.keeper = keeper
        self.feedback = feedback
        #: Called after another process's change was taken in (the chrome redraws).
        self.on_change: Callable[[], None] = lambda: None
        #: Retries the changes waiting to be written (the unsaved-writes indicator's).
        self.retry_writes: Callable[[], None] = lambda: None
        #: The newest event of the open conversation this window has shown.
        self.last_seen_event: int | None = None
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(POLL_MS)
        self._poll_timer.timeout.connect(self.poll_external_changes)
        self._soon_timer = QTimer(self)
        self._soon_timer.setSingleShot(True)
        self._soon_timer.setInterval(SOON_MS)
        self._soon_timer.timeout.connect(self.poll_external_changes)
        self.changed_elsewhere.connect(self._poll_soon, Qt.ConnectionType.QueuedConnection)
        self.changed_elsewhere.connect(self._server_answers, Qt.ConnectionType.QueuedConnection)
        self._listener: Any = None
        #: When the poll last saw the database change (``time.monotonic()``).
        self._quiet_since = time.monotonic()
        #: The sidebar's streaming marker for a reply written elsewhere.
        self.elsewhere_mark = ElsewhereMark(session, sidebar)

    def start_polling(self) -> None:
        self._poll_timer.start()
        listener = getattr(self.session.store, "listener", None)
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
        if self.session.writes and self._listener is not None:
            self.retry_writes()

    def own_last_event(self) -> int | None:
        session = self.session
        return session.store.last_event_id(session.conversation.id) if session.saved else None

    def mark_seen(self) -> None:
        """Remember the stored newest event as shown."""
        self.last_seen_event = self.own_last_event()

    def poll_external_changes(self) -> None:
        """Show changes made by ``ikgui run``/``ikgui conv`` in another process."""
        session = self.session
        listener = self._listener
        if listener is not None and getattr(listener, "error", None):
            self.feedback.status(AWAY, POLL_MS + 500)
        try:
            changed = self.sidebar.poll()
            if self.keeper.waits and not session.writes:
                self.keeper.flush()
            if not changed:
                self._check_writer()
            else:
                self._quiet_since = time.monotonic()
                if session.saved and not session.streaming:
                    self._take_in()
                    self.on_change()
            self.elsewhere_mark.update()
        except DatabaseUnreachable as exc:
            self.feedback.status(away(exc.where), POLL_MS + 500)
        except IkguiError as exc:
            self.feedback.status(safe_line(exc.line), 8000)

    def _check_writer(self) -> None:
        """Nothing changed for ``QUIET_S``: is a reply shown as written elsewhere still
        written? (Its writer may have died: then it is marked interrupted.)"""
        if time.monotonic() - self._quiet_since < QUIET_S:
            return
        self._quiet_since = time.monotonic()
        session = self.session
        if session.saved and not session.streaming:
            elsewhere.settle_abandoned(session.current)

    def _take_in(self) -> None:
        """What another process wrote to the open conversation: a reply growing or
        finished, a few new events, taken in place (no replay, the view stays where the
        user reads); anything else replays it (see ``ikgui.domain.session.elsewhere``)."""
        self.scrollback.quiet = True
        try:
            taken = elsewhere.take_in(self.session.current, self.last_seen_event)
        finally:
            self.scrollback.quiet = False
        if taken:
            return
        if self.own_last_event() != self.last_seen_event:
            self.session.reload()
        else:
            self.session.refresh_conversation()


def away(where: str) -> str:
    return safe_line(f"Cannot reach the database at {where} — reconnecting…")
