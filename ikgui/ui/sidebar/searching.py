"""The sidebar's search: typing in the search box shows full-text hits (within the tag
filter) instead of the list, from the top, with their count; clearing it shows the list
again where it was (its scroll and selection), unless another conversation was opened
from the results meanwhile (then that one is shown)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel

from ikgui.domain.errors import IkguiError
from ikgui.domain.folders import carries_all
from ikgui.ui.sidebar.rows import IdRole

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLineEdit

    from ikgui.domain.ports import Store
    from ikgui.ui.sidebar.conversation_model import ConversationListModel
    from ikgui.ui.sidebar.search import SearchResultsModel
    from ikgui.ui.sidebar.view import ConversationListView


#: Hits read per search; one more is asked for, to know whether there are more.
SEARCH_LIMIT = 50


def results_text(count: int, more: bool) -> str:
    """The count shown above the results ("12 results"; "the first 50" when cut)."""
    if more:
        return f"The first {count} results"
    return "1 result" if count == 1 else f"{count} results"


@dataclass(frozen=True)
class ListPlace:
    """Where the list was when a search began: its scroll, its selected rows (ids), its
    current row, and the conversation open then."""

    scroll: int
    selected: tuple[str, ...]
    current_row: str | None
    opened: str | None


class SidebarSearching:
    """Mixed into :class:`~ikgui.ui.sidebar.panel.ConversationSidebar`."""

    # Provided by ConversationSidebar:
    view: ConversationListView
    model: ConversationListModel
    search_model: SearchResultsModel
    search_box: QLineEdit
    _store: Store
    _search_timer: QTimer
    _search_error: str
    _current: str | None
    _list_place: ListPlace | None
    search_more: bool
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
            hits = self._store.search(query, SEARCH_LIMIT + 1)
        except IkguiError as exc:  # e.g. the database is locked for a moment
            hits, self._search_error = [], exc.line
        self.search_more = len(hits) > SEARCH_LIMIT
        tags = self.model.tags
        hits = [h for h in hits[:SEARCH_LIMIT] if carries_all(h.conversation.tags, tags)]
        fresh = query != self.search_model.query or self.view.model() is not self.search_model
        if self.view.model() is not self.search_model:
            self._list_place = self._place()
        self.search_model.set_hits(query, hits)
        self._set_view_model(self.search_model)
        if fresh:  # a new query: its best hits first, the open one marked but not sought
            index = self.search_model.index_of(self._current) if self._current else None
            if index is not None and index.isValid():
                self.view.selectionModel().select(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                )
            else:
                self.view.selectionModel().clear()
            self.view.scrollToTop()
        else:
            self._select(self._current)
        self._update_placeholder()

    def _show_list(self) -> None:
        if self.view.model() is self.search_model:  # (searching)
            self._set_view_model(self.model)
            place, self._list_place = self._list_place, None
            self.search_model.set_hits("", [])
            if place is not None and place.opened == self._current:
                self._return_to(place)
            else:
                self._select(self._current)
        self._update_placeholder()

    def _place(self) -> ListPlace:
        view = self.view
        selected = tuple(str(i.data(IdRole)) for i in view.selectionModel().selectedIndexes())
        current = view.currentIndex().data(IdRole) if view.currentIndex().isValid() else None
        return ListPlace(view.verticalScrollBar().value(), selected, current, self._current)

    def _return_to(self, place: ListPlace) -> None:
        """The list as it was before the search: the same rows selected, the same scroll."""
        view = self.view
        chosen = view.selectionModel()
        chosen.clear()
        if place.current_row is not None:
            index = self.model.index_of(place.current_row)
            if index.isValid():
                chosen.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.NoUpdate)
        for conv_id in place.selected:
            index = self.model.index_of(conv_id)
            if index.isValid():
                chosen.select(index, QItemSelectionModel.SelectionFlag.Select)
        view.doItemsLayout()
        view.verticalScrollBar().setValue(place.scroll)

    def _set_view_model(self, model: ConversationListModel | SearchResultsModel) -> None:
        if self.view.model() is model:
            return
        old = self.view.selectionModel()
        self.view.setModel(model)
        if old is not None:
            old.deleteLater()
