"""The folder tree above the conversation list (SPEC §15, ``folderTree``): every folder
(nested tags) with the conversations under it, the smart folders with their live counts,
and "All conversations" to go back to the whole list.

Choosing a folder filters the list to its subtree (with the tag filter and the search);
conversations dragged from the list onto a folder are tagged with it, a folder dragged
onto another moves under it. Every change is a signal the window carries out through the
session, then :meth:`FolderTree.refresh` shows the result. Keyboard: arrows move and
fold, Enter (or Space) chooses, F2 renames, Delete deletes, the menu key opens the menu.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDrag,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QKeySequence,
)
from PySide6.QtWidgets import QAbstractItemView, QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from ikgui.domain.folders import SEPARATOR, Folder, SmartFolder
from ikgui.ui.plain import line

#: What the conversation list drags: the ids, one a line.
CONVERSATIONS_MIME = "application/x-ikgui-conversations"
#: What the folder tree drags: one folder's path.
FOLDER_MIME = "application/x-ikgui-folder"

#: The item's folder path ("" for All conversations), or its smart folder's name.
PathRole = Qt.ItemDataRole.UserRole
#: "all", "folder", "smart" or "smart-header".
KindRole = Qt.ItemDataRole.UserRole + 1
_SMART_HEADER = "Smart folders"


def _spoken(count: int) -> str:
    return f"{count} conversation" + ("" if count == 1 else "s")


class FolderTree(QTreeWidget):
    """The tree; :attr:`chosen` is the folder (or smart folder) the list shows."""

    #: A folder's path, or "" for every conversation.
    folder_chosen = Signal(str)
    smart_chosen = Signal(object)  # the SmartFolder
    conversations_dropped = Signal(list, str)  # conv ids, the folder they are tagged with
    folder_move_requested = Signal(str, str)  # old path, new path
    new_folder_requested = Signal(str)  # the parent folder ("" at the top)
    rename_requested = Signal(str)  # a folder's path
    delete_requested = Signal(str)
    settings_requested = Signal(str)  # a folder's project settings page
    smart_rename_requested = Signal(str)
    smart_delete_requested = Signal(str)
    save_smart_requested = Signal()
    undo_requested = Signal()  # the last rename, move or delete of a folder or tag

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("folderTree")
        self.setAccessibleName("Folders")
        self.setAccessibleDescription(
            "Choose a folder to list the conversations in it; drop conversations on a "
            "folder to file them there"
        )
        self.setColumnCount(2)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(True)
        self.setIndentation(14)
        self.setUniformRowHeights(True)
        self.setAnimated(False)
        self.setExpandsOnDoubleClick(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.header().setStretchLastSection(False)
        self.header().setSectionResizeMode(0, self.header().ResizeMode.Stretch)
        self.header().setSectionResizeMode(1, self.header().ResizeMode.ResizeToContents)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        #: ("folder", path) or ("smart", name); ("all", "") for the whole list.
        self.chosen: tuple[str, str] = ("all", "")
        self.projects: set[str] = set()
        self.smart: dict[str, SmartFolder] = {}
        #: Folders made with New folder that hold no conversation yet (this session).
        self.made: set[str] = set()
        #: What Undo (Ctrl+Z, the menu) reverses, or ``None``.
        self.undo: str | None = None
        self._filling = False
        self.itemActivated.connect(self._on_activated)
        self.itemClicked.connect(self._on_activated)
        self.itemExpanded.connect(lambda _item: self._fit())
        self.itemCollapsed.connect(lambda _item: self._fit())

    # -- filling ------------------------------------------------------------------------
    def fill(self, tree: list[Folder], smart: list[tuple[SmartFolder, int]], total: int) -> None:
        """Show ``tree`` and ``smart``; folds and the chosen row stay as they were."""
        folded = {str(item.data(0, PathRole)): item.isExpanded() for item in self._items("folder")}
        self._filling = True
        try:
            self.clear()
            self.projects = {f.path for top in tree for f in top.walk() if f.project}
            self.smart = {f.name: f for f, _ in smart}
            everything = self._item(None, "All conversations", total, "all", "")
            self.addTopLevelItem(everything)
            for top in tree:
                self.addTopLevelItem(self._folder_item(top, folded))
            if smart:
                header = QTreeWidgetItem([_SMART_HEADER, ""])
                header.setData(0, KindRole, "smart-header")
                header.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.addTopLevelItem(header)
                for folder, count in smart:
                    header.addChild(self._item(None, folder.name, count, "smart", folder.name))
                header.setExpanded(True)
            kind, key = self.chosen
            found = self.item_for(kind, key)
            if found is None:  # the chosen folder is gone (deleted, moved elsewhere)
                self.chosen, found = ("all", ""), everything
            self.setCurrentItem(found)
        finally:
            self._filling = False
        # With no tag and no smart folder there is nothing to choose: the list takes the
        # room (tagging a conversation, the first folder, brings the tree back).
        self.setVisible(bool(tree or smart))
        self._fit()

    def _fit(self) -> None:
        """No taller than its rows: a few folders leave the rest of the height to the
        list (the sidebar's share, a third, is the most it takes)."""
        shown, item = 0, self.topLevelItem(0)
        while item is not None:
            shown += 1
            item = self.itemBelow(item)
        row = max(self.sizeHintForRow(0), 1)
        frame = 2 * self.frameWidth() + 4
        self.setMaximumHeight(shown * row + frame)

    def _folder_item(self, folder: Folder, folded: dict[str, bool]) -> QTreeWidgetItem:
        item = self._item(None, folder.name, folder.count, "folder", folder.path)
        if folder.project:
            item.setToolTip(0, f"{line(folder.path)}: a project (its settings from the menu)")
        for child in folder.children:
            item.addChild(self._folder_item(child, folded))
        item.setExpanded(folded.get(folder.path, False))
        return item

    def _item(
        self, parent: QTreeWidgetItem | None, name: str, count: int, kind: str, key: str
    ) -> QTreeWidgetItem:
        project = kind == "folder" and key in self.projects
        shown = line(name) + (" ◆" if project else "")
        item = QTreeWidgetItem([shown, str(count)])
        item.setData(0, PathRole, key)
        item.setData(0, KindRole, kind)
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        what = {"folder": "project folder" if project else "folder", "smart": "smart folder"}
        spoken = f"{line(name)}, {what.get(kind, '')}, {_spoken(count)}".replace(", ,", ",")
        item.setData(0, Qt.ItemDataRole.AccessibleTextRole, spoken)
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if kind == "folder":
            flags |= Qt.ItemFlag.ItemIsDragEnabled | Qt.ItemFlag.ItemIsDropEnabled
        elif kind == "all":
            flags |= Qt.ItemFlag.ItemIsDropEnabled  # a folder dropped here goes to the top
        item.setFlags(flags)
        if parent is not None:
            parent.addChild(item)
        return item

    def _items(self, kind: str) -> list[QTreeWidgetItem]:
        found: list[QTreeWidgetItem] = []
        stack = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        while stack:
            item = stack.pop()
            if item is None:
                continue
            if item.data(0, KindRole) == kind:
                found.append(item)
            stack.extend(item.child(i) for i in range(item.childCount()))
        return found

    def item_for(self, kind: str, key: str) -> QTreeWidgetItem | None:
        """The row of a folder (its path), a smart folder (its name) or All ("all")."""
        for item in self._items(kind):
            if item.data(0, PathRole) == key:
                return item
        return None

    def counts(self) -> dict[str, int]:
        """Each folder's shown count, by path (what tests and screen readers read)."""
        return {str(i.data(0, PathRole)): int(i.text(1)) for i in self._items("folder")}

    # -- choosing -------------------------------------------------------------------------
    def choose(self, kind: str, key: str) -> None:
        """Show ``kind``'s ``key`` in the list ("folder" and a path, "smart" and a name,
        "all"); emits ``folder_chosen`` or ``smart_chosen``."""
        item = self.item_for(kind, key)
        if item is not None:
            self.setCurrentItem(item)
            self._on_activated(item)

    def _on_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        if self._filling:
            return
        kind, key = str(item.data(0, KindRole)), str(item.data(0, PathRole) or "")
        if kind == "smart-header":
            item.setExpanded(not item.isExpanded())
            return
        if (kind, key) == self.chosen:
            return
        self.chosen = (kind, key)
        if kind == "smart":
            self.smart_chosen.emit(self.smart[key])
        else:
            self.folder_chosen.emit(key if kind == "folder" else "")

    @property
    def folder(self) -> str:
        """The chosen folder's path, or ""."""
        kind, key = self.chosen
        return key if kind == "folder" else ""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        item = self.currentItem()
        kind = str(item.data(0, KindRole)) if item is not None else ""
        key = str(item.data(0, PathRole) or "") if item is not None else ""
        if item is not None and event.key() == Qt.Key.Key_Space:
            self._on_activated(item)
        elif event.key() == Qt.Key.Key_F2 and kind in ("folder", "smart"):
            (self.rename_requested if kind == "folder" else self.smart_rename_requested).emit(key)
        elif event.key() == Qt.Key.Key_Delete and kind in ("folder", "smart"):
            (self.delete_requested if kind == "folder" else self.smart_delete_requested).emit(key)
        elif event.matches(QKeySequence.StandardKey.Undo) and self.undo is not None:
            self.undo_requested.emit()
        elif event.key() == Qt.Key.Key_Escape and self.chosen != ("all", ""):
            self.choose("all", "")
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    # -- the menu ---------------------------------------------------------------------------
    def menu_for(self, item: QTreeWidgetItem | None) -> QMenu:
        """The context menu of a row (not shown; the caller pops it up)."""
        menu = QMenu(self)
        menu.setObjectName("folderMenu")
        kind = str(item.data(0, KindRole)) if item is not None else "all"
        key = str(item.data(0, PathRole) or "") if item is not None else ""
        if kind in ("all", "folder"):
            label = "New folder…" if kind == "all" else "New folder inside…"
            menu.addAction(label, lambda: self.new_folder_requested.emit(key))
        if kind == "folder":
            menu.addAction("Rename…", lambda: self.rename_requested.emit(key))
            menu.addAction(
                "Project settings…" if key in self.projects else "Make a project…",
                lambda: self.settings_requested.emit(key),
            )
            menu.addSeparator()
            menu.addAction(
                "Delete folder (keeps the conversations)",
                lambda: self.delete_requested.emit(key),
            )
        if kind == "smart":
            menu.addAction("Rename…", lambda: self.smart_rename_requested.emit(key))
            menu.addAction("Delete smart folder", lambda: self.smart_delete_requested.emit(key))
        menu.addSeparator()
        menu.addAction("Save search as smart folder…", self.save_smart_requested.emit)
        if self.undo is not None:
            menu.addAction(f"Undo the {line(self.undo)}", self.undo_requested.emit)
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            item = self.currentItem()
            where = (
                self.viewport().mapToGlobal(self.visualItemRect(item).center())
                if item
                else (self.mapToGlobal(QPoint(0, 0)))
            )
        else:
            item = self.itemAt(self.viewport().mapFromGlobal(event.globalPos()))
            where = event.globalPos()
        menu = self.menu_for(item)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(where)
        event.accept()

    # -- drag and drop ----------------------------------------------------------------------
    def startDrag(self, supported: Qt.DropAction) -> None:
        item = self.currentItem()
        if item is None or item.data(0, KindRole) != "folder":
            return
        data = QMimeData()
        data.setData(FOLDER_MIME, QByteArray(str(item.data(0, PathRole)).encode()))
        drag = QDrag(self)
        drag.setMimeData(data)
        drag.exec(Qt.DropAction.MoveAction)

    def _target(self, pos: QPoint) -> tuple[str, str] | None:
        item = self.itemAt(pos)
        if item is None:
            return None
        kind = str(item.data(0, KindRole))
        return (kind, str(item.data(0, PathRole) or "")) if kind in ("folder", "all") else None

    def _acceptable(self, data: QMimeData, pos: QPoint) -> bool:
        target = self._target(pos)
        if target is None:
            return False
        kind, path = target
        if data.hasFormat(CONVERSATIONS_MIME):
            return kind == "folder"
        if data.hasFormat(FOLDER_MIME):
            moving = bytes(data.data(FOLDER_MIME).data()).decode()
            return self.moved_to(moving, path) not in (None, moving)
        return False

    @staticmethod
    def moved_to(folder: str, onto: str) -> str | None:
        """Where ``folder`` goes when dropped on ``onto`` ("" the top); ``None``: into
        itself, refused."""
        if onto == folder or onto.startswith(folder + SEPARATOR):
            return None
        name = folder.rsplit(SEPARATOR, 1)[-1]
        return f"{onto}{SEPARATOR}{name}" if onto else name

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        data = event.mimeData()
        if data.hasFormat(CONVERSATIONS_MIME) or data.hasFormat(FOLDER_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._acceptable(event.mimeData(), event.position().toPoint()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop(event.mimeData(), event.position().toPoint())
        event.acceptProposedAction()

    def drop(self, data: QMimeData, pos: QPoint) -> bool:
        """Carry out a drop of ``data`` at ``pos`` (the viewport's); whether it did."""
        if not self._acceptable(data, pos):
            return False
        target = self._target(pos)
        assert target is not None
        if data.hasFormat(CONVERSATIONS_MIME):
            ids = bytes(data.data(CONVERSATIONS_MIME).data()).decode().split()
            self.conversations_dropped.emit(ids, target[1])
        else:
            moving = bytes(data.data(FOLDER_MIME).data()).decode()
            new = self.moved_to(moving, target[1])
            if new is not None:
                self.folder_move_requested.emit(moving, new)
        return True


def conversations_mime(conv_ids: list[str]) -> QMimeData:
    """What the list drags: ``conv_ids``, for the folder tree's drop."""
    data = QMimeData()
    data.setData(CONVERSATIONS_MIME, QByteArray("\n".join(conv_ids).encode()))
    return data
