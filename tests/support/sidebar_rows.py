"""Reading the sidebar's conversation list in tests: its rows are flat (group headers are
rows of their own, forks are rows below their parent when it is expanded), so tests ask
for top-level rows and forks through these helpers."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex

from ikgui.ui.sidebar.rows import DepthRole, HeaderRole, IdRole
from ikgui.ui.sidebar.tree import ConversationTree

AnyIndex = QModelIndex | QPersistentModelIndex


def conversation_rows(model: ConversationTree) -> list[QModelIndex]:
    """Every row showing a conversation (headers and the gap left out), in order."""
    rows = (model.index(r, 0) for r in range(model.rowCount()))
    return [i for i in rows if i.data(IdRole) is not None]


def top_rows(model: ConversationTree) -> list[QModelIndex]:
    return [i for i in conversation_rows(model) if i.data(DepthRole) == 0]


def top_ids(model: ConversationTree) -> list[str]:
    return [i.data(IdRole) for i in top_rows(model)]


def row_ids(model: ConversationTree) -> list[str]:
    """The ids of every conversation row shown, nested ones included, in order."""
    return [i.data(IdRole) for i in conversation_rows(model)]


def top(model: ConversationTree, n: int) -> QModelIndex:
    """The ``n``-th top-level conversation row."""
    return top_rows(model)[n]


def headers(model: ConversationTree) -> list[str]:
    rows = (model.index(r, 0) for r in range(model.rowCount()))
    return [h for h in (i.data(HeaderRole) for i in rows) if h is not None]


def child_ids(model: ConversationTree, parent: AnyIndex) -> list[str]:
    """The ids of the rows nested right under ``parent`` (loaded if need be)."""
    return [c.id for c in model.forks_of(str(parent.data(IdRole)))]


def child(model: ConversationTree, parent: AnyIndex, n: int) -> QModelIndex:
    """The ``n``-th row nested under ``parent``, which is expanded to show it."""
    model.expand(parent)
    return model.index_of(child_ids(model, parent)[n])
