"""The Trash view's bar (issue 12, item 8): how many conversations the Trash holds,
**Restore** for the selected rows and **Empty Trash…**, which asks first, naming how
many conversations it removes for good.

The bar only asks; the sidebar turns a click into ``restore_requested`` (a list of
ids) or ``empty_trash_requested``, which the window carries out through the session.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.events import Conversation
from ikgui.domain.ports import Store
from ikgui.ui.icons import set_icon
from ikgui.ui.plain import make_plain
from ikgui.ui.questions import confirm
from ikgui.ui.sidebar.rows import ConversationRole

if TYPE_CHECKING:
    from ikgui.ui.sidebar.panel import ConversationSidebar


def count_text(count: int) -> str:
    if count == 0:
        return "The Trash is empty."
    return "1 conversation in the Trash." if count == 1 else f"{count} conversations in the Trash."


def empty_question(count: int) -> str:
    noun = "conversation" if count == 1 else "conversations"
    return f"Delete the {count} {noun} in the Trash for good? This cannot be undone."


class TrashBar(QFrame):
    """Shown above the list while the Trash is."""

    restore_clicked = Signal()
    empty_confirmed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trashBar")
        self.count = 0
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.label = make_plain(QLabel(count_text(0), self))
        self.label.setObjectName("trashBanner")
        self.label.setWordWrap(True)
        self.label.setToolTip("Select conversations to restore them, or empty the Trash")
        column.addWidget(self.label)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.restore_button = QPushButton("Restore", self)
        self.restore_button.setObjectName("restoreButton")
        self.restore_button.setToolTip("Bring the selected conversations back")
        set_icon(self.restore_button, "restore")
        self.restore_button.clicked.connect(self.restore_clicked)
        self.empty_button = QPushButton("Empty Trash…", self)
        self.empty_button.setObjectName("emptyTrashButton")
        self.empty_button.setToolTip("Delete everything in the Trash for good")
        set_icon(self.empty_button, "trash")
        self.empty_button.clicked.connect(self.ask_to_empty)
        row.addWidget(self.restore_button)
        row.addWidget(self.empty_button)
        row.addStretch(1)
        column.addLayout(row)
        self.hide()

    def show_state(self, count: int, selected: int) -> None:
        self.count = count
        self.label.setText(count_text(count))
        self.restore_button.setEnabled(selected > 0)
        self.empty_button.setEnabled(count > 0)

    def ask_to_empty(self) -> None:
        """Ask, naming the count; ``empty_confirmed`` only on a yes."""
        if not self.count:
            return
        box = QMessageBox(self)
        box.setObjectName("emptyTrashQuestion")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Empty Trash")
        box.setText(empty_question(self.count))
        box.setTextFormat(Qt.TextFormat.PlainText)
        empty = box.addButton("Empty Trash", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        confirm(box, empty, self.empty_confirmed.emit)


class TrashController(QObject):
    """The sidebar's Trash view: its bar, the selection it restores, opening at the top."""

    def __init__(self, sidebar: ConversationSidebar, store: Store) -> None:
        super().__init__(sidebar)  # (a QObject: its connections end with the sidebar)
        self._sidebar = weakref.ref(sidebar)
        self.store = store
        self.bar = TrashBar(sidebar)
        self.bar.restore_clicked.connect(self.restore_selected)
        self.bar.empty_confirmed.connect(self.empty)
        self._watched: QItemSelectionModel | None = None

    def selected_ids(self) -> list[str]:
        rows = self.sidebar.view.selectionModel().selectedRows()
        convs = (index.data(ConversationRole) for index in rows)
        return [c.id for c in convs if isinstance(c, Conversation) and c.trashed_at is not None]

    @property
    def sidebar(self) -> ConversationSidebar:
        sidebar = self._sidebar()
        assert sidebar is not None
        return sidebar

    def empty(self) -> None:
        self.sidebar.empty_trash_requested.emit()

    def restore_selected(self) -> None:
        ids = self.selected_ids()
        if ids:
            self.sidebar.restore_requested.emit(ids)

    def shown(self, trashed: bool) -> None:
        """The Trash was toggled (after the list was filtered): open it at the top."""
        self.bar.setVisible(trashed)
        if trashed:
            self.sidebar.view.scrollToTop()
        self.refresh()

    def refresh(self) -> None:
        if self.bar.isHidden():
            return
        selection = self.sidebar.view.selectionModel()
        if selection is not self._watched:
            self._watched = selection
            selection.selectionChanged.connect(self.refresh)
        count = len(self.store.list_conversations(None, trashed=True))
        self.bar.show_state(count, len(self.selected_ids()))
