"""The Manage tags dialog: every tag with its number of conversations (and of those in
the Trash); rename a tag, merge it into another (rename onto a tag in use) or delete it
from every conversation.

It only asks: ``rename_requested(old, new)``, ``delete_requested(tag)`` and
``undo_requested()`` go to the window, which changes every conversation in one transaction
and refreshes the sidebar (which calls :meth:`ManageTagsDialog.refresh`). A delete and a
merge are confirmed first, naming how many conversations each tag has; every change can be
undone (Undo, Ctrl+Z). Picking a tag fills the name field with it, selected, so typing
replaces it (a click into the field selects it too). Tags are shown as plain text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFocusEvent, QKeyEvent, QKeySequence, QMouseEvent, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.errors import UserError
from ikgui.domain.ports import Store
from ikgui.domain.state.ids import normalize_tag
from ikgui.ui.plain import block, line, make_plain
from ikgui.ui.sidebar.parts import name_widget
from ikgui.ui.sidebar.tag_filter import count_label

HINT = (
    "Rename onto a tag in use to merge the two. Changes apply to every conversation; "
    "Undo (Ctrl+Z) reverses the last one."
)
_COLUMNS = ("Tag", "Conversations", "In the Trash")
_ROOT = QModelIndex()
#: How many rows the count columns are sized from.
SIZE_SAMPLE = 200


class _NameEdit(QLineEdit):
    """The new-name field: its text (the chosen tag) selected whenever it gets the focus,
    a click included, so typing replaces it rather than adding to it; Ctrl+Z with no typing
    to undo goes to the dialog (undo the last change of a tag)."""

    _select_on_click = False

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.selectAll()
        self._select_on_click = event.reason() == Qt.FocusReason.MouseFocusReason

    def mousePressEvent(self, event: QMouseEvent) -> None:
        super().mousePressEvent(event)
        if self._select_on_click:
            self.selectAll()  # the click that focused the field: the press placed a cursor

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if self._select_on_click:
            self._select_on_click = False
            self.selectAll()

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Undo)
            and not self.isUndoAvailable()
        ):
            event.ignore()  # not the field's: the dialog's Undo shortcut takes it
            return False
        return super().event(event)


class TagTable(QAbstractTableModel):
    """The tags and their counts, one row each, read only when painted: a list of
    100,000 tags costs its list, not 300,000 items made and measured."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, int, int]] = []  # tag, live, in the Trash; by tag
        self._row_of: dict[str, int] = {}

    def set_counts(self, counts: dict[str, tuple[int, int]]) -> None:
        self.beginResetModel()
        self._rows = [(tag, n, gone) for tag, (n, gone) in counts.items()]
        self._row_of = {tag: row for row, (tag, _, _) in enumerate(self._rows)}
        self.endResetModel()

    def row_of(self, tag: str) -> int | None:
        return self._row_of.get(tag)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _COLUMNS[section] if 0 <= section < len(_COLUMNS) else None
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        tag, n, gone = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return f"#{line(tag)}"
            return str(n) if column == 1 else (str(gone) if gone else "")
        if role == Qt.ItemDataRole.UserRole:
            return (tag, n, gone)[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class ManageTagsDialog(QDialog):
    rename_requested = Signal(str, str)  # old, new (normalized)
    delete_requested = Signal(str)
    undo_requested = Signal()  # reverse the last rename, merge or delete

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name_widget(self, "manageTags", "Manage tags")
        self.setWindowTitle("Manage tags")
        self.setMinimumSize(440, 380)
        self._store = store
        self.counts: dict[str, tuple[int, int]] = {}  # tag -> (live, in the Trash)
        self.confirmation: QMessageBox | None = None

        self.rows = TagTable(self)
        self.table = self._make_table()

        self.undo_what: str | None = None  # what Undo reverses, told by the window

        self.name_edit = _NameEdit(self)
        name_widget(self.name_edit, "tagNewName", "New tag name")
        self.name_edit.setPlaceholderText("New name (or a tag to merge into)")
        self.name_edit.textChanged.connect(self._update_buttons)
        self.name_edit.returnPressed.connect(self.rename)
        self.rename_button = QPushButton("Rename", self)
        name_widget(self.rename_button, "renameTagButton", "Rename tag")
        self.rename_button.clicked.connect(self.rename)
        self.delete_button = QPushButton("Delete…", self)
        name_widget(self.delete_button, "deleteTagButton", "Delete tag")
        self.delete_button.clicked.connect(self.ask_delete)
        self.undo_button = QPushButton("Undo", self)
        name_widget(self.undo_button, "undoTagButton", "Undo the last change")
        self.undo_button.clicked.connect(self.undo)
        undo_key = QShortcut(QKeySequence.StandardKey.Undo, self)
        undo_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo_key.activated.connect(self.undo)
        self.message = make_plain(QLabel(HINT, self))
        name_widget(self.message, "manageTagsMessage", "Tag status")
        self.message.setWordWrap(True)
        self.message.setEnabled(False)  # the muted colour, until an error
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)

        edit_row = QHBoxLayout()
        edit_row.addWidget(self.name_edit, 1)
        edit_row.addWidget(self.rename_button)
        edit_row.addWidget(self.delete_button)
        edit_row.addWidget(self.undo_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(8)
        layout.addWidget(self.table, 1)
        layout.addLayout(edit_row)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.set_undo(None)
        self._update_buttons()

    def _make_table(self) -> QTableView:
        """The tags with their counts, one row each, selected a row at a time."""
        table = QTableView(self)
        name_widget(table, "tagTable", "Tags")
        table.setModel(self.rows)
        table.verticalHeader().hide()
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setShowGrid(False)
        table.setAlternatingRowColors(True)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        # The count columns fit a sample of rows (the first and those in sight), not
        # every one of 100,000 tags at each layout.
        header.setResizeContentsPrecision(SIZE_SAMPLE)
        table.selectionModel().selectionChanged.connect(self._on_selected)
        return table

    # -- state -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the tags and their counts (keeping the selected tag when it remains)."""
        live = dict(self._store.tag_counts())
        trashed = dict(self._store.tag_counts(trashed=True))
        self.counts = {t: (live.get(t, 0), trashed.get(t, 0)) for t in sorted({*live, *trashed})}
        chosen = self.selected_tag()
        self.rows.set_counts(self.counts)
        if chosen in self.counts:
            self.select(chosen)
        self._update_buttons()

    def select(self, tag: str) -> None:
        """Select ``tag``'s row and scroll it into view (after a rename the list is sorted
        again: the selection follows the tag, not the row under the pointer)."""
        row = self.rows.row_of(tag)
        if row is not None:
            self.table.selectRow(row)
            self.table.scrollTo(self.rows.index(row, 0))

    def set_undo(self, what: str | None) -> None:
        """What Undo reverses ("rename of 'a' to 'b'"), or ``None``: nothing to undo."""
        self.undo_what = what
        self.undo_button.setEnabled(what is not None)
        self.undo_button.setToolTip(line(f"Undo the {what} (Ctrl+Z)") if what else "")

    def selected_tag(self) -> str | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows:
            return None
        tag = rows[0].data(Qt.ItemDataRole.UserRole)
        return tag if isinstance(tag, str) else None

    def _on_selected(self) -> None:
        tag = self.selected_tag()
        if tag is not None:
            self.name_edit.setText(tag)
            self.name_edit.selectAll()
        self._update_buttons()

    def _new_name(self) -> str | None:
        """The normalized new name, or ``None`` (the reason shown) when it is not allowed."""
        try:
            name = normalize_tag(self.name_edit.text())
        except UserError as exc:
            self._say(exc.message if self.name_edit.text().strip() else HINT, error=True)
            return None
        self._say(HINT)
        return name

    def _update_buttons(self) -> None:
        tag = self.selected_tag()
        self.delete_button.setEnabled(tag is not None)
        new = self._new_name() if self.name_edit.text().strip() else None
        self.rename_button.setEnabled(tag is not None and new is not None and new != tag)
        merging = new is not None and new != tag and new in self.counts
        self.rename_button.setText("Merge" if merging else "Rename")

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setText(block(text))
        self.message.setEnabled(error)

    # -- requests ---------------------------------------------------------------------------
    def rename(self) -> None:
        """Rename the chosen tag; onto a tag in use, confirm the merge first."""
        tag, new = self.selected_tag(), self._new_name()
        if tag is None or new is None or new == tag:
            return
        if new not in self.counts:
            self._rename(tag, new)
            return
        box = self._question(
            "confirmMergeTag",
            "Merge tags",
            f"Merge “{tag}” ({self._total(tag)}) into “{new}” ({self._total(new)})?",
            f"Every conversation tagged “{tag}” is tagged “{new}” instead. Undo (Ctrl+Z) "
            "gives the conversations their tags back.",
            "Merge",
        )
        yes = box.button(QMessageBox.StandardButton.Yes)
        box.buttonClicked.connect(lambda button: self._rename(tag, new) if button is yes else None)
        box.open()

    def _rename(self, tag: str, new: str) -> None:
        self.rename_requested.emit(tag, new)
        self.refresh()
        self.select(new)

    def undo(self) -> None:
        if self.undo_what is not None:
            self.undo_requested.emit()
            self.refresh()

    def _total(self, tag: str) -> int:
        live, gone = self.counts.get(tag, (0, 0))
        return live + gone

    def _question(self, name: str, title: str, text: str, more: str, verb: str) -> QMessageBox:
        """A confirmation, Cancel by default, its Yes button saying ``verb``; tag names
        are user text, shown plain."""
        box = QMessageBox(self)
        box.setObjectName(name)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(title)
        box.setText(line(text))
        box.setInformativeText(more)
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText(verb)
        box.finished.connect(box.deleteLater)
        self.confirmation = box
        return box

    def ask_delete(self) -> None:
        """Confirm, naming how many conversations lose the tag; Yes asks for the delete."""
        tag = self.selected_tag()
        if tag is None:
            return
        box = self._question(
            "confirmDeleteTag",
            "Delete tag",
            f"Remove the tag “{tag}” from {count_label(self._total(tag))}?",
            "The conversations themselves are kept. Undo (Ctrl+Z) puts the tag back.",
            "Delete",
        )
        yes = box.button(QMessageBox.StandardButton.Yes)
        box.buttonClicked.connect(lambda button: self._delete(tag) if button is yes else None)
        box.open()

    def _delete(self, tag: str) -> None:
        self.delete_requested.emit(tag)
        self.name_edit.clear()
        self.refresh()
