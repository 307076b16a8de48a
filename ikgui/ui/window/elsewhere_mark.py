"""The sidebar's streaming marker for a reply another process writes (``ikgui run -c``,
a window on another machine) into the open conversation: the same badge a reply
streaming here shows, while the transcript shows the reply as written elsewhere
(``ikgui.domain.session.elsewhere.written_elsewhere``: ``data.streaming`` with an ``owner`` that
is not this process). It costs no query: the poll looks at the newest event the window
holds. Only the open conversation is followed (the window reads no other's events), so
its mark goes when another conversation is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.session import elsewhere

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.sidebar.panel import ConversationSidebar


class ElsewhereMark:
    def __init__(self, session: Session, sidebar: ConversationSidebar) -> None:
        self.session = session
        self.sidebar = sidebar
        #: The conversation whose row is marked for a reply written elsewhere.
        self.marked: str | None = None

    def update(self) -> None:
        """Mark the open conversation's row while its newest event is a reply another
        process still writes; unmark the row marked before when that ended."""
        session = self.session
        on_screen = session.conversation.id
        events = session.current.state.scrollback if session.saved else []
        growing = bool(events) and elsewhere.written_elsewhere(events[-1])
        conv = on_screen if growing else None
        if conv == self.marked:
            return
        old, self.marked = self.marked, conv
        if old is not None and not (old == on_screen and session.streaming):
            self.sidebar.set_streaming(old, False)  # (a reply streaming here keeps it)
        if conv is not None:
            self.sidebar.set_streaming(conv, True)
