"""What a screen reader is told without moving focus (issue 13, item 2): a finished reply
and an error are announced, through Qt's announcement event (Qt ≥ 6.8) and a live status
text that holds the same words (an older screen reader reads that label's change)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtGui
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QLabel, QWidget

from ikgui.domain.events import Event, Kind
from ikgui.domain.safetext import one_line

#: Qt ≥ 6.8's announcement event (older Qt: the live text alone).
Announcement: Any = getattr(QtGui, "QAccessibleAnnouncementEvent", None)

if TYPE_CHECKING:
    from ikgui.ui.main_window import MainWindow

#: The most of a reply read out (the transcript holds all of it).
SPOKEN_CHARS = 280


def spoken(event: Event) -> str:
    """What is announced for ``event``: the kind, then the start of its text."""
    text = one_line(" ".join(event.content.split()))
    if len(text) > SPOKEN_CHARS:
        text = text[: SPOKEN_CHARS - 1].rstrip() + "…"
    if event.kind == Kind.ERROR:
        return f"Error: {text}"
    if (event.data or {}).get("interrupted"):
        return f"Reply stopped: {text}"
    return f"Reply finished: {text}"


class Announcer:
    """Announces each new finished reply and error of the conversation on screen (not
    those already there when a conversation is opened)."""

    def __init__(self, window: MainWindow, live: QLabel) -> None:
        self.window = window
        #: The live status text: its accessible description is the last announcement.
        self.live = live
        self.last = ""
        self._conversation: str | None = None
        self._seen: int | None = None

    def refresh(self) -> None:
        """Called after each change: announce the newest item if it is new and done."""
        session = self.window.session
        shown = session.state.scrollback
        newest = shown[-1] if shown else None
        conv_id = session.conversation.id
        if conv_id != self._conversation:  # opened or switched: nothing new happened
            self._conversation = conv_id
            self._seen = newest.id if newest else None
            return
        if newest is None or newest.id == self._seen or session.streaming:
            return
        self._seen = newest.id
        if newest.kind in (Kind.ASSISTANT, Kind.ERROR):
            self.say(spoken(newest), self.window.scrollback, urgent=newest.kind == Kind.ERROR)

    def say(self, text: str, source: QWidget, urgent: bool = False) -> None:
        self.last = text
        self.live.setAccessibleDescription(text)
        if Announcement is not None:
            event = Announcement(source, text)
            if urgent:
                event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive)
            QAccessible.updateAccessibility(event)
