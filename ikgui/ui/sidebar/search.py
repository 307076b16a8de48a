"""The sidebar's search results: a flat list of conversations, each saying what matched
(``Title matches``, or ``Message:`` and the snippet of its best match) and the id of the
matching event (``None`` when only the title matched).

It answers the same roles as :class:`ConversationListModel` plus ``SnippetRole`` and
``EventIdRole``; results are replaced as a whole by each query.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ikgui.domain.events import Conversation, SearchHit
from ikgui.ui.plain import line
from ikgui.ui.sidebar.rows import (
    EventIdRole,
    QueryRole,
    RelativeTimeRole,
    SnippetRole,
    row_value,
    tooltip_of,
)

AnyIndex = QModelIndex | QPersistentModelIndex


#: A result's second line when only its title matched (the title is the line above).
TITLE_MATCH = "Title matches"
MESSAGE_MATCH = "Message: "


def match_text(hit: SearchHit) -> str:
    """What matched: the title, or a message (with its snippet)."""
    if hit.event_id is None:
        return TITLE_MATCH
    return MESSAGE_MATCH + line(hit.snippet or "")


class SearchResultsModel(QAbstractListModel):
    def __init__(
        self,
        streaming: Callable[[str], bool],
        parent: QObject | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(parent)
        self._hits: list[SearchHit] = []
        self._streaming = streaming
        self._clock = clock
        self.query = ""

    def set_hits(self, query: str, hits: Sequence[SearchHit]) -> None:
        self.beginResetModel()
        self.query = query
        self._hits = list(hits)
        self.endResetModel()

    def hit(self, index: AnyIndex) -> SearchHit | None:
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        return self._hits[index.row()]

    def conversation(self, index: AnyIndex) -> Conversation | None:
        hit = self.hit(index)
        return hit.conversation if hit is not None else None

    def index_of(self, conv_id: str) -> QModelIndex:
        for row, hit in enumerate(self._hits):
            if hit.conversation.id == conv_id:
                return self.index(row, 0)
        return QModelIndex()

    def update_conversation(self, conv: Conversation) -> None:
        """Show fresh fields of a conversation among the results (title, tags...)."""
        for row, hit in enumerate(self._hits):
            if hit.conversation.id == conv.id:
                self._hits[row] = SearchHit(conv, hit.event_id, hit.snippet)
                index = self.index(row, 0)
                self.dataChanged.emit(index, index, [])

    def changed(self, conv_id: str) -> None:
        index = self.index_of(conv_id)
        if index.isValid():
            self.dataChanged.emit(index, index, [])

    def refresh_times(self) -> None:
        if self._hits:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._hits) - 1, 0), [RelativeTimeRole]
            )

    # -- Qt model interface -------------------------------------------------------------
    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._hits)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsEditable
            | Qt.ItemFlag.ItemNeverHasChildren
        )

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        hit = self.hit(index)
        if hit is None:
            return None
        if role == SnippetRole:  # what matched; message text on one line, bidi visible
            return match_text(hit)
        if role == EventIdRole:
            return hit.event_id
        if role == QueryRole:
            return self.query
        conv = hit.conversation
        streaming = self._streaming(conv.id)
        if role == Qt.ItemDataRole.ToolTipRole and hit.snippet:
            return tooltip_of(conv, self._clock(), streaming, hit.snippet)
        return row_value(conv, role, self._clock(), streaming)
