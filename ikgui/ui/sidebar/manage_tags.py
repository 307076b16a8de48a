"""The Manage tags dialog: every tag with its number of conversations (and of those in
the Trash); rename a tag, merge it into another (rename onto a tag in use) or delete it
from every conversation.

It only asks: ``rename_requested(old, new)`` and ``delete_requested(tag)`` go to the
window, which changes every conversation in one transaction and refreshes the sidebar
(which calls :meth:`ManageTagsDialog.refresh`). A delete is confirmed first, naming how
many conversations lose the tag. Tags are shown as plain text.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
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
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.errors import UserError
from ikgui.domain.ids import normalize_tag
from ikgui.domain.ports import Store
from ikgui.ui.plain import block, line, make_plain
from ikgui.ui.sidebar.parts import name_widget
from ikgui.ui.sidebar.tag_filter import count_label

HINT = "Rename onto a tag in use to merge the two. Changes apply to every conversation."
_COLUMNS = ("Tag", "Conversations", "In the Trash")


def _item(text: str, sort: int | str, *, number: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setData(Qt.ItemDataRole.UserRole, sort)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if number:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class ManageTagsDialog(QDialog):
    rename_requested = Signal(str, str)  # old, new (normalized)
    delete_requested = Signal(str)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name_widget(self, "manageTags", "Manage tags")
        self.setWindowTitle("Manage tags")
        self.setMinimumSize(440, 380)
        self._store = store
        self.counts: dict[str, tuple[int, int]] = {}  # tag -> (live, in the Trash)
        self.confirmation: QMessageBox | None = None

        self.table = QTableWidget(0, len(_COLUMNS), self)
        name_widget(self.table, "tagTable", "Tags")
        self.table.setHorizontalHeaderLabels(list(_COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._on_selected)

        self.name_edit = QLineEdit(self)
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(8)
        layout.addWidget(self.table, 1)
        layout.addLayout(edit_row)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self._update_buttons()

    # -- state -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the tags and their counts (keeping the selected tag when it remains)."""
        live = dict(self._store.tag_counts())
        trashed = dict(self._store.tag_counts(trashed=True))
        self.counts = {t: (live.get(t, 0), trashed.get(t, 0)) for t in sorted({*live, *trashed})}
        chosen = self.selected_tag()
        self.table.setRowCount(len(self.counts))
        for row, (tag, (n, gone)) in enumerate(self.counts.items()):
            self.table.setItem(row, 0, _item(f"#{line(tag)}", tag))
            self.table.setItem(row, 1, _item(str(n), n, number=True))
            self.table.setItem(row, 2, _item(str(gone) if gone else "", gone, number=True))
        if chosen in self.counts:
            self.select(chosen)
        self._update_buttons()

    def select(self, tag: str) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == tag:
                self.table.selectRow(row)
                return

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
        tag, new = self.selected_tag(), self._new_name()
        if tag is None or new is None or new == tag:
            return
        self.rename_requested.emit(tag, new)
        self.refresh()
        self.select(new)

    def ask_delete(self) -> None:
        """Confirm, naming how many conversations lose the tag; Yes asks for the delete."""
        tag = self.selected_tag()
        if tag is None:
            return
        live, gone = self.counts.get(tag, (0, 0))
        box = QMessageBox(self)
        box.setObjectName("confirmDeleteTag")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Delete tag")
        box.setText(line(f"Remove the tag “{tag}” from {count_label(live + gone)}?"))
        box.setInformativeText("The conversations themselves are kept.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        yes = box.button(QMessageBox.StandardButton.Yes)
        yes.setText("Delete")
        box.buttonClicked.connect(lambda button: self._delete(tag) if button is yes else None)
        box.finished.connect(box.deleteLater)
        self.confirmation = box
        box.open()

    def _delete(self, tag: str) -> None:
        self.delete_requested.emit(tag)
        self.name_edit.clear()
        self.refresh()
