"""The conversation sidebar (SPEC §10, left): search, the tag filter (several tags, shown as
chips; a click on a row's tag chip adds it), the conversation tree (extended selection:
the context menu and Delete act on every selected row) and the Trash view.

It only reads through the store. Every change the user asks for (rename, tags, fork,
export, trash, restore) is an ``..._requested`` signal the main window carries out through
the domain session; the window then calls :meth:`ConversationSidebar.refresh_conversation`
(or :meth:`reload`) so the sidebar shows the result. Changes made by other processes are
picked up by :meth:`poll`, which the window calls from a timer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, QPoint, Qt
from PySide6.QtCore import Signal as _Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.errors import DatabaseUnreachable
from ikgui.domain.events import Conversation
from ikgui.domain.folders import SEPARATOR, SmartFolder, folder_tree
from ikgui.domain.library.folders import smart_counts
from ikgui.domain.ports import Store
from ikgui.ui.icons import icon, set_icon
from ikgui.ui.plain import line, make_plain
from ikgui.ui.questions import ask_text
from ikgui.ui.sidebar.conversation_model import ConversationListModel
from ikgui.ui.sidebar.delegate import ConversationDelegate
from ikgui.ui.sidebar.folders import FolderTree
from ikgui.ui.sidebar.menu import conversation_menu, selection_menu
from ikgui.ui.sidebar.parts import name_widget as _name
from ikgui.ui.sidebar.parts import timer as _timer
from ikgui.ui.sidebar.rows import ConversationRole, EventIdRole, IdRole
from ikgui.ui.sidebar.search import SearchResultsModel
from ikgui.ui.sidebar.searching import SidebarSearching, results_text
from ikgui.ui.sidebar.selection import SidebarSelection
from ikgui.ui.sidebar.tag_filter import TagFilterControl
from ikgui.ui.sidebar.trash_bar import TrashController
from ikgui.ui.sidebar.view import ConversationListView

if TYPE_CHECKING:
    from ikgui.ui.sidebar.tag_editor import TagEditorDialog

SEARCH_DELAY_MS = 250
TIMES_REFRESH_MS = 60_000
#: The folder tree's share of the height it and the list have: a third.
FOLDER_TREE_SHARE = (1, 2)

_EMPTY_LIST = "No conversations yet.\nStart one with New."
_EMPTY_TAG = "No conversations tagged {tags}."
_EMPTY_TRASH = "The Trash is empty."
_NO_MATCHES = "No conversation matches “{query}”."


class ConversationSidebar(SidebarSearching, SidebarSelection, QWidget):
    conversation_activated = _Signal(str, object)  # conv id, event id of a search hit or None
    rename_requested = _Signal(str, str)  # conv id, new title
    tags_requested = _Signal(str, list)  # conv id, the complete new tag list
    fork_requested = _Signal(str)
    export_requested = _Signal(str)
    trash_requested = _Signal(str)
    restore_requested = _Signal(list)  # the ids of the conversations to restore
    empty_trash_requested = _Signal()  # asked and confirmed (the Trash view's bar)
    close_requested = _Signal(str)  # close a branch (``/kill``): only forks can be closed
    # -- several rows at once (the selection), and tags across every conversation
    retag_many_requested = _Signal(list, list)  # conv ids, changes like ["+a", "-b"]
    trash_many_requested = _Signal(list)
    export_many_requested = _Signal(list)
    #: Pin / unpin these ids (menus, Ctrl+P); offered once the window sets ``pinning``.
    pin_requested = _Signal(list)
    unpin_requested = _Signal(list)
    tag_rename_requested = _Signal(str, str)  # old, new (onto a tag in use: a merge)
    tag_delete_requested = _Signal(str)
    tag_undo_requested = _Signal()  # reverse the last rename, merge or delete of a tag
    reopen_requested = _Signal(str)  # reopen a closed branch (``/reopen``)
    # -- folders (SPEC §15): the folder tree's asks, carried out by the window
    folder_rename_requested = _Signal(str, str)  # old path, new path (a rename or a move)
    folder_delete_requested = _Signal(str)
    folder_settings_requested = _Signal(str)
    smart_save_requested = _Signal(str, str, list)  # name, search text, tags
    smart_rename_requested = _Signal(str, str)
    smart_delete_requested = _Signal(str)

    def __init__(
        self, store: Store, parent: QWidget | None = None, *, first_page: int | None = None
    ) -> None:
        """``first_page``: conversations read before the first paint (default: a page)."""
        super().__init__(parent)
        self.setObjectName("conversationSidebar")
        self._store = store
        self._current: str | None = None
        #: The version each family row last showed (its id: the version's id).
        self._chosen: dict[str, str] = {}
        self._tag_dialog: TagEditorDialog | None = None
        self.manage_dialog = None
        self.tag_undo = None
        #: Whether the "New conversation" row stands above the list (the window's): an
        #: empty list then says nothing more (not "No conversations yet" under it).
        self.new_row_shown = False
        self.pinning = False
        self.tags_shown: dict[str, tuple[str, ...]] = {}  # each tag editor's starting tags
        self._search_error = ""
        self._list_place = None
        self.search_more = False  # the search found more hits than it shows
        self.model = ConversationListModel(store, self, first_page=first_page)
        self.search_model = SearchResultsModel(self.model.is_streaming, self)
        self._build()
        self._search_timer = _timer(self, SEARCH_DELAY_MS, self._run_search, single=True)
        _timer(self, TIMES_REFRESH_MS, self._refresh_times, single=False).start()
        self._version = store.data_version()
        self._listed = store.listing_version()
        self._fill_tags()
        self.model.fetchMore(QModelIndex())  # the first page, before the first paint
        self._update_placeholder()

    def _build(self) -> None:
        self.search_box = QLineEdit(self)
        _name(self.search_box, "conversationSearch", "Search conversations")
        self.search_box.setPlaceholderText("Search titles and messages")
        self.search_box.setClearButtonEnabled(True)
        glass = self.search_box.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        set_icon(glass, "search")  # re-tinted on a theme change
        self.search_box.setToolTip("Full-text search (Ctrl+F)")
        self.search_box.textChanged.connect(self._on_search_text)
        self.search_box.installEventFilter(self)
        self.search_count = make_plain(QLabel(self))
        _name(self.search_count, "searchCount", "Number of results")
        self.search_count.setEnabled(False)  # the muted colour
        self.search_count.hide()

        self.tag_filters = TagFilterControl(self._store, self)
        self.tag_filters.changed.connect(self._on_tags_chosen)
        self.tag_filter = self.tag_filters.box
        self.manage_button = self.tag_filters.manage_button
        self.manage_button.clicked.connect(self.open_manage_tags)

        self.trash_toggle = QToolButton(self)
        _name(self.trash_toggle, "trashToggle", "Show the Trash")
        self.trash_toggle.setCheckable(True)
        self.trash_toggle.setText("Trash")
        set_icon(self.trash_toggle, "trash")
        self.trash_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.trash_toggle.setToolTip("Show the Trash (conversations can be restored from it)")
        self.trash_toggle.toggled.connect(self._on_trash_toggled)

        self.trash = TrashController(self, self._store)

        self._build_folders()

        #: The list and what stands right above it (the window's New conversation row).
        #: Made first: the list, born in it, is never moved (a move lays it out).
        self.list_area = QWidget(self)
        self.list_area.setObjectName("conversationListArea")
        self.view = ConversationListView(self.list_area)
        self.delegate = ConversationDelegate(self.view)
        self.view.setItemDelegate(self.delegate)
        self.view.setModel(self.model)
        self.view.clicked.connect(self._activate)
        self.view.activation_requested.connect(self._activate)
        self.view.delete_requested.connect(self._on_delete_key)
        self.view.menu_requested.connect(self._popup_menu)
        self.view.tag_clicked.connect(self.tag_filters.add)
        self.view.pin_key_pressed.connect(self.toggle_pins)
        self.view.end_pressed.connect(self._load_rest)
        self.view.gap_shown.connect(self._fill_gap)
        self.delegate.rename_committed.connect(self.rename_requested)

        self._lay_out()

    def _lay_out(self) -> None:
        filters = QHBoxLayout()
        filters.setSpacing(6)
        filters.addWidget(self.tag_filter, 1)
        filters.addWidget(self.manage_button)
        filters.addWidget(self.trash_toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.setSpacing(6)
        layout.addWidget(self.search_box)
        layout.addWidget(self.search_count)
        layout.addLayout(filters)
        layout.addWidget(self.tag_filters.chips)
        layout.addWidget(self.trash.bar)
        below = QVBoxLayout(self.list_area)
        below.setContentsMargins(0, 0, 0, 0)
        below.setSpacing(6)
        below.addWidget(self.view, 1)
        # The folder tree above the list, sharing the height a third to two.
        layout.addWidget(self.folders, FOLDER_TREE_SHARE[0])
        layout.addWidget(self.list_area, FOLDER_TREE_SHARE[1])

    def _build_folders(self) -> None:
        self.folders = FolderTree(self)
        self.folders.folder_chosen.connect(self._on_folder_chosen)
        self.folders.smart_chosen.connect(self._on_smart_chosen)
        self.folders.conversations_dropped.connect(
            lambda ids, folder: self.retag_many_requested.emit(ids, [f"+{folder}"])
        )
        self.folders.folder_move_requested.connect(self.folder_rename_requested)
        self.folders.new_folder_requested.connect(self._ask_new_folder)
        self.folders.rename_requested.connect(self._ask_folder_rename)
        self.folders.delete_requested.connect(self.folder_delete_requested)
        self.folders.settings_requested.connect(self.folder_settings_requested)
        self.folders.smart_rename_requested.connect(self._ask_smart_rename)
        self.folders.smart_delete_requested.connect(self.smart_delete_requested)
        self.folders.save_smart_requested.connect(self._ask_smart_save)
        self.folders.undo_requested.connect(self.tag_undo_requested)

    # -- public API ------------------------------------------------------------------------
    @property
    def searching(self) -> bool:
        return self.view.model() is self.search_model

    @property
    def tag_editor(self) -> TagEditorDialog | None:
        """The open tag editor, if any."""
        return self._tag_dialog

    def focus_search(self) -> None:
        """Put the keyboard in the search box (the window binds Ctrl+F to this)."""
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def reload(self) -> None:
        """Re-query everything shown; rows change in place, so selection and scroll stay."""
        self.model.reload()
        self._fill_tags()
        if self.searching:
            self._run_search()
        elif self._current and not self.view.selectionModel().hasSelection():
            self._select(self._current)
        self._update_placeholder()

    def release_pages(self) -> None:
        """The window is painted: the list may read more pages (now if it is not full),
        and the tag filter gets its counts."""
        if self.model.pages_held:
            self.model.pages_held = False
            self._fill_tags()
        self.view.updateGeometries()  # (Qt then fetches if the last row is in view)

    def refresh_conversation(self, conv_id: str, known: Conversation | None = None) -> None:
        """Show one conversation's new state (inserted at its place if it is new);
        ``known``: its fields as stored now, when the session's fact carries them (the
        row is not read again).

        A database server that does not answer leaves the row as it is: the poll shows
        the new state once the server is back (a reply can end while it is away)."""
        shown = self.model.conversation(self.model.index_of(conv_id))
        try:
            conv = self.model.refresh(conv_id, known)
        except DatabaseUnreachable:
            return
        if conv is not None:
            self.search_model.update_conversation(conv)
            if shown is None or shown.tags != conv.tags or not self.tag_filter.knows(conv.tags):
                self._fill_tags()  # the counts changed
        self._update_placeholder()

    def set_current(self, conv_id: str | None) -> None:
        """Select and reveal ``conv_id``'s row (no ``conversation_activated``)."""
        self._current = conv_id
        self._select(conv_id)

    def show_forks(self, conv_id: str) -> None:
        """Expand ``conv_id``'s row: its new branches show under it (a comparison's)."""
        index = self._index_for(conv_id)
        if index.isValid() and not self.searching:
            self.model.expand(index)

    def show_new_row(self, shown: bool) -> None:
        if shown != self.new_row_shown:
            self.new_row_shown = shown
            self._update_placeholder()

    def set_streaming(self, conv_id: str, streaming: bool) -> None:
        self.model.set_streaming(conv_id, streaming)
        self.search_model.changed(conv_id)

    def start_rename(self, conv_id: str) -> None:
        """Open the inline title editor on ``conv_id``'s row."""
        index = self._index_for(conv_id)
        if not index.isValid() and self.searching:
            self.search_box.clear()
            index = self._index_for(conv_id)
        if not index.isValid():
            return
        self._show_index(index)
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.view.edit(index)

    def edit_tags(self, conv_id: str) -> None:
        """Open the tag editor for ``conv_id``; OK emits ``tags_requested`` (the window
        applies the difference from ``tags_shown``, what the editor opened with)."""
        conv = self._store.get_conversation(conv_id)
        if conv is None:
            return
        if self._tag_dialog is not None:
            self._tag_dialog.close()
        from ikgui.ui.sidebar.tag_editor import TagEditorDialog

        dialog = TagEditorDialog(conv, self._store.all_tags(), self)
        self.tags_shown[conv_id] = conv.tags
        dialog.tags_accepted.connect(lambda tags: self.tags_requested.emit(conv_id, tags))
        dialog.finished.connect(lambda _result: self._forget_dialog(dialog))
        self._tag_dialog = dialog
        dialog.open()

    def poll(self) -> bool:
        """Whether another connection changed the database since the last look; reloads
        only if what the sidebar lists may have changed (not for a reply growing)."""
        version = self._store.data_version()
        if version == self._version:
            return False
        self._version = version
        listed = self._store.listing_version()
        if listed != self._listed:
            self._listed = listed
            self.reload()
        return True

    def menu_for(self, index: QModelIndex) -> QMenu | None:
        """The context menu of a row, or of the selection when the row is one of several
        selected (not shown; the caller pops it up)."""
        conv = index.data(ConversationRole)
        if not isinstance(conv, Conversation):
            return None
        chosen = self.selected_conversations()
        if len(chosen) > 1 and conv.id in {c.id for c in chosen}:
            return selection_menu(self, chosen)
        return conversation_menu(self, conv)

    # -- selection ---------------------------------------------------------------------------
    def _index_for(self, conv_id: str) -> QModelIndex:
        if self.searching:
            return self.search_model.index_of(conv_id)
        return self.model.reveal(conv_id)

    def _select(self, conv_id: str | None) -> None:
        if not conv_id:
            index = QModelIndex()
        elif self.searching:
            index = self.search_model.index_of(conv_id)
        else:
            index = self.model.reveal(conv_id, folded=True)
            shown = index.data(IdRole)
            if index.isValid() and shown != conv_id:
                # An alternative (an edit, a retry) is one of its family row's versions
                # while that row is collapsed (issue 25): the row remembers it as the
                # version chosen.
                self._chosen[str(shown)] = conv_id
        if index.isValid():
            self._show_index(index)
        else:
            self.view.selectionModel().clear()

    def chosen_version(self, index: QModelIndex) -> str | None:
        """The version a collapsed family row opens: the one last shown in it (this
        session), else the one worked on last (the newest); ``None``: the row's own."""
        members = self.model.members(index)
        if len(members) < 2 or self.model.is_expanded(index):
            return None
        ids = {c.id for c in members}
        chosen = self._chosen.get(members[0].id)
        if chosen in ids:
            return chosen
        return max(members, key=lambda c: (c.updated_at, c.id)).id

    def _show_index(self, index: QModelIndex) -> None:
        # Showing a loaded row reads no page, though the scroll may touch the loaded end
        # (the view fetches later, from its own timer, if the list does not fill it).
        held, self.model.pages_held = self.model.pages_held, True
        try:
            self.view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
            self.view.scroll_to_current()
        finally:
            self.model.pages_held = held

    # -- user actions ------------------------------------------------------------------------
    def _activate(self, index: QModelIndex) -> None:
        conv = index.data(ConversationRole)
        if not isinstance(conv, Conversation) or self._extending():
            return
        event_id = index.data(EventIdRole) if self.searching else None
        conv_id = (None if self.searching else self.chosen_version(index)) or conv.id
        self._current = conv_id
        self.conversation_activated.emit(conv_id, event_id)

    def _load_rest(self) -> None:
        if not self.searching:
            self.model.fetch_tail()

    def _fill_gap(self, from_below: bool) -> None:
        """The gap row is in view: a page fills it from the side being looked at (from
        below, the rows on screen are kept in place)."""
        if self.searching:
            return
        if from_below:
            self.view.keeping_place(lambda: self.model.fill_gap(from_below=True))
        else:
            self.model.fill_gap(from_below=False)

    def _on_delete_key(self, index: QModelIndex) -> None:
        conv = index.data(ConversationRole)
        chosen = [c for c in self.selected_conversations() if c.trashed_at is None]
        if len(chosen) > 1:
            self.trash_many([c.id for c in chosen])
        elif isinstance(conv, Conversation) and conv.trashed_at is None:
            self.trash_requested.emit(conv.id)

    def _popup_menu(self, index: QModelIndex, where: QPoint) -> None:
        menu = self.menu_for(index)
        if menu is not None:
            menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            menu.popup(where)

    def _forget_dialog(self, dialog: TagEditorDialog) -> None:
        if self._tag_dialog is dialog:
            self._tag_dialog = None
        dialog.deleteLater()

    # -- search, tag filter, Trash ----------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.search_box and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Escape and self.search_box.text():
                self.search_box.clear()
                return True
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self._search_timer.isActive():
                    self._search_timer.stop()
                    self._run_search()
                self._focus_list()
                return True
        return super().eventFilter(watched, event)

    def _focus_list(self) -> None:
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)
        model = self.view.model()
        if not self.view.currentIndex().isValid() and model is not None and model.rowCount():
            self.view.selectionModel().setCurrentIndex(
                model.index(0, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
            )

    def filter_tags(self) -> tuple[str, ...]:
        """What the list is filtered by: the chosen tags and the chosen folder (its
        subtree: a tag filter takes the tags under it too)."""
        folder = self.folders.folder
        chosen = self.tag_filters.chosen
        return tuple(sorted({*chosen, folder})) if folder else chosen

    def _on_tags_chosen(self, _tags: tuple[str, ...] = ()) -> None:
        tags = self.filter_tags()
        if tags != self.model.tags:
            self._apply_filter(tags, self.model.trashed)
            # The tree's counts are the whole store's, whatever the filter: not re-read.
            self._fill_tags(folders=False)

    def _on_folder_chosen(self, _folder: str) -> None:
        self._on_tags_chosen()

    def _on_smart_chosen(self, smart: SmartFolder) -> None:
        """A smart folder is its saved search again: its tags chosen, its words searched."""
        self.tag_filters.choose(smart.tags)
        self.search_box.setText(smart.search)
        self._on_tags_chosen()
        if smart.search:
            self._search_timer.stop()
            self._run_search()

    @property
    def chosen_folder(self) -> str:
        """The folder chosen in the folder tree, or "" (a New starts in it: SPEC §15)."""
        return self.folders.folder

    def add_folder(self, path: str) -> None:
        """Show ``path`` in the tree (empty until conversations are dropped on it)."""
        self.folders.made.add(path)
        self._fill_folders()

    def _ask_new_folder(self, parent: str) -> None:
        def made(name: str) -> None:
            name = name.strip().strip(SEPARATOR)
            if name:
                self.add_folder(f"{parent}{SEPARATOR}{name}" if parent else name)

        where = f" inside “{line(parent)}”" if parent else ""
        ask_text(self, "New folder", f"Name of the new folder{where}:", "", made)

    def _ask_folder_rename(self, path: str) -> None:
        def renamed(new: str) -> None:
            new = new.strip().strip(SEPARATOR)
            if new and new != path:
                self.folder_rename_requested.emit(path, new)

        label = "New name (a path with / moves it):"
        ask_text(self, "Rename folder", label, path, renamed)

    def _ask_smart_rename(self, name: str) -> None:
        def renamed(new: str) -> None:
            if new.strip() and new.strip() != name:
                self.smart_rename_requested.emit(name, new.strip())

        ask_text(self, "Rename smart folder", "New name:", name, renamed)

    def _ask_smart_save(self) -> None:
        search = self.search_box.text().strip()
        tags = list(self.filter_tags())
        ask_text(
            self,
            "Save as smart folder",
            "Name of the smart folder (it keeps the search and the tags chosen):",
            search or " ".join(tags),
            lambda name: self.smart_save_requested.emit(name.strip(), search, tags),
        )

    def _fill_folders(self) -> None:
        trashed = self.model.trashed
        counts = self._store.folder_counts(trashed=trashed)
        known = {path for path, _ in counts}
        made = [(m, 0) for m in sorted(self.folders.made) if m not in known]
        self.folders.made = {m for m, _ in made}
        projects = [p.folder for p in self._store.projects()]
        smart = [] if trashed else smart_counts(self._store)
        total = self._store.count_conversations((), trashed=trashed)
        self.folders.fill(folder_tree(made + counts, projects), smart, total)

    def _on_trash_toggled(self, trashed: bool) -> None:
        if trashed:
            self.search_box.clear()
        self.search_box.setEnabled(not trashed)
        self._apply_filter(self.filter_tags(), trashed)
        self._fill_tags()
        self.trash.shown(trashed)

    def _apply_filter(self, tags: tuple[str, ...], trashed: bool) -> None:
        self.model.set_filter(tags=tags, trashed=trashed)
        self.model.fetchMore(QModelIndex())
        if self.searching:
            self._run_search()
        else:
            self._select(self._current)
        self._update_placeholder()

    def _fill_tags(self, *, folders: bool = True) -> None:
        if self.model.pages_held:  # the window's start-up: counted (every tag row) after
            return  # its first paint, by release_pages
        self.tag_filters.refresh(self.model.trashed, self.folders.folder)
        if folders:
            self._fill_folders()
        if self.manage_dialog is not None:
            self.manage_dialog.refresh()

    def _update_placeholder(self) -> None:
        count = self.search_model.rowCount()
        self.search_count.setVisible(self.searching and count > 0)
        self.search_count.setText(results_text(count, self.search_more))
        if self.searching:
            text = self._search_error or _NO_MATCHES.format(query=line(self.search_model.query))
        elif self.model.trashed:
            text = _EMPTY_TRASH
        elif self.model.tags:
            text = _EMPTY_TAG.format(tags=" and ".join(f"“{line(t)}”" for t in self.model.tags))
        elif self.new_row_shown:
            text = ""  # the new conversation's row is the one thing to see
        else:
            text = _EMPTY_LIST
        self.view.set_placeholder(text)
        self.trash.refresh()

    def _refresh_times(self) -> None:
        self.model.refresh_times()
        self.search_model.refresh_times()
