"""Command output shown compactly (issue 10, item 8): a command's output (``/help``,
``/sessions``…) is stored whole (SPEC §5), but its item shows only the first screenful
(:func:`~ikgui.ui.transcript.items.folded`), then "… N more lines · Show all",
a link (``ikgui-expand:<event id>``) that writes the rest in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QFont, QTextBlockFormat, QTextCharFormat, QTextCursor

from ikgui.ui.transcript.body import link_format, note_format
from ikgui.ui.transcript.items import Colors, body_formats

if TYPE_CHECKING:
    from ikgui.ui.transcript.render import Item, ItemWriter

EXPAND_SCHEME = "ikgui-expand"
SHOW_ALL = "Show all"


def write_show_all(
    cursor: QTextCursor, event_id: int, hidden: int, colors: Colors, font: QFont
) -> None:
    """After a folded output: "… N more lines · Show all"."""
    cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
    lines = "1 more line" if hidden == 1 else f"{hidden:,} more lines"
    cursor.insertText(f"… {lines} · ", note_format(colors, font))
    cursor.insertText(SHOW_ALL, link_format(f"{EXPAND_SCHEME}:{event_id}", colors, font))


def expand_link(url: QUrl) -> int | None:
    """The event id of a "Show all" link (``None``: another link)."""
    path = url.path()
    return int(path) if url.scheme() == EXPAND_SCHEME and path.isdigit() else None


def expand(writer: ItemWriter, item: Item) -> None:
    """Write an item's whole output in place of its fold (the scroll position stays)."""
    text = item.event.content
    cursor = QTextCursor(writer.document)
    cursor.setPosition(writer.body_start(item))
    cursor.setPosition(item.frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
    block, char = body_formats("notice", text, writer.font, writer.colors)
    cursor.beginEditBlock()
    cursor.removeSelectedText()
    cursor.setBlockFormat(block)
    writer.body.plain(cursor, text, char, item.event.id, False)
    cursor.endEditBlock()
