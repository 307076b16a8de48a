"""The sidebar's conversations: roots newest first, forks nested under their parents,
loaded lazily page by page and updated in place (shown as the flat list of
:mod:`ikgui.ui.sidebar.tree`).

Which rows are top-level: the model shows every conversation that matches its filter
(in the Trash or not, and every tag chosen, if any). A matching conversation is nested
under its parent when the parent matches the filter too; otherwise (a root, or a fork
whose parent is in the Trash, lacks the tag, or was deleted) it is a top-level row.
Top-level rows come from ``store.list_conversations`` by keyset pages (newest first by
``(updated_at, id)``; ``PAGE_SIZE`` conversations read per ``fetchMore``, more once many
are loaded, up to ``MAX_PAGE``), so a page adds fewer rows when some of its
conversations are nested. Outside the Trash, the pinned conversations (few) are read whole
before the first page and listed first; the pages then read only the unpinned ones. Each
top-level row belongs to a group (Pinned, Today, Yesterday... see ``rows.group_of``),
whose header row stands above the group's first row.

End reads the last page from the oldest end (:meth:`fetch_tail`): the rows read then
stand below a gap row, which stands for the conversations not read yet; the view
asks (:meth:`fill_gap`) for a page from either side of the gap when it shows it, and the
gap closes when the two sides meet.

A node's children come from the store (oldest first) the first time someone asks about
them — the delegate asks whether a row it paints has any (its arrow); the forks of a
page's rows are read with the page, in one query (``ForkPrefetch``).

Rows are cached ``Conversation`` values: ``data()`` never queries the store. ``reload()``
re-reads what is loaded and applies the differences as row insertions, removals, moves
and ``dataChanged`` — a model reset only when very many rows changed places.

The item roles (``ConversationRole``, ``StreamingRole``...) are defined in
:mod:`ikgui.ui.sidebar.rows` and re-exported here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt

from ikgui.domain.events import Conversation
from ikgui.domain.ports import Store
from ikgui.ui.loop import keep_long_lived
from ikgui.ui.sidebar.branch_text import InheritedCounts, branch_of_text
from ikgui.ui.sidebar.context_counts import ContextCounts
from ikgui.ui.sidebar.fork_prefetch import ForkPrefetch
from ikgui.ui.sidebar.node import Node
from ikgui.ui.sidebar.rows import AgentRole as AgentRole
from ikgui.ui.sidebar.rows import ClosedRole as ClosedRole
from ikgui.ui.sidebar.rows import ConversationRole as ConversationRole
from ikgui.ui.sidebar.rows import DetailRole as DetailRole
from ikgui.ui.sidebar.rows import EventIdRole as EventIdRole
from ikgui.ui.sidebar.rows import GroupRole as GroupRole
from ikgui.ui.sidebar.rows import HeaderRole as HeaderRole
from ikgui.ui.sidebar.rows import IdRole as IdRole
from ikgui.ui.sidebar.rows import MessageCountRole as MessageCountRole
from ikgui.ui.sidebar.rows import PinnedRole as PinnedRole
from ikgui.ui.sidebar.rows import QueryRole as QueryRole
from ikgui.ui.sidebar.rows import RelativeTimeRole as RelativeTimeRole
from ikgui.ui.sidebar.rows import SnippetRole as SnippetRole
from ikgui.ui.sidebar.rows import StreamingRole as StreamingRole
from ikgui.ui.sidebar.rows import TagsRole as TagsRole
from ikgui.ui.sidebar.rows import TitleRole as TitleRole
from ikgui.ui.sidebar.rows import TrashedRole as TrashedRole
from ikgui.ui.sidebar.rows import UpdatedRole as UpdatedRole
from ikgui.ui.sidebar.rows import row_value, sort_key, versions_said
from ikgui.ui.sidebar.tree import GAP, MAX_INDENT, AnyIndex, ConversationTree

PAGE_SIZE = 100
#: The most conversations one page reads (a page's rows are made in one step of the
#: event loop: within a frame's budget, 16 ms, with the rows painted).
MAX_PAGE = 120
#: The roles whose text says how many messages are in the context.
_COUNTED_ROLES = frozenset(
    {DetailRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole}
)
#: A fork chain longer than this is treated as broken (a cycle) when revealing a row.
MAX_DEPTH = 10_000


class ConversationListModel(ConversationTree):
    """One column; each row a conversation (see the module docstring for the tree)."""

    def __init__(
        self,
        store: Store,
        parent: QObject | None = None,
        *,
        clock: Callable[[], float] = time.time,
        page_size: int = PAGE_SIZE,
        first_page: int | None = None,
    ) -> None:
        super().__init__(parent, clock=clock)
        self._store = store
        self._page_size_first = page_size
        #: The size of the first page read (a window reads what its first paint shows).
        self._first_page = first_page
        #: While true the view gets no page after the first (a window: until its first
        #: paint; laying out the list before it asks for pages it does not show).
        self.pages_held = first_page is not None
        self._tags: tuple[str, ...] = ()
        self._trashed = False
        #: True while the model announces a page or a reset: a slot on those signals
        #: (Qt's model tester, a view) may ask for more rows, which must wait until
        #: every observer has heard of the change.
        self._busy = False
        #: The rows' messages in context, read after they are painted.
        self._counts = ContextCounts(store, self._count_read, self)
        #: The messages each fork row carries from its ancestors, read the same way.
        self._inherited = InheritedCounts(store, self._count_read, self)
        #: The forks of the rows of the pages read, until the view asks for them.
        self._forks = ForkPrefetch(store)
        self._reset_listing()

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _COUNTED_ROLES:
            return super().data(index, role)
        node = self._node(index)
        if node is None or node.conv is None:
            return super().data(index, role)
        conv = node.conv
        streaming = conv.id in self._streaming
        inherited = self._inherited.of(conv)
        value = row_value(conv, role, self._clock(), streaming, self._counts.of(conv), inherited)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            versions = self.versions(node)
            said = f"{value}, {versions_said(versions)}" if versions else value
            return f"{said}, {self._nesting_said(node)}"
        if role != DetailRole:
            return value
        branch_of = self.branch_parent(index)
        return f"{branch_of_text(branch_of)} · {value}" if branch_of is not None else value

    def _nesting_said(self, node: Node) -> str:
        """Where the row is and what is under it, as a tree would say it (the list view
        tells a screen reader neither)."""
        said = f"level {node.depth + 1}"
        kids = self._children_of(node)
        if kids:
            state = "expanded" if node.expanded else "collapsed: Right shows them"
            said += f", {len(kids):,} {'row' if len(kids) == 1 else 'rows'} under it, {state}"
        return said

    def _count_read(self, conv_id: str) -> None:
        self._changed(self._by_id.get(conv_id))

    def _reset_listing(self) -> None:
        self._parents: dict[str, Conversation | None] = {}
        self._cursor: tuple[float, str] | None = None
        self._scanned = 0  # conversations read from the listing so far
        self._exhausted = False
        self._pins_read = False
        #: The newest conversation read from the oldest end (End), while a gap is shown.
        self._tail_cursor: tuple[float, str] | None = None
        self._tail_scanned = 0
        self._forks.clear()

    # -- filter ---------------------------------------------------------------------------
    @property
    def tags(self) -> tuple[str, ...]:
        """The tags a row must all have (none: every row), sorted."""
        return self._tags

    @property
    def trashed(self) -> bool:
        return self._trashed

    def set_filter(
        self, *, tag: str | None = None, tags: Sequence[str] = (), trashed: bool = False
    ) -> None:
        """Show the Trash or the live list, all conversations or those with every tag of
        ``tag`` and ``tags`` (resets; the caller fetches the first page)."""
        with self._announcing():
            chosen = ([tag] if tag is not None else []) + list(tags)
            self._tags, self._trashed = tuple(sorted(set(chosen))), trashed
            self._clear_nodes()
            self._reset_listing()
            self._reset_rows([])

    @contextmanager
    def _announcing(self) -> Iterator[None]:
        self._busy = True
        try:
            yield
        finally:
            self._busy = False

    def _matches(self, conv: Conversation) -> bool:
        if (conv.trashed_at is not None) != self._trashed:
            return False
        return all(t in conv.tags for t in self._tags)

    def _read_parents(self, convs: list[Conversation]) -> None:
        """The parents of ``convs`` that are neither loaded nor known yet, in one query
        (``_is_top`` then asks no more of the store)."""
        wanted = {c.parent for c in convs if c.parent is not None}
        wanted = {p for p in wanted if p not in self._by_id and p not in self._parents}
        if wanted:
            found = self._store.get_conversations(sorted(wanted))
            self._parents.update((p, found.get(p)) for p in wanted)

    def _lookup(self, conv_id: str) -> Conversation | None:
        node = self._by_id.get(conv_id)
        if node is not None:
            return node.conv
        if conv_id not in self._parents:
            self._parents[conv_id] = self._store.get_conversation(conv_id)
        return self._parents[conv_id]

    def _is_top(
        self, conv: Conversation, lookup: Callable[[str], Conversation | None] | None = None
    ) -> bool:
        if conv.parent is None:
            return True
        parent = (lookup or self._lookup)(conv.parent)
        return parent is None or not self._matches(parent)

    def _fresh_lookup(self, page: list[Conversation]) -> Callable[[str], Conversation | None]:
        """Parents as stored now (``reload``: a loaded row may be stale, e.g. a fork that
        another program moved to the Trash, whose own forks then become top rows)."""
        fresh: dict[str, Conversation | None] = {c.id: c for c in page}

        def lookup(conv_id: str) -> Conversation | None:
            if conv_id not in fresh:
                fresh[conv_id] = self._store.get_conversation(conv_id)
            return fresh[conv_id]

        return lookup

    def _load_children(self, conv_id: str) -> list[Conversation]:
        forks = self._forks.take(conv_id)
        if forks is None:
            forks = self._store.children(conv_id)
        return [c for c in forks if self._matches(c)]

    # -- lazy pages ------------------------------------------------------------------------
    def canFetchMore(self, parent: AnyIndex) -> bool:
        # (With a gap, the pages come from its sides, when the view shows it.)
        ready = self._may_read(parent) and self._tail_cursor is None
        return ready and not (self.pages_held and self._top)

    def _may_read(self, parent: AnyIndex) -> bool:
        return not parent.isValid() and not self._exhausted and not self._busy

    @property
    def gap(self) -> bool:
        """Whether a gap row stands between the newest pages and the oldest (End)."""
        return self._tail_cursor is not None

    @property
    def _unpinned(self) -> bool | None:
        """The pages' ``pinned`` filter: unpinned ones outside the Trash (the pins come
        first, read whole), everything in it."""
        return None if self._trashed else False

    def _pins(self) -> list[Conversation]:
        if self._trashed:
            return []
        return self._store.list_conversations(tags=self._tags, pinned=True)

    def fetchMore(self, parent: AnyIndex) -> None:
        if self.canFetchMore(parent):
            self._read_pages()

    def _page_size(self) -> int:
        # Pages grow with what is loaded (deep scrolling reads fewer queries), up to what
        # one step of the event loop makes rows of.
        return min(MAX_PAGE, max(self._page_size_first, self._scanned // 4))

    def _read_pages(self, whole: bool = False) -> None:
        """Read listing pages until at least one top-level row is added (or none are left);
        the pinned conversations before the first page. ``whole``: the rest in one page
        (one keyset query from the cursor, one insertion of rows)."""
        pins: list[Conversation] = []
        if not self._pins_read:
            self._pins_read = True
            pins = self._pins()
            self._read_parents(pins)
            pins = [c for c in pins if c.id not in self._by_id and self._is_top(c)]
        added: list[Conversation] = []
        while not added and not self._exhausted:
            size: int | None = self._page_size()
            size, self._first_page = (None if whole else self._first_page or size), None
            page = self._store.list_conversations(
                size,
                tags=self._tags,
                trashed=self._trashed,
                before=self._cursor,
                pinned=self._unpinned,
            )
            self._scanned += len(page)
            self._exhausted = size is None or len(page) < size
            met = self._tail_cursor is not None and any(
                sort_key(c) <= self._tail_cursor for c in page
            )
            if met:  # the pages met those read from the oldest end: the gap closes
                page = [c for c in page if sort_key(c) > self._tail_cursor]  # type: ignore[operator]
            if page:
                self._cursor = sort_key(page[-1])
            self._read_parents(page)
            added = [c for c in page if c.id not in self._by_id and self._is_top(c)]
            if met:
                self._close_gap(pins + added)
                return
        if pins or added:
            self._forks.read(c.id for c in pins + added)
            with self._announcing():
                self._add_page(pins + added)

    def _add_page(self, convs: list[Conversation], *, tail: bool = False) -> None:
        self._append_top(convs, tail=tail)
        keep_long_lived()

    def _close_gap(self, convs: list[Conversation], *, below: bool = False) -> None:
        """The last conversations between the two sides (``convs``, top-level, newest
        first) join them — after the rows above the gap, or (``below``) before the rows
        below it: the gap row goes and every conversation is read."""
        self._forks.read(c.id for c in convs)
        with self._announcing():
            self._add_page(convs, tail=below)
            gap = self._gap_row()
            if gap >= 0:
                self._remove_rows(gap, 1)
                self._fix_header(self._first_below(gap))
        self._exhausted = True
        self._tail_cursor = None

    def _first_below(self, row: int) -> int:
        """The top-level index of the first conversation row at ``row`` or below."""
        for item in self._rows[row : row + 2]:
            if item is not GAP and not isinstance(item, str):
                return item.row  # type: ignore[union-attr]
        return len(self._top)

    def fetch_all(self) -> None:
        """Load every page (benchmarks, tests)."""
        while self._may_read(QModelIndex()):
            self._read_pages()

    def fetch_tail(self) -> None:
        """End: read the last page from the oldest end, shown below a gap row (nothing
        when every page is read, or the last page is already; the rest when it is all
        that is left)."""
        if not self._may_read(QModelIndex()) or self._tail_cursor is not None:
            return
        if not self._pins_read:
            self._read_pages()  # (the pins and the first page come first)
            if not self._may_read(QModelIndex()):
                return
        size = self._page_size()
        page = self._store.list_conversations(
            size,
            tags=self._tags,
            trashed=self._trashed,
            before=self._cursor,
            pinned=self._unpinned,
            oldest_first=True,
        )
        page.reverse()
        if len(page) < size:  # the last page is all that is left: no gap
            self._scanned += len(page)
            self._take_rest(page)
            return
        self._read_parents(page)
        tops = [c for c in page if c.id not in self._by_id and self._is_top(c)]
        self._tail_cursor = sort_key(page[0])
        self._tail_scanned = len(page)
        self._forks.read(c.id for c in tops)
        with self._announcing():
            self._insert_rows(len(self._rows), [GAP])
            self._add_page(tops, tail=True)

    def _take_rest(self, page: list[Conversation]) -> None:
        """Everything left, read (newest first): added below the last row."""
        if page:
            self._cursor = sort_key(page[-1])
        self._exhausted = True
        self._read_parents(page)
        added = [c for c in page if c.id not in self._by_id and self._is_top(c)]
        if added:
            self._forks.read(c.id for c in added)
            with self._announcing():
                self._add_page(added)

    def fill_gap(self, *, from_below: bool) -> bool:
        """Read a page into the gap: below the rows above it, or (``from_below``) above
        the rows below it, older first. False when there is no gap."""
        if self._tail_cursor is None or self._busy:
            return False
        if not from_below:
            self._read_pages()
            return True
        size = self._page_size()
        page = self._store.list_conversations(
            size,
            tags=self._tags,
            trashed=self._trashed,
            after=self._tail_cursor,
            pinned=self._unpinned,
            oldest_first=True,
        )
        self._tail_scanned += len(page)
        cursor = self._cursor
        met = len(page) < size or (cursor is not None and any(sort_key(c) >= cursor for c in page))
        page = [c for c in page if cursor is None or sort_key(c) < cursor]
        page.reverse()
        self._read_parents(page)
        tops = [c for c in page if c.id not in self._by_id and self._is_top(c)]
        if met:
            self._scanned += len(page)
            self._close_gap(tops, below=True)
            return True
        if page:
            self._tail_cursor = sort_key(page[0])
        self._forks.read(c.id for c in tops)
        with self._announcing():
            self._add_page(tops, tail=True)
        return True

    def _in_tail(self, conv: Conversation) -> bool:
        if self._tail_cursor is None or (conv.pinned and not self._trashed):
            return False
        return sort_key(conv) <= self._tail_cursor

    def _tail_gone(self) -> None:
        self._tail_cursor = None

    # -- finding and changing rows ---------------------------------------------------------
    def reveal(self, conv_id: str, *, folded: bool = False) -> QModelIndex:
        """The row showing ``conv_id``, loading pages and parents' children and expanding
        the rows above it as needed; invalid when the conversation does not match the
        filter. ``folded``: an alternative (an edit, a retry) inside a collapsed family
        row is shown by that row (opening it grows no row: issue 25)."""
        node = self._find(conv_id)
        if node is None:
            return QModelIndex()
        shown = node
        if folded and self._family(node) is not node:
            family = self._family(node)
            while shown.parent is not None and shown.parent is not self._root:
                if shown is family or shown.parent.expanded:
                    break
                shown = shown.parent
        self._expand_above(shown)
        return self._index_of_node(shown)

    def _find(self, conv_id: str) -> Node | None:
        """The node of ``conv_id``, loading what it takes."""
        if conv_id in self._by_id:
            return self._by_id[conv_id]
        conv = self._store.get_conversation(conv_id)
        if conv is None or not self._matches(conv):
            return None
        chain = [conv]
        while not self._is_top(chain[-1]) and len(chain) < MAX_DEPTH:
            parent = self._lookup(chain[-1].parent or "")
            assert parent is not None  # _is_top is False only when the parent exists
            chain.append(parent)
        top = chain[-1]
        while top.id not in self._by_id and self._may_read(QModelIndex()):
            if self._pins_read and top.pinned and not self._trashed:
                break  # the pins are all read: it is new since the last look
            if self._cursor is not None and sort_key(top) > self._cursor:
                break  # within the loaded range: it is new since the last look
            if self._in_tail(top):
                break  # read from the oldest end: new since
            self._read_pages()
        if top.id not in self._by_id:
            self.refresh(top.id)
        node = self._by_id.get(top.id)
        for step in reversed(chain[:-1]):
            if node is None:
                break
            if node.depth >= MAX_INDENT:
                node = node.parent  # the subtree is one level there
                assert node is not None
            node = next((k for k in self._children_of(node) if k.id == step.id), None)
        return node

    def refresh(self, conv_id: str, known: Conversation | None = None) -> Conversation | None:
        """Re-read one conversation (or take ``known``, its fields as stored now): update
        its row in place (moving a top-level row to its place in the newest-first order),
        insert it if it is new, drop it if gone. Returns the conversation as stored now
        (``None`` when it no longer exists)."""
        conv = known if known is not None and known.id == conv_id else None
        if conv is None:
            conv = self._store.get_conversation(conv_id)
        node = self._by_id.get(conv_id)
        self._parents.pop(conv_id, None)
        old = node.conv if node is not None else None
        for known in (conv, old):  # a fork changed: its parent's forks are read again
            self._forks.forget(known.parent if known is not None else None)
        if conv is None or not self._matches(conv):
            self._forks.forget(conv_id)  # (its own forks, read ahead, stay good otherwise)
        if node is not None:
            if conv is None or not self._matches(conv):
                self.reload()  # its forks may become top-level rows
                return conv
            node.conv = conv
            if node.parent is self._root and self._beyond_loaded(conv):
                self._detach(node)  # e.g. unpinned: a later page brings it back
                return conv
            if node.parent is self._root:
                self._move_to_place(node)
            self._changed(node)
            return conv
        if conv is None or not self._matches(conv):
            return conv
        if not self._is_top(conv):
            parent = self._by_id.get(conv.parent or "")
            if parent is not None and parent.depth >= MAX_INDENT:
                parent = parent.parent  # the row holding the unindented subtree
            if parent is not None and parent.children is not None:
                self._sync(parent, self._rows_under(parent))
            return conv
        if self._beyond_loaded(conv):
            return conv  # older than everything loaded: a later page brings it
        for stray in [k for k in self._top if k.conv is not None and k.conv.parent == conv.id]:
            self._detach(stray)  # forks shown at the top level while their parent was away
        self._insert_top(conv)
        self._scanned += 1
        return conv

    def _beyond_loaded(self, conv: Conversation) -> bool:
        """Whether a top-level ``conv`` belongs where no page was read yet (one brings it)."""
        if conv.pinned and not self._trashed:
            return False
        if self._cursor is None or self._exhausted or sort_key(conv) > self._cursor:
            return False
        return not self._in_tail(conv)

    def _unasked(self, conv_id: str) -> bool:
        """Whether no one has asked for the row's forks yet (or it is new)."""
        node = self._by_id.get(conv_id)
        return node is None or node.children is None

    def reload(self) -> None:
        """Re-read everything loaded and apply the differences row by row."""
        limit = max(self._scanned, self._page_size_first)
        listed = self._store.list_conversations(
            limit, tags=self._tags, trashed=self._trashed, pinned=self._unpinned
        )
        tail: list[Conversation] = []
        if self._tail_cursor is not None:
            tail = self._store.list_conversations(
                max(self._tail_scanned, 1),
                tags=self._tags,
                trashed=self._trashed,
                pinned=self._unpinned,
                oldest_first=True,
            )
            tail.reverse()
        tail_scanned = len(tail)
        self._reset_listing()
        self._pins_read = True
        self._scanned = len(listed)
        self._exhausted = len(listed) < limit
        self._cursor = sort_key(listed[-1]) if listed else None
        if tail and (self._exhausted or sort_key(tail[0]) >= sort_key(listed[-1])):
            ids = {c.id for c in listed}
            listed += [c for c in tail if c.id not in ids and sort_key(c) < sort_key(listed[-1])]
            self._exhausted, tail = True, []
        if tail:
            self._tail_cursor = sort_key(tail[0])
            self._tail_scanned = tail_scanned
        gap = self._gap_row()
        if not tail and gap >= 0:
            self._remove_rows(gap, 1)
        page = self._pins() + listed + tail
        lookup = self._fresh_lookup(page)
        tops = [c for c in page if self._is_top(c, lookup)]
        self._forks.read(c.id for c in tops if self._unasked(c.id))
        tail_from = len([c for c in tops if not self._in_tail(c)]) if tail else None
        if tail and gap < 0:
            self._insert_rows(len(self._rows), [GAP])
        if not self._sync(self._root, tops):
            self._reset_top(tops, tail_from)
            return
        self._drop_empty_gap()
        self._fix_headers()
        nested_parents = {c.parent for c in page if c.parent is not None}
        for node in list(self._by_id.values()):
            if self._by_id.get(node.id) is not node or node.children is None:
                continue  # dropped meanwhile, or its children were never asked for
            if node.depth < MAX_INDENT and (node.children or node.id in nested_parents):
                self._sync(node, self._rows_under(node))
