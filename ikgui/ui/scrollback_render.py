"""Writes scrollback items into a ``QTextDocument``: one frame per item (a one-row table
for a mark), a small gap block between items, streaming text appended at a frame's end.

Everything model-provided goes in as plain text or through the safe Markdown renderer;
no HTML is ever inserted.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import (
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFrame,
)

from ikgui.domain.events import Event
from ikgui.ui.markdown import is_code_block, render_markdown
from ikgui.ui.scrollback_items import (
    PLACEHOLDER,
    Colors,
    ItemDisplay,
    badge_format,
    body_formats,
    display_for,
    frame_format,
    label_formats,
    mark_format,
    rule_format,
)

_KEEP = QTextCursor.MoveMode.KeepAnchor


class Item:
    """One shown event: its frame, and the text so far while it streams."""

    __slots__ = ("event", "frame", "labelled", "placeholder", "stream")

    def __init__(self, event: Event, frame: QTextFrame, labelled: bool) -> None:
        self.event = event
        self.frame = frame
        self.labelled = labelled
        self.placeholder = False
        #: The text shown so far while the reply grows (``None``: not streaming).
        self.stream: str | None = None


class ItemWriter:
    """Inserts, replaces, grows and reads items of one document."""

    def __init__(self, document: QTextDocument, colors: Colors, font: QFont) -> None:
        self.document = document
        self.colors = colors
        self.font = font

    def end_position(self) -> int:
        return self.document.rootFrame().lastPosition()

    def insert(self, position: int, event: Event) -> Item:
        """A new item for ``event`` at ``position`` (a gap block between two items)."""
        cursor = QTextCursor(self.document)
        cursor.setPosition(position)
        display = display_for(event)
        if display.role == "mark":
            frame: QTextFrame = self._insert_mark(cursor, event.id, display.text)
        else:
            frame = cursor.insertFrame(frame_format(display.role, event.id, self.colors))
        item = Item(event, frame, False)
        if display.streaming:
            item.stream = event.content
        if display.role != "mark":
            self._fill(cursor, item, display)
        self.style_gap(frame.lastPosition() + 1)
        return item

    def insert_many(self, position: int, events: Sequence[Event]) -> list[Item]:
        """Items for ``events`` in order from ``position``, laid out once at the end."""
        items: list[Item] = []
        self.document.setLayoutEnabled(False)
        try:
            for event in events:
                item = self.insert(position, event)
                items.append(item)
                position = item.frame.lastPosition() + 1
        finally:
            self.document.setLayoutEnabled(True)
        return items

    def remove(self, first: Item, last: Item | None = None) -> int:
        """Delete the frames from ``first`` to ``last`` (default: just ``first``);
        returns where they were."""
        cursor = QTextCursor(self.document)
        cursor.setPosition(first.frame.firstPosition() - 1)
        cursor.setPosition((last or first).frame.lastPosition() + 1, _KEEP)
        cursor.removeSelectedText()
        return cursor.position()

    def append(self, item: Item, text: str) -> None:
        """Streaming: ``text`` at the end of the item (replacing the placeholder)."""
        cursor = QTextCursor(self.document)
        if item.placeholder:
            cursor.setPosition(self.body_start(item))
            cursor.setPosition(item.frame.lastPosition(), _KEEP)
            item.placeholder = False
        else:
            cursor.setPosition(item.frame.lastPosition())
        role = display_for(item.event, "").role
        cursor.insertText(text, body_formats(role, "", self.font, self.colors)[1])
        item.stream = (item.stream if item.stream is not None else item.event.content) + text

    def text_of(self, item: Item) -> str:
        """The item's plain text, without its label."""
        if item.placeholder:
            return ""
        cursor = QTextCursor(self.document)
        cursor.setPosition(self.body_start(item))
        cursor.setPosition(item.frame.lastPosition(), _KEEP)
        return cursor.selection().toPlainText().strip("\n")

    def body_start(self, item: Item) -> int:
        first = item.frame.firstCursorPosition().block()
        return first.next().position() if item.labelled else first.position()

    def style_gap(self, position: int) -> None:
        """Shrink the empty block Qt keeps between two frames to a small gap."""
        cursor = QTextCursor(self.document)
        cursor.setPosition(position)
        gap = QTextBlockFormat()
        gap.setLineHeight(4, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        cursor.setBlockFormat(gap)
        tiny = QTextCharFormat()
        tiny.setFontPointSize(2)
        cursor.setBlockCharFormat(tiny)

    def _insert_mark(self, cursor: QTextCursor, event_id: int, text: str) -> QTextFrame:
        table = cursor.insertTable(1, 3, mark_format(event_id, text, self.font))
        block, char = body_formats("mark", text, self.font, self.colors)
        for column in (0, 2):
            rule = table.cellAt(0, column).firstCursorPosition()
            rule.setBlockFormat(rule_format(self.colors))
            rule.setBlockCharFormat(char)
        label = table.cellAt(0, 1).firstCursorPosition()
        label.setBlockFormat(block)
        label.insertText(text, char)
        return table

    def _fill(self, cursor: QTextCursor, item: Item, display: ItemDisplay) -> None:
        """Write an item's label and body into its (empty) frame at ``cursor``."""
        font, colors = self.font, self.colors
        item.labelled = bool(display.label)
        if display.label:
            label, detail = label_formats(display.role, font, colors)
            heading = QTextBlockFormat()
            heading.setBottomMargin(3)
            cursor.setBlockFormat(heading)
            cursor.insertText(display.label, label)
            if display.detail:
                cursor.insertText(f"  {display.detail}", detail)
        if display.markdown and display.label:
            keep_breaks = display.role == "user"
            document = render_markdown(display.text, colors.markdown(), keep_breaks=keep_breaks)
            # The document starts with an empty block, which merges into the label's.
            cursor.insertFragment(QTextDocumentFragment(document))
        else:
            block, char = body_formats(display.role, display.text, font, colors)
            if display.label:
                cursor.insertBlock(block, char)
            else:
                cursor.setBlockFormat(block)
                cursor.setBlockCharFormat(char)
            if display.streaming and not display.text:
                placeholder = QTextCharFormat(char)
                placeholder.setForeground(colors.dim)
                cursor.insertText(PLACEHOLDER, placeholder)
                item.placeholder = True
            else:
                cursor.insertText(display.text, char)
        if display.badge:
            cursor.setPosition(item.frame.lastPosition())
            if is_code_block(cursor.blockFormat()):
                cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            elif not cursor.block().text():
                cursor.setBlockFormat(QTextBlockFormat())  # the one after a code frame
            space = " " if cursor.block().text() else ""
            cursor.insertText(f"{space}{display.badge}", badge_format(colors, font))
