"""What a screen reader is told without moving focus (issue 13, item 2): a finished reply
and an error are announced, through Qt's announcement event (Qt ≥ 6.8) and a live status
text that holds the same words (an older screen reader reads that label's change)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtGui
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QLabel, QWidget

from ikgui.domain.events import Event, Kind
from ikgui.domain.text.safe import one_line

#: Qt ≥ 6.8's announcement event (older Qt: the live text alone).
Announcement: Any = getattr(QtGui, "QAccessibleAnnouncementEvent", None)

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.transcript.scrollback import ScrollbackView

#: The most of a reply read out (the transcript holds all of it).
SPOKEN_CHARS = 280
#: How each kind of transcript item is introduced (the rest by their kind's name).
ROLES = {
    Kind.USER: "Your message",
    Kind.ASSISTANT: "Assistant's reply",
    Kind.ERROR: "Error",
    Kind.SYSTEM: "System prompt",
    Kind.PROMPT_EDIT: "Prompt edit",
}


def short(text: str) -> str:
    """``text`` on one line, cut at :data:`SPOKEN_CHARS`."""
    text = one_line(" ".join(text.split()))
    if len(text) > SPOKEN_CHARS:
        text = text[: SPOKEN_CHARS - 1].rstrip() + "…"
    return text


def described(event: Event) -> str:
    """The transcript's accessible description while ``event`` has the cursor."""
    role = ROLES.get(Kind(event.kind), str(event.kind).replace("_", " ").capitalize())
    return f"{role}: {short(event.content)}" if event.content.strip() else role


def spoken(event: Event) -> str:
    """What is announced for ``event``: the kind, then the start of its text."""
    text = short(event.content)
    if event.kind == Kind.ERROR:
        return f"Error: {text}"
    if (event.data or {}).get("interrupted"):
        return f"Reply stopped: {text}"
    return f"Reply finished: {text}"


class Announcer:
    """Announces each new finished reply and error of the conversation on screen (not
    those already there when a conversation is opened)."""

    def __init__(self, session: Session, scrollback: ScrollbackView, live: QLabel) -> None:
        self.session = session
        self.scrollback = scrollback
        # The transcript is one text view: what a screen reader is told about the item
        # the cursor is in (its role and text) is the view's accessible description.
        scrollback.cursorPositionChanged.connect(self.describe_current)
        #: The live status text: its accessible description is the last announcement.
        self.live = live
        self.last = ""
        self._conversation: str | None = None
        self._seen: int | None = None

    def refresh(self) -> None:
        """Called after each change: announce the newest item if it is new and done."""
        session = self.session
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
            self.say(spoken(newest), self.scrollback, urgent=newest.kind == Kind.ERROR)

    def describe_current(self) -> None:
        view = self.scrollback
        event_id = view.event_id_of(view.textCursor().currentFrame())
        item = view._by_id.get(event_id) if event_id is not None else None
        text = described(item.event) if item is not None else "Transcript"
        if view.accessibleDescription() != text:
            view.setAccessibleDescription(text)

    def say(self, text: str, source: QWidget, urgent: bool = False) -> None:
        self.last = text
        self.live.setAccessibleDescription(text)
        if Announcement is not None:
            event = Announcement(source, text)
            if urgent:
                event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive)
            QAccessible.updateAccessibility(event)
