"""Text renderings shared by the command line and slash commands: the conversation
listing (SPEC §9), the fork tree, and one line per scrollback item."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ikgui.domain.events import (
    STATUS_ACTIVE,
    STATUS_KILLED,
    STATUS_TRASHED,
    Conversation,
    Event,
    Kind,
    TreeNode,
)
from ikgui.domain.text.safe import one_line
from ikgui.domain.text.times import relative

#: The most rows a listing asks for (``conv list -n``, ``/sessions N``): SQLite's
#: LIMIT is a 64-bit integer, and nobody keeps a billion conversations.
MAX_COUNT = 1_000_000_000


class ListingRow(NamedTuple):
    """What the listing table shows of a conversation (a store reads only these for
    ``ikgui conv list``: a third of a ``Conversation``'s columns, and no tags)."""

    id: str
    agent: str | None
    message_count: int
    updated_at: float
    title: str | None
    status: str
    trashed_at: float | None
    pinned: int


#: Tags a line names before "and N more" (a conversation may carry thousands).
TAGS_SHOWN = 10


def tag_summary(tags: Sequence[str], shown: int = TAGS_SHOWN) -> str:
    """``a, b, c`` or, for a long list, its first ``shown`` and ``… and 99,990 more``."""
    if len(tags) <= shown:
        return ", ".join(tags)
    return ", ".join(tags[:shown]) + f", … and {len(tags) - shown:,} more"


#: The widest an AGENT cell is shown (a name from an import may be any length).
AGENT_WIDTH = 24


def cut(text: str, width: int | None) -> str:
    """``text`` cut to ``width`` characters, "…" marking the cut (``None``: whole)."""
    if width is None or len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


def format_listing(
    conversations: Sequence[Conversation | ListingRow], now: float, width: int | None = None
) -> str:
    """The ``ID AGENT MSGS UPDATED TITLE`` table; ``No conversations.`` when empty.
    ``width``: each line is cut to it (a terminal's columns), the title first.

    Written for 10,000 rows in a few milliseconds (``ikgui conv list`` is a new process
    each time): the cells first, then each line in one format."""
    if not conversations:
        return "No conversations."
    ids = [c.id for c in conversations]
    agents = [cut(one_line(c.agent or "-"), AGENT_WIDTH) for c in conversations]
    counts = [str(c.message_count) for c in conversations]
    ages = [relative(c.updated_at, now) for c in conversations]
    titles = [_title(c) for c in conversations]
    cells = (["ID", *ids], ["AGENT", *agents], ["MSGS", *counts], ["UPDATED", *ages])
    w0, w1, w2, w3 = (max(map(len, column)) + 2 for column in cells)
    lines = [
        "".join((a.ljust(w0), b.ljust(w1), c.ljust(w2), d.ljust(w3), e)).rstrip()
        for a, b, c, d, e in zip(*cells, ["TITLE", *titles], strict=True)
    ]
    if width is not None:
        lines = [cut(line, width) for line in lines]
    return "\n".join(lines)


#: How a state reads in a listing: a branch closed with ``/kill`` is "closed", the word
#: of ``conv tree`` and the window (``killed`` is only its stored status).
_STATE_WORDS = {STATUS_KILLED: "closed"}


def _title(conv: Conversation | ListingRow) -> str:
    title = one_line(conv.title or "-")
    status = STATUS_TRASHED if conv.trashed_at is not None else conv.status  # visible_status
    if status != STATUS_ACTIVE:
        title = f"{title} [{_STATE_WORDS.get(status, status)}]"
    if conv.pinned:
        title = f"{title} [pinned]"
    return title


def format_tree(root: TreeNode, current: str | None) -> str:
    """The fork tree with the current conversation starred and live/closed counts."""
    lines: list[str] = []
    counts = {"live": 0, "closed": 0}

    def label(node: TreeNode) -> str:
        conv = node.conversation
        closed = conv.status == STATUS_KILLED
        counts["closed" if closed else "live"] += 1
        star = " *" if conv.id == current else ""
        state = " [closed]" if closed else ""
        if conv.trashed_at is not None:
            state += " [trashed]"
        return f"{conv.id}{star}{state}  {one_line(conv.title or '-')}"

    def walk(node: TreeNode, prefix: str) -> None:
        for index, child in enumerate(node.children):
            last = index == len(node.children) - 1
            lines.append(f"{prefix}{'└── ' if last else '├── '}{label(child)}")
            walk(child, prefix + ("    " if last else "│   "))

    lines.append(label(root))
    walk(root, "")
    lines.append(f"{counts['live']} live, {counts['closed']} closed")
    return "\n".join(lines)


def describe(event: Event) -> str:
    """The text the scrollback shows for an event."""
    kind = event.kind
    data = event.data if event.kind in (Kind.MARK, Kind.REWIND, Kind.ASSISTANT) else {}
    if kind == Kind.MARK:
        label = data.get("label")
        return f"/mark {label}" if isinstance(label, str) else "/mark"
    if kind == Kind.REWIND:
        label = data.get("target_label")
        return f"Rewound to {label if isinstance(label, str) else 'last mark'}"
    if kind == Kind.ASSISTANT:
        end = data.get("display_end")
        text = event.content[:end] if isinstance(end, int) else event.content
        return f"{text} (stopped)" if data.get("interrupted") else text
    if kind == Kind.CLEAR:
        return "/clear"
    if kind not in Kind.__members__.values():
        return f"[{kind}] {event.content}".rstrip()
    return event.content
