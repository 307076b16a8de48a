"""Text renderings shared by the command line and slash commands: the conversation
listing (SPEC §9), the fork tree, and one line per scrollback item."""

from __future__ import annotations

from collections.abc import Sequence

from ikgui.domain.events import STATUS_KILLED, Conversation, Event, Kind, TreeNode
from ikgui.domain.safetext import one_line
from ikgui.domain.timefmt import relative

#: The most rows a listing asks for (``conv list -n``, ``/sessions N``): SQLite's
#: LIMIT is a 64-bit integer, and nobody keeps a billion conversations.
MAX_COUNT = 1_000_000_000


def format_listing(conversations: Sequence[Conversation], now: float) -> str:
    """The ``ID AGENT MSGS UPDATED TITLE`` table; ``No conversations.`` when empty."""
    if not conversations:
        return "No conversations."
    rows = [("ID", "AGENT", "MSGS", "UPDATED", "TITLE")]
    for conv in conversations:
        title = one_line(conv.title or "-")
        if conv.visible_status != "active":
            title = f"{title} [{conv.visible_status}]"
        if conv.pinned:
            title = f"{title} [pinned]"
        rows.append(
            (
                conv.id,
                one_line(conv.agent or "-"),
                str(conv.message_count),
                relative(conv.updated_at, now),
                title,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for row in rows:
        cells = [row[i].ljust(widths[i] + 2) for i in range(4)]
        lines.append(("".join(cells) + row[4]).rstrip())
    return "\n".join(lines)


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
