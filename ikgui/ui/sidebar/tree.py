"""The sidebar's conversations as a flat list of rows over a tree of cached ``Conversation``
nodes: each top-level conversation, preceded by its group's header when it starts one
(Pinned, Today, Yesterday...), followed by its forks when it is expanded (and theirs, when
they are). :class:`ikgui.ui.sidebar.conversation_model.ConversationListModel` fills it
from the store.

Why flat, and why a ``QStringListModel`` (issue 26): a view lays out every row it holds
whenever a row is added, moved or removed (a send moves its row to the top; a page
adds rows). With a Python model each row costs Python calls (``rowCount`` through
``index``, ``flags``...): 10,000 rows took 120–380 ms. Here the rows' count and indexes are
the C++ string list's (its strings stay empty), every row is as tall as the others (a
header is a row of its own, as tall as a conversation's), so the view lays 10,000 rows
out in about a millisecond and asks Python only for the rows it paints. ``_rows`` holds
what each row shows; it changes in the same step as the C++ list (at the model's own
``rowsInserted``/``rowsRemoved``/``rowsMoved``/``modelReset``, connected before any view's):
a view reading a row while it hears of a change reads the row as it is.

Expansion belongs to the model (a list view has none): :meth:`expand` inserts a row's
shown subtree below it, :meth:`collapse` removes it. Row operations keep the view's
selection, current row and scroll position: insert, remove, move and :meth:`_sync`
(turn a list of rows into a new list with the fewest changes).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QStringListModel,
    Qt,
)

from ikgui.domain.events import Conversation
from ikgui.domain.text.times import day_bounds
from ikgui.ui.sidebar.folders import CONVERSATIONS_MIME, conversations_mime
from ikgui.ui.sidebar.node import GAP as GAP
from ikgui.ui.sidebar.node import MAX_INDENT as MAX_INDENT
from ikgui.ui.sidebar.node import Gap, Node, Row, renumber
from ikgui.ui.sidebar.rows import (
    DepthRole,
    DetailRole,
    ExpandedRole,
    GapRole,
    HeaderRole,
    VersionsRole,
    detail_of,
    group_of,
    is_alternative,
    place_key,
    row_value,
)

AnyIndex = QModelIndex | QPersistentModelIndex
#: More moves or removals than this in one sync and the caller resets instead.
MAX_MOVES = 200
#: Every conversation row's flags.
_ROW_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled
    | Qt.ItemFlag.ItemIsSelectable
    | Qt.ItemFlag.ItemIsEditable
    | Qt.ItemFlag.ItemIsDragEnabled  # onto a folder: tagged with it (SPEC §15)
)
#: What the gap says (and a screen reader reads) while the rows it stands for are read.
GAP_TEXT = "Loading more conversations…"


class ConversationTree(QStringListModel):
    """The rows and their operations; subclasses say how children are loaded."""

    def __init__(
        self, parent: QObject | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._streaming: set[str] = set()
        self._keys = itertools.count(1)
        self._root = Node(0, None, None)
        self._rows: list[Row] = []
        #: What ``_rows`` becomes at the C++ list's change being announced.
        self._pending: Callable[[], None] | None = None
        for signal in (self.rowsInserted, self.rowsRemoved, self.rowsMoved, self.modelReset):
            signal.connect(self._apply_pending)
        self._clear_nodes()

    def _clear_nodes(self) -> None:
        for node in getattr(self, "_nodes", {}).values():
            _unlink(node)  # (the pages read are kept out of the collector: no cycles left)
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

    def _in_tail(self, conv: Conversation) -> bool:
        """Whether a top-level ``conv`` belongs below the gap (with the pages read from
        the oldest end); none without a gap."""
        return False

    def _tail_gone(self) -> None:
        """The last row below the gap left: the gap was removed (the pages read from the
        oldest end are forgotten)."""

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
        node = self._node(index)
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
        _unlink(node)

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

    def _family(self, node: Node) -> Node:
        """The node an alternative's versions are folded into: the nearest ancestor that
        is not an alternative itself (``node`` for any other node)."""
        while (
            node.conv is not None
            and is_alternative(node.conv)
            and node.parent is not None
            and node.parent is not self._root
        ):
            node = node.parent
        return node

    def family_of(self, index: AnyIndex) -> QModelIndex:
        """The row an alternative's versions are folded into (the row's own index for
        any other row)."""
        node = self._node(index)
        return self._index_of_node(self._family(node)) if node is not None else QModelIndex()

    def members(self, index: AnyIndex) -> list[Conversation]:
        """The versions a row stands for (itself first, then its alternatives as loaded)."""
        node = self._node(index)
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
        """The conversation node of a row (``None`` for a header, the gap, an invalid
        index)."""
        item = self._item(index)
        return item if isinstance(item, Node) else None

    def _item(self, index: AnyIndex) -> Row | None:
        if not index.isValid() or index.model() is not self:
            return None
        row = index.row()
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def _row_of(self, node: Node) -> int:
        """The row showing ``node`` (-1: it is not shown)."""
        try:
            return self._rows.index(node)
        except ValueError:
            return -1

    def _index_of_node(self, node: Node) -> QModelIndex:
        row = self._row_of(node) if node is not self._root else -1
        return self.index(row, 0) if row >= 0 else QModelIndex()

    def _shown(self, node: Node) -> bool:
        """Whether ``node`` has a row: every node above it is expanded."""
        above = node.parent
        while above is not None and above is not self._root:
            if not above.expanded:
                return False
            above = above.parent
        return above is self._root

    def _block(self, node: Node) -> list[Row]:
        """``node``'s row and the rows shown below it (its subtree, as expanded)."""
        rows: list[Row] = [node]
        if node.expanded and node.children:
            for kid in node.children:
                rows.extend(self._block(kid))
        return rows

    # -- Qt model interface -------------------------------------------------------------
    # (rowCount and index are the C++ string list's: never a Python call per row)
    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        # A header or the gap is neither selectable nor enabled: the keys pass over it.
        return _ROW_FLAGS if self._node(index) is not None else Qt.ItemFlag.NoItemFlags

    def setData(self, index: AnyIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        return False  # a rename is an intent (the delegate's ``rename_committed``)

    def mimeTypes(self) -> list[str]:
        return [CONVERSATIONS_MIME]

    def mimeData(self, indexes: Any) -> QMimeData:
        """The dragged rows' conversations (each once, in the list's order)."""
        ids = [c.id for c in (self.conversation(i) for i in indexes) if c is not None]
        return conversations_mime(list(dict.fromkeys(ids)))

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.IgnoreAction  # the list is only dragged from

    def supportedDragActions(self) -> Qt.DropAction:
        # Filing a conversation in a folder tags it: a copy (it stays in the list).
        return Qt.DropAction.CopyAction

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self._item(index)
        if item is None:
            return None
        if not isinstance(item, Node):
            return _other_row_value(item, role)
        if item.conv is None:
            return None
        if role == DetailRole:
            return self._detail(item)
        if role == VersionsRole:
            return self.versions(item)
        if role == DepthRole:
            return item.depth
        if role == ExpandedRole:
            return item.expanded if self._children_of(item) else None
        if role in (HeaderRole, GapRole):
            return None
        return row_value(item.conv, role, self._clock(), item.conv.id in self._streaming)

    # -- group headers ----------------------------------------------------------------------
    def _group(self, node: Node, now: float) -> str:
        """``node``'s group, computed once per conversation value and day."""
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
        text = detail_of(node.conv, now, None, None)
        self._details[node.key] = (node.conv, text)
        return text

    def _header_wanted(self, at: int, row: int) -> str | None:
        """The header top-level node ``at`` (shown at ``row``, below any header it has)
        must have: its group's when it starts one (the first row, the first below the
        gap, or another group than the node above's)."""
        top = self._top
        now = self._today()
        group = self._group(top[at], now)
        above = row - 1
        if above >= 0 and isinstance(self._rows[above], str):
            above -= 1
        if at == 0 or (above >= 0 and self._rows[above] is GAP):
            return group
        return None if self._group(top[at - 1], now) == group else group

    def _fix_header(self, at: int) -> None:
        """Give top-level node ``at`` the header it must have (adding, changing or
        removing the row above it)."""
        if not 0 <= at < len(self._top):
            return
        row = self._row_of(self._top[at])
        if row >= 0:
            self._settle_header(at, row)

    def _settle_header(self, at: int, row: int) -> int:
        """:meth:`_fix_header` of node ``at`` shown at ``row``; returns its row after."""
        wanted = self._header_wanted(at, row)
        has = row > 0 and isinstance(self._rows[row - 1], str)
        if wanted is None and has:
            self._remove_rows(row - 1, 1)
            return row - 1
        if wanted is not None and not has:
            self._insert_rows(row, [wanted])
            return row + 1
        if wanted is not None and self._rows[row - 1] != wanted:
            self._set_row(row - 1, wanted)
        return row

    def _fix_headers(self) -> None:
        """Every header as it must be, in one pass (after a reload, at midnight): stray
        headers (two in a row, one at the end) are removed."""
        row = 0
        for at, node in enumerate(self._top):
            probe = row
            while probe < len(self._rows) and not isinstance(self._rows[probe], Node):
                probe += 1
            if probe >= len(self._rows) or self._rows[probe] is not node:
                probe = self._row_of(node)  # (not where expected: looked up)
                if probe < 0:
                    continue
            else:
                for stray in reversed(range(row, probe - 1)):
                    if isinstance(self._rows[stray], str):
                        self._remove_rows(stray, 1)
                        probe -= 1
            row = self._settle_header(at, probe) + len(self._block(node))
        for stray in reversed(range(row, len(self._rows))):
            if isinstance(self._rows[stray], str):
                self._remove_rows(stray, 1)

    def _drop_header(self, node: Node) -> None:
        """Remove the header above top-level ``node``'s row, if it has one."""
        row = self._row_of(node)
        if row > 0 and isinstance(self._rows[row - 1], str):
            self._remove_rows(row - 1, 1)

    def _block_start(self, node: Node) -> int:
        """The first row of a top-level ``node``: its header's, if it has one."""
        row = self._row_of(node)
        return row - 1 if row > 0 and isinstance(self._rows[row - 1], str) else row

    def _slot(self, parent: Node, at: int, tail: bool) -> int:
        """The row where a node placed at ``at`` among ``parent``'s children starts (its
        siblings as they are now; ``tail``: a top-level node below the gap)."""
        kids = parent.children
        assert kids is not None
        if at < len(kids):
            start = self._block_start(kids[at]) if parent is self._root else self._row_of(kids[at])
            if parent is self._root and start > 0 and self._rows[start - 1] is GAP and not tail:
                return start - 1  # the last row above the gap
            return start
        if parent is self._root:
            gap = self._gap_row()
            return gap if gap >= 0 and not tail else len(self._rows)
        if not kids:
            return self._row_of(parent) + 1
        last = kids[-1]
        return self._row_of(last) + len(self._block(last))

    def _gap_row(self) -> int:
        try:
            return self._rows.index(GAP)
        except ValueError:
            return -1

    # -- rows of the C++ list --------------------------------------------------------------
    def _apply_pending(self, *_args: Any) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending()

    def _insert_rows(self, at: int, items: list[Row]) -> None:
        if not items:
            return

        def apply() -> None:
            self._rows[at:at] = items

        self._pending = apply
        done = self.insertRows(at, len(items))
        assert done and self._pending is None, (at, len(items), len(self._rows))

    def _remove_rows(self, at: int, count: int) -> None:
        if count <= 0:
            return

        def apply() -> None:
            del self._rows[at : at + count]

        self._pending = apply
        done = self.removeRows(at, count)
        assert done and self._pending is None, (at, count, len(self._rows))

    def _move_rows(self, at: int, count: int, to: int) -> None:
        """Move ``count`` rows from ``at`` to before row ``to`` (numbered before the move)."""
        if count <= 0 or at <= to <= at + count:
            return

        def apply() -> None:
            block = self._rows[at : at + count]
            del self._rows[at : at + count]
            where = to if to < at else to - count
            self._rows[where:where] = block

        self._pending = apply
        done = self.moveRows(QModelIndex(), at, count, QModelIndex(), to)
        assert done and self._pending is None, (at, count, to, len(self._rows))

    def _set_row(self, at: int, item: Row) -> None:
        self._rows[at] = item
        index = self.index(at, 0)
        self.dataChanged.emit(index, index, [])

    def _reset_rows(self, rows: list[Row]) -> None:
        def apply() -> None:
            self._rows = rows

        self._pending = apply
        self.setStringList([""] * len(rows))
        self._apply_pending()  # (no reset is announced when both lists are empty)

    def _layout(self, tail_from: int | None = None) -> list[Row]:
        """Every row as the nodes say (a reset); ``tail_from``: the first top-level node
        below the gap, if there is one."""
        top = self._top
        if tail_from is None:
            return self._headed(top, None)
        return [*self._headed(top[:tail_from], None), GAP, *self._headed(top[tail_from:], None)]

    def _headed(self, nodes: list[Node], group: str | None) -> list[Row]:
        """The rows of top-level ``nodes`` (each with what is shown below it), a header
        before each that starts a group (``group``: the one of the row above them)."""
        rows: list[Row] = []
        now = self._today()
        for node in nodes:
            mine = self._group(node, now)
            if mine != group:
                rows.append(mine)
                group = mine
            rows.extend(self._block(node))
        return rows

    # -- expansion --------------------------------------------------------------------------
    def is_expanded(self, index: AnyIndex) -> bool:
        node = self._node(index)
        return node is not None and node.expanded

    def has_children(self, index: AnyIndex) -> bool:
        """Whether the row has forks or versions under it (its arrow)."""
        node = self._node(index)
        return node is not None and bool(self._children_of(node))

    def expand(self, index: AnyIndex) -> None:
        node = self._node(index)
        if node is not None:
            self._expand(node)

    def collapse(self, index: AnyIndex) -> None:
        node = self._node(index)
        if node is None or not node.expanded:
            return
        row = self._row_of(node)
        shown = len(self._block(node)) - 1
        node.expanded = False
        if row >= 0:
            self._remove_rows(row + 1, shown)
            self._changed(node)

    def parent_row(self, index: AnyIndex) -> QModelIndex:
        """The row a nested row is shown under (invalid for a top-level row)."""
        node = self._node(index)
        if node is None or node.parent is None or node.parent is self._root:
            return QModelIndex()
        return self._index_of_node(node.parent)

    def expand_all(self) -> None:
        """Expand every row, reading every fork (tests, screenshots)."""
        stack = list(reversed(self._top))
        while stack:
            node = stack.pop()
            self._expand(node)
            stack.extend(reversed(node.children or ()))

    def _expand(self, node: Node) -> None:
        if node.expanded or not self._children_of(node):
            return
        node.expanded = True
        row = self._row_of(node)
        if row >= 0:
            self._insert_rows(row + 1, self._block(node)[1:])
            self._changed(node)

    def _expand_above(self, node: Node) -> None:
        """Expand every node above ``node``, so that it has a row."""
        chain = []
        above = node.parent
        while above is not None and above is not self._root:
            chain.append(above)
            above = above.parent
        for ancestor in reversed(chain):
            self._expand(ancestor)

    # -- lookups ---------------------------------------------------------------------------
    def conversation(self, index: AnyIndex) -> Conversation | None:
        node = self._node(index)
        return node.conv if node is not None else None

    def index_of(self, conv_id: str) -> QModelIndex:
        """The row of a loaded, shown conversation (invalid otherwise)."""
        node = self._by_id.get(conv_id)
        return self._index_of_node(node) if node is not None else QModelIndex()

    def loaded(self, conv_id: str) -> bool:
        return conv_id in self._by_id

    def conversations(self) -> list[Conversation]:
        """The conversations of the rows, in the list's order (tests, benchmarks)."""
        return [r.conv for r in self._rows if isinstance(r, Node) and r.conv is not None]

    def forks_of(self, conv_id: str) -> list[Conversation]:
        """The conversations nested under ``conv_id``'s row, loaded if need be (tests)."""
        node = self._by_id.get(conv_id)
        return [k.conv for k in self._children_of(node) if k.conv] if node is not None else []

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
            if index.isValid():
                self.dataChanged.emit(index, index, [])

    def refresh_times(self) -> None:
        """Repaint every row (dates age; after midnight the groups change too)."""
        day = self._day
        self._today()
        if self._day != day:
            self._fix_headers()
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 0), [])

    # -- row operations ------------------------------------------------------------------
    def _append_top(self, convs: list[Conversation], *, tail: bool = False) -> None:
        """Add top-level rows after the last one above the gap (or below it: ``tail``,
        the rows read from the oldest end, after the gap, before those already there)."""
        if not convs:
            return
        kids = self._top
        gap = self._gap_row()
        first = self._head_count(gap)
        end = gap if gap >= 0 else len(self._rows)  # (the last row above the gap)
        at = gap + 1 if tail else end
        nodes = [self._make(conv, self._root) for conv in convs]
        kids[first:first] = nodes
        renumber(kids, first)
        above = self._group(kids[first - 1], self._today()) if first and not tail else None
        self._insert_rows(at, self._headed(nodes, above))
        self._fix_header(first + len(nodes))

    def _head_count(self, gap: int) -> int:
        """How many top-level nodes are above the gap (row ``gap``; all without one)."""
        if gap < 0:
            return len(self._top)
        for item in self._rows[gap + 1 : gap + 3]:
            if isinstance(item, Node):
                return item.row
        return len(self._top)

    def _place(self, key: tuple[bool, float, str], skip: Node | None = None) -> int:
        """Where a top-level row with ``key`` goes in the newest-first order (``skip``:
        a node to leave out, the one being moved; the others are in order)."""
        kids = self._top
        skipped = skip.row if skip is not None else len(kids)
        low, high = 0, len(kids) - (skip is not None)
        while low < high:
            mid = (low + high) // 2
            if kids[mid if mid < skipped else mid + 1].sort_key < key:
                high = mid
            else:
                low = mid + 1
        return low

    def _insert_top(self, conv: Conversation) -> None:
        """Insert a top-level row at its place in the newest-first order."""
        self._insert_child(self._root, conv, self._place(place_key(conv)))

    def _insert_child(self, parent: Node, conv: Conversation, at: int) -> Node:
        kids = parent.children
        assert kids is not None
        tail = parent is self._root and self._in_tail(conv)
        shown = parent is self._root or (parent.expanded and self._shown(parent))
        row = self._slot(parent, at, tail) if shown else -1
        node = self._make(conv, parent)
        kids.insert(at, node)
        renumber(kids, at)
        if shown:
            self._insert_rows(row, [node])
        if parent is self._root:
            self._fix_header(at)
            self._fix_header(at + 1)
        else:
            self._changed(parent)  # its arrow, its count of versions
        return node

    def _move_to_place(self, node: Node) -> None:
        """Move a top-level row whose time changed to its place in the order."""
        source = node.row
        target = self._place(node.sort_key, skip=node)
        if target == source:
            self._fix_header(source)
            self._fix_header(source + 1)
            return
        self._move_child(self._root, node, target)

    def _move_child(self, parent: Node, node: Node, target: int) -> None:
        """Move ``node`` to ``target`` among its siblings (numbered without it)."""
        kids = parent.children
        assert kids is not None
        source = node.row
        after = kids[source + 1] if source + 1 < len(kids) else None
        shown = parent is self._root or (parent.expanded and self._shown(parent))
        if shown and parent is self._root:
            self._drop_header(node)
        row = self._row_of(node) if shown else -1
        count = len(self._block(node))
        kids.pop(source)
        tail = parent is self._root and self._in_tail(node.conv) if node.conv else False
        to = self._slot(parent, target, tail) if shown else -1
        kids.insert(target, node)
        renumber(kids, min(source, target), max(source, target) + 1)
        if shown:
            self._move_rows(row, count, to)
        if parent is self._root:
            for at in (target, target + 1, after.row if after is not None else -1):
                self._fix_header(at)

    def _detach(self, node: Node, *, keep_gap: bool = False) -> None:
        """Remove ``node`` and its rows; the gap goes with the last row below it (unless
        ``keep_gap``: a sync puts rows back below it)."""
        parent = node.parent
        assert parent is not None and parent.children is not None
        at = node.row
        shown = self._shown(node)
        if shown and parent is self._root:
            self._drop_header(node)
        row = self._row_of(node) if shown else -1
        count = len(self._block(node))
        del parent.children[at]
        renumber(parent.children, at)
        if row >= 0:
            self._remove_rows(row, count)
        self._forget(node)
        if parent is self._root:
            self._fix_header(at)
            if not keep_gap:
                self._drop_empty_gap()
        else:
            self._changed(parent)

    def _drop_empty_gap(self) -> None:
        """The gap with no row below it stands for nothing: it goes."""
        if self._rows and self._rows[-1] is GAP:
            self._remove_rows(len(self._rows) - 1, 1)
            self._tail_gone()

    def _sync(self, parent: Node, convs: list[Conversation]) -> bool:
        """Make ``parent``'s rows show ``convs`` in order by removing, moving and
        inserting rows; False when it gave up because too many rows changed."""
        kids = parent.children
        assert kids is not None
        wanted = {c.id for c in convs}
        gone = [k for k in kids if k.id not in wanted]
        if len(gone) > MAX_MOVES:
            return False
        for gone_node in gone:
            self._detach(gone_node, keep_gap=True)
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
                node.conv = conv
                self._move_child(parent, node, target)
            else:
                if node is not None:
                    self._detach(node, keep_gap=True)  # it moves here from another parent
                node = self._insert_child(parent, conv, target)
            node.conv = conv
        if kids:
            self._load_versions(kids)
            first, last = self._index_of_node(kids[0]), self._index_of_node(kids[-1])
            if first.isValid() and last.isValid():
                self.dataChanged.emit(first, last, [])
        if parent is not self._root:
            self._changed(parent)  # its count of versions may have changed
        return True

    def _reset_top(self, convs: list[Conversation], tail_from: int | None = None) -> None:
        self._clear_nodes()
        self._top.extend(self._make(c, self._root) for c in convs)
        renumber(self._top)
        self._reset_rows(self._layout(tail_from))


def _unlink(node: Node) -> None:
    """Break a dropped node's links to its parent and children (a node is kept out of
    the collector once its page is read: reference counting must free it)."""
    if node.depth >= 0:
        node.parent = None
        node.children = None


def _other_row_value(item: str | Gap, role: int) -> Any:
    """What a header (its text) or the gap says."""
    text = GAP_TEXT if isinstance(item, Gap) else item
    if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
        return text
    if role == HeaderRole:
        return item if isinstance(item, str) else None
    if role == GapRole:
        return isinstance(item, Gap)
    return None
