"""A node of the sidebar's conversation tree (:mod:`ikgui.ui.sidebar.tree`), and the other
kinds of row the flat list shows: a group's header and the gap."""

from __future__ import annotations

from ikgui.domain.events import Conversation
from ikgui.ui.sidebar.rows import place_key

#: Indentation stops here: the rows below a node this deep (tops are 0) are its whole
#: subtree, one level, each deeper fork saying whose branch it is (``branch of <title>``).
MAX_INDENT = 3


class Node:
    __slots__ = ("__weakref__", "children", "conv", "depth", "expanded", "key", "parent", "row")

    def __init__(self, key: int, conv: Conversation | None, parent: Node | None) -> None:
        self.key = key
        self.conv = conv
        self.parent = parent
        self.row = 0  # among its parent's children
        self.depth: int = -1 if parent is None else parent.depth + 1
        #: Whether its children are shown below it (the root's always are).
        self.expanded = parent is None
        #: ``None`` until someone asks for the children (then loaded); none at the last
        #: indented level (its parent holds the whole subtree).
        self.children: list[Node] | None = [] if self.depth >= MAX_INDENT else None

    @property
    def id(self) -> str:
        return self.conv.id if self.conv is not None else ""

    @property
    def sort_key(self) -> tuple[bool, float, str]:
        """Its place among the top-level rows (descending): pinned first, newest first."""
        return place_key(self.conv) if self.conv is not None else (False, 0.0, "")


class Gap:
    """The row standing for the conversations not read yet between the pages read from
    the newest end and those read from the oldest (End reads the last page first)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "GAP"


GAP = Gap()

#: A row of the list: a conversation's node, a group's header (its text), or the gap.
Row = Node | str | Gap


def renumber(nodes: list[Node], start: int = 0, stop: int | None = None) -> None:
    """Number ``nodes[start:stop]`` by their place (the others have not moved)."""
    for row in range(start, len(nodes) if stop is None else min(stop, len(nodes))):
        nodes[row].row = row
