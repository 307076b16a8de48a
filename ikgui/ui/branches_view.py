"""The Branches view (issue 12 item 3): the current conversation's place in its fork
tree — its parent, its siblings, its own forks and every fork under those, indented —
each with the message it branched at (the fork point, one line of words) and closed
branches marked closed. Opened from the toolbar's Branches action and from the Branches
link of a fork or close notice; a double-click, Enter or **Open** opens the chosen
conversation (``open_requested``). Titles and excerpts are plain text items."""

from __future__ import annotations

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

from ikgui.domain.commands.branches import (
    CHILD,
    DESCENDANT,
    PARENT,
    SIBLING,
    SIBLING_FORK,
    THIS,
    Branch,
    branch_family,
)
from ikgui.domain.events import STATUS_KILLED
from ikgui.domain.ports import Store
from ikgui.ui.plain import line, make_plain, tooltip

_COLUMNS = ("Conversation", "Relation", "Branched at", "Id")
_RELATION = {
    PARENT: "parent",
    THIS: "this one",
    CHILD: "fork",
    DESCENDANT: "fork of a fork",
    SIBLING: "sibling",
    SIBLING_FORK: "sibling's fork",
}
#: A closed branch's label and relation are dimmed, besides saying "(closed)".
_CLOSED = " (closed)"
_ID_ROLE = int(Qt.ItemDataRole.UserRole)
_RESIZE = (
    QHeaderView.ResizeMode.Stretch,
    QHeaderView.ResizeMode.ResizeToContents,
    QHeaderView.ResizeMode.Stretch,
    QHeaderView.ResizeMode.ResizeToContents,
)


def _label(branch: Branch) -> str:
    conv = branch.conversation
    title = line(conv.title) if conv.title else "Untitled"
    closed = _CLOSED if conv.status == STATUS_KILLED else ""
    return f"{title}{closed}"


class BranchesView(QDialog):
    open_requested = Signal(str)  # a conversation id

    def __init__(self, store: Store, conv_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("branchesView")
        self.setAccessibleName("Branches")
        self.setWindowTitle("Branches")
        self.setMinimumSize(640, 300)
        self.resize(860, 340)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("branchesTree")
        self.tree.setColumnCount(len(_COLUMNS))
        self.tree.setHeaderLabels(list(_COLUMNS))
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.tree.header()
        header.setStretchLastSection(False)
        for column, mode in enumerate(_RESIZE):
            header.setSectionResizeMode(column, mode)
        self.tree.itemActivated.connect(lambda item, _column: self._open(item))
        hint = make_plain(QLabel("Double-click a conversation to open it.", self))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setObjectName("branchesOpen")
        buttons.accepted.connect(lambda: self._open(self.tree.currentItem()))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addWidget(hint)
        layout.addWidget(buttons)
        self.show_family(store, conv_id)

    def show_family(self, store: Store, conv_id: str) -> None:
        """List ``conv_id``'s parent, siblings and forks with everything under them, each
        under the one it was forked from."""
        self.tree.clear()
        family = branch_family(store, conv_id)
        # The item last placed at each depth: a branch hangs under the one a level up.
        path: list[QTreeWidgetItem] = []
        this: QTreeWidgetItem | None = None
        for branch in family:
            relation = _RELATION[branch.relation]
            point = line(branch.fork_point) or "—"
            item = QTreeWidgetItem([_label(branch), relation, point, branch.conversation.id])
            item.setData(0, _ID_ROLE, branch.conversation.id)
            item.setToolTip(0, tooltip(_label(branch)))
            item.setToolTip(2, tooltip(branch.fork_point))
            if branch.conversation.status == STATUS_KILLED:
                dim = self.palette().color(QPalette.ColorRole.PlaceholderText)
                for column in range(len(_COLUMNS)):
                    item.setForeground(column, dim)
            del path[branch.depth :]
            if path:
                path[-1].addChild(item)
            else:
                self.tree.addTopLevelItem(item)
            path.append(item)
            if branch.relation == THIS:
                this = item
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
        self.tree.expandAll()
        if this is not None:
            self.tree.setCurrentItem(this)

    def ids(self) -> list[str]:
        """The conversations listed, top to bottom (tests, screen readers)."""
        found: list[str] = []
        iterator = QTreeWidgetItemIterator(self.tree)
        while (item := iterator.value()) is not None:
            found.append(str(item.data(0, _ID_ROLE)))
            iterator += 1
        return found

    def _open(self, item: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        conv_id = item.data(0, _ID_ROLE)
        if isinstance(conv_id, str):
            self.open_requested.emit(conv_id)
            self.accept()
