"""The small row of actions under a transcript message: Copy (the Markdown source), Edit
and resend (your messages), Retry (replies and failures), Fork from here; under an error
card, always shown, Retry and — where the cause is the configuration — Open provider
settings.

:func:`actions_for` says which actions an event offers (pure); :class:`ActionRow` is the
row of flat tool buttons, a child of the transcript's viewport placed by
:mod:`ikgui.ui.transcript.item_actions` in the room each message's frame keeps below it
(``ACTION_ROOM``), so it never covers text.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QToolButton, QWidget

from ikgui.domain.events import Event, Kind
from ikgui.domain.text.advice import settings_page
from ikgui.ui.icons import set_icon


@dataclass(frozen=True)
class RowAction:
    """One button: ``key`` is what it asks the transcript for."""

    key: str
    label: str
    tip: str
    icon: str
    object_name: str
    #: Shown as text beside the icon (the error card's calls to action), else icon only.
    text: bool = False


COPY = RowAction("copy", "Copy", "Copy (Markdown source)", "copy", "rowCopy")
EDIT = RowAction("edit", "Edit and resend", "Edit and resend in a new branch", "rename", "rowEdit")
RETRY = RowAction("retry", "Retry", "Retry: ask for this reply again", "retry", "rowRetry")
FORK = RowAction("fork", "Fork from here", "Fork from here: a new branch", "fork", "rowFork")
RETRY_CARD = RowAction("retry", "Retry", "Send the request again", "retry", "rowRetry", True)
SETTINGS = RowAction(
    "settings",
    "Open provider settings",
    "Open Settings on the Providers page",
    "settings",
    "rowSettings",
    True,
)


def actions_for(event: Event) -> tuple[RowAction, ...]:
    """The actions of an event's row (none: it has no row)."""
    if event.kind == Kind.USER:
        return (COPY, EDIT, FORK)
    if event.kind == Kind.ASSISTANT:
        return (COPY,) if event.data.get("streaming") else (COPY, RETRY, FORK)
    if event.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT):
        return (COPY,)  # the arguments, the whole output (plain text)
    if event.kind == Kind.ERROR:
        if settings_page(event.data) is not None:  # the cause is the configuration
            return (RETRY_CARD, SETTINGS, COPY)
        return (RETRY_CARD, COPY)
    return ()


def always_shown(event: Event) -> bool:
    """An error card's buttons are always there; a message's row shows on hover/focus."""
    return event.kind == Kind.ERROR


class ActionRow(QWidget):
    """A row of flat buttons for one item at a time; ``triggered(key, event_id)``."""

    triggered = Signal(str, object)
    #: A button of the row took or lost the keyboard focus.
    focus_moved = Signal()

    def __init__(self, parent: QWidget, name: str) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, False)
        self.event_id: int | None = None
        self._shown: tuple[RowAction, ...] = ()
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.hide()

    def buttons(self) -> dict[str, QToolButton]:
        """The row's buttons by object name (``rowCopy``, ``rowRetry``…)."""
        found = self.findChildren(QToolButton)
        return {b.objectName(): b for b in found if b.parent() is self}

    def set_event(self, event: Event) -> None:
        """Show the actions of ``event`` (rebuilt only when they differ)."""
        self.event_id = event.id
        actions = actions_for(event)
        if actions == self._shown:
            return
        self._shown = actions
        for button in self.buttons().values():
            self._layout.removeWidget(button)
            button.hide()
            button.setParent(None)
            button.deleteLater()
        for action in actions:
            button = self._button(action)
            self._layout.addWidget(button)
            button.show()
        self.adjustSize()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            self.focus_moved.emit()
        return False

    def _button(self, action: RowAction) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(action.object_name)
        button.setText(action.label)
        button.setToolTip(action.tip)
        button.setAccessibleName(action.label)
        button.setAutoRaise(True)
        button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setIconSize(QSize(15, 15))
        style = Qt.ToolButtonStyle
        button.setToolButtonStyle(
            style.ToolButtonTextBesideIcon if action.text else style.ToolButtonIconOnly
        )
        set_icon(button, action.icon)
        button.installEventFilter(self)
        key = action.key
        button.clicked.connect(lambda: self.triggered.emit(key, self.event_id))
        return button
