"""The sidebar's search: typing in the search box shows full-text hits (within the tag
filter) instead of the list, and clearing it shows the list again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ikgui.domain.errors import IkguiError

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLineEdit

    from ikgui.domain.ports import Store
    from ikgui.ui.sidebar.conversation_model import ConversationListModel
    from ikgui.ui.sidebar.sidebar_search import SearchResultsModel
    from ikgui.ui.sidebar.sidebar_view import ConversationTreeView


class SidebarSearching:
    """Mixed into :class:`~ikgui.ui.sidebar.sidebar.ConversationSidebar`."""

    # Provided by ConversationSidebar:
    view: ConversationTreeView
    model: ConversationListModel
    search_model: SearchResultsModel
    search_box: QLineEdit
    _store: Store
    _search_timer: QTimer
    _search_error: str
    _current: str | None
    _select: Callable[[str | None], None]
    _update_placeholder: Callable[[], None]

    def _on_search_text(self, text: str) -> None:
        if text.strip():
            self._search_timer.start()
        else:
            self._search_timer.stop()
            self._show_list()

    def _run_search(self) -> None:
        query = self.search_box.text().strip()
        if not query or self.model.trashed:
            self._show_list()
            return
        self._search_error = ""
        try:
            hits = self._store.search(query)
        except IkguiError as exc:  # e.g. the database is locked for a moment
            hits, self._search_error = [], exc.line
        tags = self.model.tags
        hits = [h for h in hits if all(t in h.conversation.tags for t in tags)]
        self.search_model.set_hits(query, hits)
        self._set_view_model(self.search_model)
        self._select(self._current)
        self._update_placeholder()

    def _show_list(self) -> None:
        if self.view.model() is self.search_model:  # (searching)
            self._set_view_model(self.model)
            self._select(self._current)
        self._update_placeholder()

    def _set_view_model(self, model: ConversationListModel | SearchResultsModel) -> None:
        if self.view.model() is model:
            return
        old = self.view.selectionModel()
        self.view.setModel(model)
        self.view.setRootIsDecorated(model is self.model)
        if old is not None:
            old.deleteLater()
