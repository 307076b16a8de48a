"""A one-column Qt item model over a tree of cached ``Conversation`` nodes, and the row
operations that keep a view's selection, expansion and scroll position: insert, remove,
move and :meth:`ConversationTree._sync` (turn a list of rows into a new list with the
fewest signals). :class:`ikgui.ui.sidebar.conversation_model.ConversationListModel` fills it
from the store.

Indexes carry a node key (``internalId``), not a Python object, so a stale index can
only ever miss, never point at freed memory.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from ikgui.domain.events import Conversation
from ikgui.domain.text.times import day_bounds
from ikgui.ui.sidebar.folders import CONVERSATIONS_MIME, conversations_mime
from ikgui.ui.sidebar.node import MAX_INDENT as MAX_INDENT
from ikgui.ui.sidebar.node import Node, renumber
from ikgui.ui.sidebar.rows import (
    DetailRole,
    HeaderRole,
    VersionsRole,
    detail_of,
    group_of,
    is_alternative,
    place_key,
    row_value,
)

AnyIndex = QModelIndex | QPersistentModelIndex
#: More moves than this in one sync and the caller resets instead of moving rows.
MAX_MOVES = 200
#: Every row's flags (the view asks for them often: combined once).
_ROW_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled
    | Qt.ItemFlag.ItemIsSelectable
    | Qt.ItemFlag.ItemIsEditable
    | Qt.ItemFlag.ItemIsDragEnabled  # onto a folder: tagged with it (SPEC §15)
)
#: A row whose forks were read and are none: the view then need not ask ``hasChildren``
#: of it at each layout (a fork added later is announced by ``rowsInserted``).
_LEAF_FLAGS = _ROW_FLAGS | Qt.ItemFlag.ItemNeverHasChildren


class ConversationTree(QAbstractItemModel):
    """The tree and its row operations; subclasses say how children are loaded."""

    def __init__(
        self, parent: QObject | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._streaming: set[str] = set()
        self._keys = itertools.count(1)
        self._root = Node(0, None, None)
        self._clear_nodes()

    def _clear_nodes(self) -> None:
        #: Each node's group and second line, for the conversation value they were made
        #: from, today (the dates in them change at midnight): painting asks often.
        self._groups: dict[int, tuple[Conversation, str]] = {}
        self._details: dict[int, tuple[Conversation, str]] = {}
        self._day = (0.0, 0.0)  # the day the groups were computed for
        self._root.children = []
        self._nodes: dict[int, Node] = {0: self._root}
        self._by_id: dict[str, Node] = {}

    def _load_children(self, conv_id: str) -> list[Conversation]:
        raise NotImplementedError

    def _rows_under(self, node: Node) -> list[Conversation]:
        """The rows nested under ``node``: its children, or at the level before the last
        indented one its whole subtree (depth first, each fork after its parent)."""
        convs = self._load_children(node.id)
        if node.depth < MAX_INDENT - 1:
            return convs
        rows: list[Conversation] = []
        seen = {node.id}
        stack = list(reversed(convs))
        while stack:
            conv = stack.pop()
            if conv.id in seen:
                continue
            seen.add(conv.id)
            rows.append(conv)
            stack.extend(reversed(self._load_children(conv.id)))
        return rows

    def branch_parent(self, index: AnyIndex) -> Conversation | None:
        """The parent of a row shown unindented below it (deeper than ``MAX_INDENT``):
        the row says ``branch of <its title>``; ``None`` for other rows."""
        node = self._node(index) if index.isValid() else None
        if node is None or node.conv is None or node.parent is None:
            return None
        parent_id = node.conv.parent
        if parent_id is None or parent_id == node.parent.id:
            return None
        shown = self._by_id.get(parent_id)
        return shown.conv if shown is not None else None

    # -- nodes -----------------------------------------------------------------------------
    @property
    def _top(self) -> list[Node]:
        assert self._root.children is not None
        return self._root.children

    def _make(self, conv: Conversation, parent: Node) -> Node:
        node = Node(next(self._keys), conv, parent)
        self._nodes[node.key] = node
        self._by_id[conv.id] = node
        return node

    def _forget(self, node: Node) -> None:
        self._nodes.pop(node.key, None)
        self._groups.pop(node.key, None)
        self._details.pop(node.key, None)
        if self._by_id.get(node.id) is node:
            del self._by_id[node.id]
        for child in node.children or ():
            self._forget(child)

    def _children_of(self, node: Node) -> list[Node]:
        if node.children is None:
            node.children = []
            for conv in self._rows_under(node):
                if conv.id not in self._by_id:  # shown elsewhere until the next reload
                    node.children.append(self._make(conv, node))
            renumber(node.children)
            self._load_versions(node.children)
        return node.children

    def _load_versions(self, nodes: list[Node]) -> None:
        """Read the forks of the alternatives among ``nodes`` (an edit of an edit is one
        more version of the row they are folded into, whose count says so before anyone
        expands it)."""
        for kid in nodes:
            if kid.children is None and kid.conv is not None and is_alternative(kid.conv):
                self._children_of(kid)

    def versions(self, node: Node) -> int:
        """How many versions a row stands for: itself and the alternatives (edits,
        retries) under it, through alternatives of alternatives; 0 when it has none or
        is one itself (loaded rows only: painting never reads the store)."""
        if node.conv is None or is_alternative(node.conv):
            return 0
        count = len(self._members(node))
        return count if count > 1 else 0

    def family_of(self, index: AnyIndex) -> QModelIndex:
        """The row an alternative's versions are folded into: the nearest ancestor row
        that is not an alternative itself (the row's own index for any other row)."""
        node = self._node(index) if index.isValid() else None
        while (
            node is not None
            and node.conv is not None
            and is_alternative(node.conv)
            and node.parent is not None
            and node.parent is not self._root
        ):
            node = node.parent
        return self._index_of_node(node) if node is not None else QModelIndex()

    def members(self, index: AnyIndex) -> list[Conversation]:
        """The versions a row stands for (itself first, then its alternatives as loaded)."""
        node = self._node(index) if index.isValid() else None
        return self._members(node) if node is not None and node.conv is not None else []

    def _members(self, node: Node) -> list[Conversation]:
        assert node.conv is not None
        found, ids, stack = [node.conv], {node.id}, [node]
        while stack:
            for kid in stack.pop().children or ():
                conv = kid.conv
                if conv is None or kid.id in ids or conv.parent not in ids:
                    continue
                if is_alternative(conv):
                    ids.add(kid.id)
                    found.append(conv)
                    stack.append(kid)
        return found

    def _node(self, index: AnyIndex) -> Node | None:
        if not index.isValid():
            return self._root
        return self._nodes.get(index.internalId())

    def _index_of_node(self, node: Node) -> QModelIndex:
        if node is self._root:
            return QModelIndex()
        return self.createIndex(node.row, 0, node.key)

    # -- Qt model interface -------------------------------------------------------------
    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        if column == 0 and not parent.isValid():  # a top-level row (the view asks often)
            top = self._root.children
            if top is not None and 0 <= row < len(top):
                return self.createIndex(row, 0, top[row].key)
        node = self._node(parent)
        if node is None or column != 0 or row < 0:
            return QModelIndex()
        kids = self._children_of(node)
        if row >= len(kids):
            return QModelIndex()
        return self.createIndex(row, 0, kids[row].key)

    def parent(self, child: Any = None) -> Any:
        if child is None:  # QObject.parent()
            return super().parent()
        node = self._nodes.get(child.internalId()) if child.isValid() else None
        if node is None or node.parent is None or node.parent is self._root:
            return QModelIndex()
        return self._index_of_node(node.parent)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        node = self._node(parent)
        return 0 if node is None else len(self._children_of(node))

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 1

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        node = self._nodes.get(index.internalId())
        return _LEAF_FLAGS if node is not None and node.children == [] else _ROW_FLAGS

    def mimeTypes(self) -> list[str]:
        return [CONVERSATIONS_MIME]

    def mimeData(self, indexes: Any) -> QMimeData:
        """The dragged rows' conversations (each once, in the list's order)."""
        ids = [c.id for c in (self.conversation(i) for i in indexes) if c is not None]
        return conversations_mime(list(dict.fromkeys(ids)))

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self._node(index)
        if node is None or node.conv is None:
            return None
        if role == HeaderRole:
            return self._header(node)
        if role == DetailRole:
            return self._detail(node)
        if role == VersionsRole:
            return self.versions(node)
        return row_value(node.conv, role, self._clock(), node.conv.id in self._streaming)

    def header_at(self, index: AnyIndex) -> str | None:
        """``data(index, HeaderRole)`` without the trip through Qt (the delegate's size
        hints ask it of every row at each layout: the short path, no other calls when the
        groups are known). An invalid index's id is the root's: no header."""
        node = self._nodes.get(index.internalId())
        if node is None or node.parent is not self._root:
            return None
        groups, conv, row = self._groups, node.conv, node.row
        now = self._clock()
        mine = groups.get(node.key)
        if mine is None or mine[0] is not conv or not self._day[0] <= now < self._day[1]:
            return self._header(node)
        if row == 0:
            return mine[1]
        above = self._root.children[row - 1]  # type: ignore[index]
        theirs = groups.get(above.key)
        if theirs is None or theirs[0] is not above.conv:
            return self._header(node)
        return None if theirs[1] == mine[1] else mine[1]

    # -- group headers ----------------------------------------------------------------------
    def _group(self, node: Node, now: float) -> str:
        """``node``'s group, computed once per conversation value and day (painting asks
        for it twice per row: its own and the row above's)."""
        assert node.conv is not None
        cached = self._groups.get(node.key)
        if cached is not None and cached[0] is node.conv:
            return cached[1]
        group = group_of(node.conv, now)
        self._groups[node.key] = (node.conv, group)
        return group

    def _today(self) -> float:
        """Now; the cached groups and dates are dropped when the day has changed."""
        now = self._clock()
        if not self._day[0] <= now < self._day[1]:
            self._groups.clear()
            self._details.clear()
            self._day = day_bounds(now)
        return now

    def _detail(self, node: Node) -> str:
        assert node.conv is not None
        now = self._today()
        cached = self._details.get(node.key)
        if cached is not None and cached[0] is node.conv:
            return cached[1]
        text = detail_of(node.conv, now)
        self._details[node.key] = (node.conv, text)
        return text

    def _header(self, node: Node) -> str | None:
        """The header above a top-level row that starts a group (forks have none)."""
        if node.parent is not self._root:
            return None
        now = self._today()
        group = self._group(node, now)
        if node.row == 0:
            return group
        above = self._top[node.row - 1]
        return None if self._group(above, now) == group else group

    def _headers_changed(self, row: int) -> None:
        """Rows ``row`` and ``row + 1`` at the top level may start (or stop starting) a
        group after a change there: their header and height are asked for again."""
        kids = self._top
        for at in (row, row + 1):
            if 0 <= at < len(kids):
                index = self._index_of_node(kids[at])
                self.dataChanged.emit(index, index, [])

    # -- lookups ---------------------------------------------------------------------------
    def conversation(self, index: AnyIndex) -> Conversation | None:
        node = self._node(index) if index.isValid() else None
        return node.conv if node is not None else None

    def index_of(self, conv_id: str) -> QModelIndex:
        """The row of a loaded conversation (invalid when it is not loaded)."""
        node = self._by_id.get(conv_id)
        return self._index_of_node(node) if node is not None else QModelIndex()

    # -- streaming badge, times ---------------------------------------------------------
    def set_streaming(self, conv_id: str, streaming: bool) -> None:
        if streaming:
            self._streaming.add(conv_id)
        else:
            self._streaming.discard(conv_id)
        self._changed(self._by_id.get(conv_id))

    def is_streaming(self, conv_id: str) -> bool:
        return conv_id in self._streaming

    def _changed(self, node: Node | None) -> None:
        if node is not None:
            index = self._index_of_node(node)
            self.dataChanged.emit(index, index, [])

    def refresh_times(self) -> None:
        """Repaint every loaded row (dates age; after midnight the groups change too)."""
        for node in [self._root, *self._by_id.values()]:
            if node.children:
                first = self._index_of_node(node.children[0])
                last = self._index_of_node(node.children[-1])
                self.dataChanged.emit(first, last, [])

    # -- row operations ------------------------------------------------------------------
    def _append_top(self, convs: list[Conversation]) -> None:
        kids = self._top
        first = len(kids)
        self.beginInsertRows(QModelIndex(), first, first + len(convs) - 1)
        for conv in convs:
            kids.append(self._make(conv, self._root))
        renumber(kids, first)
        self.endInsertRows()

    def _insert_top(self, conv: Conversation) -> None:
        """Insert a top-level row at its place in the newest-first order."""
        kids = self._top
        key = place_key(conv)
        row = next((k.row for k in kids if k.sort_key < key), len(kids))
        self.beginInsertRows(QModelIndex(), row, row)
        kids.insert(row, self._make(conv, self._root))
        renumber(kids, row)
        self.endInsertRows()
        self._headers_changed(row)

    def _move_to_place(self, node: Node) -> None:
        """Move a top-level row whose time changed to its place in the order."""
        kids = self._top
        key = node.sort_key
        others = (k for k in kids if k is not node)
        target = next((i for i, k in enumerate(others) if k.sort_key < key), len(kids) - 1)
        source = node.row
        if target == source:
            return
        destination = target if target < source else target + 1
        self.beginMoveRows(QModelIndex(), source, source, QModelIndex(), destination)
        kids.insert(target, kids.pop(source))
        renumber(kids, min(source, target))
        self.endMoveRows()
        self._headers_changed(source)
        self._headers_changed(target)

    def _detach(self, node: Node) -> None:
        parent = node.parent
        assert parent is not None and parent.children is not None
        row = node.row
        self.beginRemoveRows(self._index_of_node(parent), row, row)
        del parent.children[row]
        renumber(parent.children, row)
        self._forget(node)
        self.endRemoveRows()
        if parent is self._root:
            self._headers_changed(row)

    def _sync(self, parent: Node, convs: list[Conversation]) -> bool:
        """Make ``parent``'s rows show ``convs`` in order by removing, moving and
        inserting rows; False when it gave up because too many rows moved."""
        kids = parent.children
        assert kids is not None
        parent_index = self._index_of_node(parent)
        wanted = {c.id for c in convs}
        end = len(kids) - 1
        while end >= 0:  # removals, bottom up, in contiguous runs
            if kids[end].id in wanted:
                end -= 1
                continue
            start = end
            while start > 0 and kids[start - 1].id not in wanted:
                start -= 1
            self.beginRemoveRows(parent_index, start, end)
            for gone in kids[start : end + 1]:
                self._forget(gone)
            del kids[start : end + 1]
            renumber(kids, start)
            self.endRemoveRows()
            end = start - 1
        moves = 0
        for target, conv in enumerate(convs):
            if target < len(kids) and kids[target].id == conv.id:
                kids[target].conv = conv
                continue
            node = self._by_id.get(conv.id)
            if node is not None and node.parent is parent:
                moves += 1
                if moves > MAX_MOVES:
                    return False
                source = node.row
                self.beginMoveRows(parent_index, source, source, parent_index, target)
                kids.insert(target, kids.pop(source))
                renumber(kids, target)
                self.endMoveRows()
            else:
                if node is not None:
                    self._detach(node)  # it moves here from another parent
                self.beginInsertRows(parent_index, target, target)
                node = self._make(conv, parent)
                kids.insert(target, node)
                renumber(kids, target)
                self.endInsertRows()
            node.conv = conv
        if kids:
            first, last = self._index_of_node(kids[0]), self._index_of_node(kids[-1])
            self.dataChanged.emit(first, last, [])
            self._load_versions(kids)
        if parent is not self._root:
            self._changed(parent)  # its count of versions may have changed
        return True

    def _reset_top(self, convs: list[Conversation]) -> None:
        self.beginResetModel()
        self._clear_nodes()
        self._top.extend(self._make(c, self._root) for c in convs)
        renumber(self._top)
        self.endResetModel()
