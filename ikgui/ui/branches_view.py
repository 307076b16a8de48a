"""The Branches view: a map of a conversation's whole family (issue 12 item 3, a map
since issue 25) — its root, every fork, fork of a fork and alternative (edited versions,
retried replies, compared models), each under the one it branched from, with its title,
what kind of branch it is, where it branched (one line of plain words), its state (open,
closed, in the Trash) and its last activity. The conversation it was opened for is
bold and current. Opened from the toolbar's Branches action and from the Branches link
of a fork or close notice; a click, Enter or **Open** opens the chosen conversation
(``open_requested``). Every cell is a plain-text item, and each row says all of it to a
screen reader in one sentence."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.commands.branches import OPEN, ROOT, TRASHED, MapNode, family_map
from ikgui.domain.ports import Store
from ikgui.domain.text.times import relative, short_date
from ikgui.ui.icons import icon
from ikgui.ui.plain import line, make_plain, tooltip
from ikgui.ui.sidebar.titles import own_words, shown_title

_COLUMNS = ("Conversation", "Kind", "Branched at", "State", "Last activity")
TITLE, KIND, POINT, STATE, ACTIVITY = range(len(_COLUMNS))
#: What each kind of node is called.
KIND_WORDS = {
    ROOT: "start",
    "fork": "branch",
    "edit": "edited version",
    "retry": "retried reply",
    "compare": "compared model",
}
#: The item data role holding a row's conversation id.
ID_ROLE = int(Qt.ItemDataRole.UserRole)
_RESIZE = (
    QHeaderView.ResizeMode.Stretch,
    QHeaderView.ResizeMode.ResizeToContents,
    QHeaderView.ResizeMode.Stretch,
    QHeaderView.ResizeMode.ResizeToContents,
    QHeaderView.ResizeMode.ResizeToContents,
)
_HINT = "Click a conversation, or choose it and press Enter, to open it."


def _title(node: MapNode) -> str:
    conv = node.conversation
    return line(conv.title) if conv.title else "Untitled"


def _shown(node: MapNode, parent: MapNode | None) -> str:
    """The title in the map: a branch whose title is its parent's plus its own part
    shows that part alone (``branch 3``, ``gpt-4o-mini``), which the tree's indentation
    places; any other title whole, a fork's ``↳`` left to the glyph."""
    title = node.conversation.title or ""
    own = own_words(title, parent.conversation.title if parent is not None else None)
    if own:
        return line(own)
    return line(shown_title(title, node.depth > 0)) if title else "Untitled"


def said(node: MapNode, now: float) -> str:
    """The row in one sentence (its accessible text and tooltip)."""
    parts = [_title(node), KIND_WORDS.get(node.kind, node.kind)]
    if node.fork_point:
        parts.append(f"branched at {line(node.fork_point)}")
    parts.append(node.state)
    parts.append(f"last active {relative(node.conversation.updated_at, now)}")
    parts.append(f"id {node.conversation.id}")
    if node.current:
        parts.append("the conversation this map was opened for")
    return ", ".join(parts)


def id_of(item: QTreeWidgetItem | None) -> str | None:
    """The conversation id of a row of the map."""
    found = item.data(TITLE, ID_ROLE) if item is not None else None
    return found if isinstance(found, str) else None


class BranchesView(QDialog):
    open_requested = Signal(str)  # a conversation id

    def __init__(
        self,
        store: Store,
        conv_id: str,
        parent: QWidget | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self.setObjectName("branchesView")
        self.setAccessibleName("Branches")
        self.setWindowTitle("Branches")
        self.setMinimumSize(560, 300)
        self.resize(920, 420)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("branchesTree")
        self.tree.setAccessibleName("Branch map")
        self.tree.setAccessibleDescription(_HINT)
        self.tree.setColumnCount(len(_COLUMNS))
        self.tree.setHeaderLabels(list(_COLUMNS))
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.tree.header()
        header.setStretchLastSection(False)
        for column, mode in enumerate(_RESIZE):
            header.setSectionResizeMode(column, mode)
        self.tree.itemActivated.connect(lambda item, _column: self._open(item))
        self.tree.itemClicked.connect(lambda item, _column: self._open(item))
        self.hint = make_plain(QLabel(_HINT, self))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setObjectName("branchesOpen")
        buttons.accepted.connect(lambda: self._open(self.tree.currentItem()))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addWidget(self.hint)
        layout.addWidget(buttons)
        self.show_family(store, conv_id)

    def show_family(self, store: Store, conv_id: str) -> None:
        """Map ``conv_id``'s whole family, each conversation under the one it branched
        from; the current row is ``conv_id``'s."""
        self.tree.clear()
        now = self._clock()
        # The item last placed at each depth: a node hangs under the one a level up.
        path: list[QTreeWidgetItem] = []
        above: list[MapNode] = []  # the node last placed at each depth
        this: QTreeWidgetItem | None = None
        dim = self.palette().color(QPalette.ColorRole.PlaceholderText)
        for node in family_map(store, conv_id):
            conv = node.conversation
            del above[node.depth :]
            cells = [
                _shown(node, above[-1] if above else None),
                KIND_WORDS.get(node.kind, node.kind),
                line(node.fork_point) or "—",
                node.state,
                short_date(conv.updated_at, now),
            ]
            item = QTreeWidgetItem(cells)
            item.setData(TITLE, ID_ROLE, conv.id)
            sentence = said(node, now)
            for column in range(len(_COLUMNS)):
                item.setData(column, Qt.ItemDataRole.AccessibleTextRole, sentence)
                item.setToolTip(column, tooltip(sentence))
            if node.kind not in (ROOT, "edit", "retry"):
                item.setIcon(TITLE, icon("fork"))  # a deliberate branch, as in the list
            if node.state != OPEN:
                for column in range(len(_COLUMNS)):
                    item.setForeground(column, dim)
            if node.state == TRASHED:
                font = item.font(TITLE)
                font.setItalic(True)
                item.setFont(TITLE, font)
            del path[node.depth :]
            if path:
                path[-1].addChild(item)
            else:
                self.tree.addTopLevelItem(item)
            path.append(item)
            above.append(node)
            if node.current:
                this = item
                font = item.font(TITLE)
                font.setBold(True)
                item.setFont(TITLE, font)
        self.tree.expandAll()
        if this is not None:
            self.tree.setCurrentItem(this)
            self.tree.scrollToItem(this)

    def ids(self) -> list[str]:
        """The conversations listed, top to bottom (tests, screen readers)."""
        found: list[str] = []
        iterator = QTreeWidgetItemIterator(self.tree)
        while (item := iterator.value()) is not None:
            found.append(id_of(item) or "")
            iterator += 1
        return found

    def item_of(self, conv_id: str) -> QTreeWidgetItem | None:
        """The row of ``conv_id`` (tests)."""
        iterator = QTreeWidgetItemIterator(self.tree)
        while (item := iterator.value()) is not None:
            if id_of(item) == conv_id:
                return item
            iterator += 1
        return None

    def _open(self, item: QTreeWidgetItem | None) -> None:
        conv_id = id_of(item)
        if conv_id is not None:
            self.open_requested.emit(conv_id)
            self.accept()
