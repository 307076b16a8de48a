"""Writes an item's body within its render budget (see :mod:`ikgui.ui.transcript.render_budget`):
Markdown for what fits, big tables as preformatted text with a "Show as table" link, the
head of a long body with an "Open full reply" link, bidi controls made visible.

The links use schemes of ikgui's own (``ikgui-table:``, ``ikgui-full:``) that the
scrollback handles itself; they never reach ``QDesktopServices``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
)

from ikgui.domain.text.safe import reveal_bidi
from ikgui.ui.transcript.code_blocks import code_runs
from ikgui.ui.transcript.items import Colors, blend
from ikgui.ui.transcript.markdown import SafeDocument, monospace_family, render_markdown
from ikgui.ui.transcript.render_budget import Segment, head_of, plan

FULL_SCHEME = "ikgui-full"
TABLE_SCHEME = "ikgui-table"
SHOW_TABLE = "Show as table"
OPEN_FULL = "Open full reply"
OPEN_FULL_TEXT = "Open full text"
STILL_ARRIVING = "… more is arriving; the whole reply shows when it finishes."


def internal_link(url: QUrl) -> tuple[str, int, int] | None:
    """``(scheme, event id, table start)`` of one of the scrollback's own links."""
    scheme = url.scheme()
    if scheme not in (FULL_SCHEME, TABLE_SCHEME):
        return None
    parts = url.path().split("/")
    if not all(part.isdigit() for part in parts) or len(parts) > 2:
        return None
    numbers = [int(part) for part in parts] + [0]
    return scheme, numbers[0], numbers[1]


def link_format(href: str, colors: Colors, base_font: QFont) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setAnchor(True)
    fmt.setAnchorHref(href)
    fmt.setForeground(colors.link)
    fmt.setFontUnderline(True)
    fmt.setFontPointSize(max(base_font.pointSizeF() * 0.9, 6.0))
    return fmt


def note_format(colors: Colors, base_font: QFont) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(colors.dim)
    fmt.setFontItalic(True)
    fmt.setFontPointSize(max(base_font.pointSizeF() * 0.9, 6.0))
    return fmt


class BodyWriter:
    """Writes bodies for one document's colours and font."""

    def __init__(self, colors: Colors, font: QFont) -> None:
        self.colors = colors
        self.font = font
        #: Whether code is coloured (not until the window's first paint: Pygments loads
        #: then, and the code already shown is coloured in one pass).
        self.highlight = True
        #: Characters of code coloured at once (``None``: the highlighter's default).
        self.highlight_limit: int | None = None
        #: Code left to colour (``highlight.Job``), taken by the item writer.
        self.pending: list[Any] = []

    def markdown(self, cursor: QTextCursor, text: str, event_id: int, user: bool) -> None:
        """``text`` (after a label block) as Markdown, within the budget; a ``user``'s
        line breaks are kept."""
        shown = head_of(text)
        code = 0  # the fenced code blocks so far (their Copy links count them)
        for index, segment in enumerate(plan(shown)):
            if segment.table is not None:
                cut = len(shown) < len(text) and segment.table.end >= len(shown.rstrip()) - 1
                self._table_as_text(cursor, segment, event_id, cut)
                continue
            if index:
                cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            document = self.rendered(segment.text, event_id, code, user, continued=index > 0)
            code += document.code_blocks
            # The document starts with an empty block, which merges into the one at the
            # cursor (the label's, or the empty one just inserted).
            start = cursor.position()
            cursor.insertFragment(QTextDocumentFragment(document))
            self.adopt(document, cursor.document(), start, cursor.position())
        self.more(cursor, text, len(shown), event_id, reply=not user)

    def rendered(
        self,
        text: str,
        event_id: int,
        first_code: int,
        keep_breaks: bool = False,
        continued: bool = False,
    ) -> SafeDocument:
        """``text`` rendered as the item's Markdown (its code blocks numbered from
        ``first_code`` for their Copy links), not inserted yet."""
        style = replace(
            self.colors.markdown(),
            font=self.font,
            highlight=self.highlight,
            highlight_limit=self.highlight_limit,
        )
        return render_markdown(
            reveal_bidi(text),
            style,
            keep_breaks=keep_breaks,
            code_id=event_id,
            first_code=first_code,
            continued=continued,
        )

    def adopt(self, rendered: SafeDocument, document: QTextDocument, start: int, end: int) -> None:
        """``rendered`` was inserted between ``start`` and ``end`` of ``document``: its
        code left to colour later is coloured where it is now."""
        if not rendered.pending:
            return
        runs = code_runs(document, start=start, end=end)
        for number, job in rendered.pending:
            if number < len(runs):
                job.first = runs[number].first
                self.pending.append(job)

    def plain(
        self, cursor: QTextCursor, text: str, char: QTextCharFormat, event_id: int, reply: bool
    ) -> None:
        shown = head_of(text, markup=False)
        cursor.insertText(reveal_bidi(shown), char)
        self.more(cursor, text, len(shown), event_id, reply)

    def more(self, cursor: QTextCursor, text: str, shown: int, event_id: int, reply: bool) -> None:
        """After a body that was cut: how much is shown and the "Open full …" link."""
        if shown >= len(text):
            return
        cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        cursor.insertText(
            f"Showing the first {shown:,} of {len(text):,} characters.  ",
            note_format(self.colors, self.font),
        )
        label = OPEN_FULL if reply else OPEN_FULL_TEXT
        cursor.insertText(label, link_format(f"{FULL_SCHEME}:{event_id}", self.colors, self.font))

    def still_arriving(self, cursor: QTextCursor) -> None:
        cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        cursor.insertText(STILL_ARRIVING, note_format(self.colors, self.font))

    def _table_as_text(
        self, cursor: QTextCursor, segment: Segment, event_id: int, cut: bool
    ) -> None:
        """A table over the cell budget: a note with "Show as table", then its lines in
        monospace, not wrapped (each row stays one line)."""
        table = segment.table
        assert table is not None
        rows = f"the first {table.rows:,} rows" if cut else f"{table.rows:,} rows"
        cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        cursor.insertText(
            f"A table of {table.columns:,} columns, {rows} shown as text "
            "(too big to lay out here).  ",
            note_format(self.colors, self.font),
        )
        href = f"{TABLE_SCHEME}:{event_id}/{table.start}"
        cursor.insertText(SHOW_TABLE, link_format(href, self.colors, self.font))
        block = QTextBlockFormat()
        block.setNonBreakableLines(True)
        block.setBackground(blend(self.colors.base, self.colors.text, 0.05))
        char = QTextCharFormat()
        char.setFontFamilies([monospace_family()])
        char.setFontPointSize(max(self.font.pointSizeF() * 0.9, 6.0))
        cursor.insertBlock(block, char)
        # One call: Qt turns each line end into a block of the same formats.
        cursor.insertText(reveal_bidi(segment.text), char)
