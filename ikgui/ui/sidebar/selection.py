"""What the sidebar does with several rows at once (the extended selection) and with tags
across every conversation (the Manage tags dialog). A base of
:class:`~ikgui.ui.sidebar.panel.ConversationSidebar`, which holds the signals: these
methods only ask, the window carries the requests out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from ikgui.domain.events import Conversation
from ikgui.ui.sidebar.rows import ConversationRole

if TYPE_CHECKING:
    from ikgui.domain.ports import Store
    from ikgui.ui.sidebar.folders import FolderTree
    from ikgui.ui.sidebar.manage_tags import ManageTagsDialog
    from ikgui.ui.sidebar.tag_editor import TagEditorDialog
    from ikgui.ui.sidebar.view import ConversationListView


class SidebarSelection:
    # Provided by ConversationSidebar:
    view: ConversationListView
    _store: Store
    _tag_dialog: TagEditorDialog | None
    manage_dialog: ManageTagsDialog | None
    restore_requested: Any
    pin_requested: Any
    unpin_requested: Any
    pinning: bool
    retag_many_requested: Any
    trash_many_requested: Any
    tag_rename_requested: Any
    tag_delete_requested: Any
    tag_undo_requested: Any
    #: What Undo in Manage tags reverses ("rename of 'a' to 'b'"), set by the window.
    tag_undo: str | None
    folders: FolderTree

    _forget_dialog: Callable[[TagEditorDialog], None]

    def selected_conversations(self) -> list[Conversation]:
        """The selected rows' conversations, in the order shown."""
        rows = sorted(
            self.view.selectionModel().selectedIndexes(),
            key=lambda i: self.view.visualRect(i).top(),
        )
        found = [i.data(ConversationRole) for i in rows]
        return [c for c in found if isinstance(c, Conversation)]

    def toggle_pins(self) -> None:
        """Ctrl+P: unpin the selected rows when all of them are pinned, else pin them."""
        chosen = [c for c in self.selected_conversations() if c.trashed_at is None]
        if not chosen or not self.pinning:
            return
        ids = [c.id for c in chosen]
        if all(c.pinned for c in chosen):
            self.unpin_requested.emit(ids)
        else:
            self.pin_requested.emit(ids)

    def copy_id(self, conv_id: str) -> None:
        QApplication.clipboard().setText(conv_id)

    def trash_many(self, conv_ids: list[str]) -> None:
        self.trash_many_requested.emit(conv_ids)

    def restore_many(self, conv_ids: list[str]) -> None:
        self.restore_requested.emit(list(conv_ids))  # one transaction for all

    def add_tag_to(self, conv_ids: list[str]) -> None:
        """Ask for tags to add to every conversation of ``conv_ids``."""
        if self._tag_dialog is not None:
            self._tag_dialog.close()
        from ikgui.ui.sidebar.tag_editor import TagEditorDialog

        dialog = TagEditorDialog(None, self._store.all_tags(), self._widget(), count=len(conv_ids))
        dialog.tags_accepted.connect(
            lambda tags: self.retag_many_requested.emit(conv_ids, [f"+{t}" for t in tags])
        )
        dialog.finished.connect(lambda _result: self._forget_dialog(dialog))
        self._tag_dialog = dialog
        dialog.open()

    def open_manage_tags(self) -> ManageTagsDialog:
        """The Manage tags dialog (one at a time); its requests come out of the sidebar's
        ``tag_rename_requested`` / ``tag_delete_requested``."""
        if self.manage_dialog is None:
            from ikgui.ui.sidebar.manage_tags import ManageTagsDialog

            dialog = ManageTagsDialog(self._store, self._widget())
            dialog.rename_requested.connect(self.tag_rename_requested)
            dialog.delete_requested.connect(self.tag_delete_requested)
            dialog.undo_requested.connect(self.tag_undo_requested)
            dialog.finished.connect(lambda _result: setattr(self, "manage_dialog", None))
            self.manage_dialog = dialog
        self.manage_dialog.set_undo(self.tag_undo)
        self.manage_dialog.refresh()
        self.manage_dialog.open()
        return self.manage_dialog

    def set_tag_undo(self, what: str | None) -> None:
        """What the Manage tags dialog's Undo (Ctrl+Z) reverses, or ``None``."""
        self.tag_undo = what
        self.folders.undo = what
        if self.manage_dialog is not None:
            self.manage_dialog.set_undo(what)

    def _extending(self) -> bool:
        """A Shift- or Ctrl-click extends the selection: it opens nothing."""
        held = QApplication.keyboardModifiers()
        return bool(
            held & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier)
        )

    def _widget(self) -> Any:
        return self  # the sidebar itself: the dialogs' parent
