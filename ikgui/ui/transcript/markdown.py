"""Safe Markdown: model and user text turned into a ``QTextDocument`` that can hold no HTML,
load nothing and link only to http(s).

Qt's own importer (md4c) parses the GitHub dialect with ``MarkdownNoHTML``, so tags show as
text. The result is then sanitised: images become a text placeholder (nothing is fetched,
not even local files), links other than http(s) lose their anchor, and code is styled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFragment,
    QTextTable,
)

from ikgui.ui.transcript.code_blocks import (
    CodeLook,
    code_point_size,
    fenced_blocks,
    frame_code_blocks,
    is_code_block,
    monospace_family,
)
from ikgui.ui.transcript.render_budget import fence_after

SAFE_SCHEMES = frozenset({"http", "https"})
_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)
_KEEP = QTextCursor.MoveMode.KeepAnchor


def is_safe_link(url: QUrl | str) -> bool:
    """Whether a link may be opened: absolute http(s) with a host, nothing else."""
    url = QUrl(url) if isinstance(url, str) else url
    return url.isValid() and url.scheme().lower() in SAFE_SCHEMES and bool(url.host())


__all__ = ["is_code_block", "monospace_family"]  # (re-exported: their home is code_blocks)


@dataclass(frozen=True)
class MarkdownStyle:
    """Colours for code, links and quotes; the scrollback derives them from its palette.
    With a ``font`` (the body's), code is sized to it; ``dark`` picks the colours of
    code, which is coloured only with ``highlight`` (at once up to ``highlight_limit``
    characters, the rest later)."""

    background: QColor
    border: QColor
    link: QColor
    quote: QColor
    label: QColor | None = None
    font: QFont | None = None
    dark: bool = False
    highlight: bool = True
    highlight_limit: int | None = None

    def code_look(self) -> CodeLook:
        return CodeLook(
            self.background, self.border, self.label or self.quote, self.link, self.font
        )


class SafeDocument(QTextDocument):
    """A document that loads no resource at all (no network, no files, no data: URLs).

    ``code_blocks``: how many fenced code blocks it holds, once rendered (their Copy
    links are numbered from the ``first_code`` given to :func:`render_markdown`)."""

    code_blocks = 0
    #: The Markdown it was read from (by :func:`render_markdown`).
    source: str | None = None
    #: It goes after other text of the same item (see ``render_markdown``).
    continued = False
    #: Code left to colour later: (index among its code blocks, a highlight.Job).
    pending: list[tuple[int, Any]] = []  # noqa: RUF012  (replaced, never mutated)

    #: The transcript's own pictures (a message's thumbnails): set on its document only.
    #: Rendered Markdown never gets one: its images are replaced by a label.
    pictures: Any = None

    def loadResource(self, type: int, name: QUrl | str) -> object:
        if self.pictures is not None and type == QTextDocument.ResourceType.ImageResource.value:
            return self.pictures(QUrl(name))
        return None


def hard_breaks(text: str) -> str:
    """Keep the user's line breaks: a newline outside code fences becomes a hard break."""
    lines = text.split("\n")
    fence = ""
    for index, line in enumerate(lines[:-1]):
        inside, fence = fence, fence_after(fence, line)
        if inside or fence:
            continue
        if line.startswith(("    ", "\t")):
            continue  # indented code keeps its lines anyway
        if line.strip() and lines[index + 1].strip():
            lines[index] = line.rstrip() + "  "
    return "\n".join(lines)


def render_markdown(
    text: str,
    style: MarkdownStyle | None = None,
    *,
    keep_breaks: bool = False,
    code_id: int | None = None,
    first_code: int = 0,
    continued: bool = False,
) -> SafeDocument:
    """``text`` as a sanitised document whose first block is empty (``continued``: it
    goes after other text of the same item, so a heading first gets room above it).

    With a ``style``, code blocks get a header with their language and (given the
    ``code_id`` of the item) a Copy link ``ikgui-copy:<code_id>/<n>``, ``n`` counting the
    fenced blocks from ``first_code``.

    The empty first block lets a caller insert the document as a fragment after other
    text (a role label) without the fragment's first block losing its format (Qt merges
    the first block of a fragment into the block at the cursor).
    """
    document = SafeDocument()
    document.setUndoRedoEnabled(False)
    document.continued = continued
    source = hard_breaks(text) if keep_breaks else text
    # Qt (6.7+) takes a leading "---" block for YAML front matter and drops it from the
    # text; a blank line first keeps it (a rule, then the text, as CommonMark reads it).
    document.source = "\n" + source if source.startswith("---") else source
    document.setMarkdown(document.source, _FEATURES)
    sanitize(document, style, code_id=code_id, first_code=first_code)
    cursor = QTextCursor(document)
    cursor.insertBlock(cursor.blockFormat(), cursor.charFormat())
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    cursor.setBlockFormat(QTextBlockFormat())
    cursor.setBlockCharFormat(QTextCharFormat())
    return document


@dataclass
class _Found:
    """What :func:`sanitize` changes, by position: images (replaced by a label), links
    (kept when safe), inline code spans and block quotes."""

    replacements: list[tuple[int, int, str]] = field(default_factory=list)
    anchors: list[tuple[int, int, bool]] = field(default_factory=list)
    code_spans: list[tuple[int, int]] = field(default_factory=list)
    quotes: list[tuple[int, int]] = field(default_factory=list)


def _scan(document: QTextDocument) -> _Found:
    found = _Found()
    block = document.begin()
    while block.isValid():
        if block.blockFormat().hasProperty(QTextFormat.Property.BlockQuoteLevel):
            found.quotes.append((block.position(), block.length() - 1))
        it = block.begin()
        while not it.atEnd():
            fragment: QTextFragment = it.fragment()
            fmt = fragment.charFormat()
            start, length = fragment.position(), fragment.length()
            if fmt.isImageFormat():
                image = fmt.toImageFormat()
                alt = str(image.property(QTextFormat.Property.ImageAltText) or "")
                label = f"[image: {alt or image.name()}]" if alt or image.name() else "[image]"
                found.replacements.append((start, length, label))
            elif fmt.isAnchor():
                found.anchors.append((start, length, is_safe_link(fmt.anchorHref())))
            elif fmt.fontFixedPitch() and not is_code_block(block.blockFormat()):
                found.code_spans.append((start, length))
            it += 1
        block = block.next()
    return found


def sanitize(
    document: QTextDocument,
    style: MarkdownStyle | None = None,
    *,
    code_id: int | None = None,
    first_code: int = 0,
) -> None:
    """Make ``document`` inert: no images, only http(s) links; with a ``style``, colour
    links and quotes, frame and colour code and space out headings, tables and code."""
    found = _scan(document)
    anchors, code_spans, quotes = found.anchors, found.code_spans, found.quotes
    cursor = QTextCursor(document)
    # One edit block: Qt then handles each change in O(1) instead of re-scanning the
    # block (2,000 code spans in one paragraph took 1.2 s one by one, 60 ms together).
    cursor.beginEditBlock()
    if style is not None:
        for start, length in quotes:
            cursor.setPosition(start)
            cursor.setPosition(start + length, _KEEP)
            fmt = QTextCharFormat()
            fmt.setForeground(style.quote)
            fmt.setFontItalic(True)
            cursor.mergeCharFormat(fmt)
    for start, length, safe in anchors:
        cursor.setPosition(start)
        cursor.setPosition(start + length, _KEEP)
        fmt = QTextCharFormat()
        if safe:
            if style is not None:
                fmt.setForeground(style.link)
            cursor.mergeCharFormat(fmt)
        else:
            fmt = cursor.charFormat()
            fmt.setAnchor(False)
            fmt.clearProperty(QTextFormat.Property.AnchorHref)
            fmt.clearForeground()
            fmt.setFontUnderline(False)
            cursor.setCharFormat(fmt)
    if style is not None:
        for start, length in code_spans:
            cursor.setPosition(start)
            cursor.setPosition(start + length, _KEEP)
            fmt = QTextCharFormat()
            fmt.setBackground(style.background)
            if style.font is not None:
                fmt.setFontPointSize(code_point_size(style.font))
            cursor.mergeCharFormat(fmt)
    # Replace from the end so earlier positions stay valid.
    for start, length, label in reversed(found.replacements):
        cursor.setPosition(start)
        cursor.setPosition(start + length, _KEEP)
        plain = QTextCharFormat()
        plain.setFontItalic(True)
        cursor.insertText(label, plain)
    cursor.endEditBlock()
    if style is not None:
        _style_blocks(document, style, code_id, first_code)


def _style_blocks(
    document: QTextDocument, style: MarkdownStyle, code_id: int | None, first_code: int
) -> None:
    """Code in framed, headed blocks (coloured), and room above headings and tables."""
    if style.font is not None:
        _size_code(document, code_point_size(style.font))
    sizes = None
    if isinstance(document, SafeDocument) and document.source is not None:
        blocks = fenced_blocks(document.source, dedent=False)
        sizes = [block.count("\n") + 1 for block in blocks]
        document.code_blocks = len(sizes)
    runs = frame_code_blocks(document, style.code_look(), sizes, code_id, first_code)
    if runs and style.highlight:
        from ikgui.ui.transcript.highlight import highlight_runs

        left = highlight_runs(document, runs, style.dark, style.highlight_limit)
        if isinstance(document, SafeDocument):
            document.pending = left
    _space_out(document, style)


def _size_code(document: QTextDocument, size: float) -> None:
    """Code blocks in ``size`` points (Qt's reader gives them the system's fixed font
    size, which would ignore the text size setting)."""
    fmt = QTextCharFormat()
    fmt.setFontPointSize(size)
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    block = document.begin()
    while block.isValid():
        if is_code_block(block.blockFormat()):
            cursor.setPosition(block.position())
            cursor.setPosition(block.position() + block.length() - 1, _KEEP)
            cursor.mergeCharFormat(fmt)
            cursor.mergeBlockCharFormat(fmt)
        block = block.next()
    cursor.endEditBlock()


def _space_out(document: QTextDocument, style: MarkdownStyle) -> None:
    """Room above headings and around tables, so a heading never sits on a table."""
    size = style.font.pointSizeF() if style.font is not None else 9.0
    em = size * 4 / 3  # points to pixels at 96 dpi
    block = document.begin()
    tables: list[QTextTable] = []
    after = isinstance(document, SafeDocument) and document.continued
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.headingLevel() and (after or block.blockNumber() > 0):
            fmt.setTopMargin(em * (1.1 if fmt.headingLevel() <= 2 else 0.8))
            fmt.setBottomMargin(max(fmt.bottomMargin(), em * 0.35))
            QTextCursor(block).setBlockFormat(fmt)
        table = QTextCursor(block).currentTable()
        if table is not None and (not tables or tables[-1] != table):
            tables.append(table)
        block = block.next()
    for table in tables:
        _mend_header(table)
        table_format = table.format()
        table_format.setTopMargin(em * 0.5)
        table_format.setBottomMargin(em * 0.6)
        table_format.setBorderBrush(style.border)
        table_format.setCellPadding(max(table_format.cellPadding(), 3))
        table.setFormat(table_format)


def _mend_header(table: QTextTable) -> None:
    """Qt's reader, given a table right after a code block, starts the first header cell
    with an empty bold line and puts the cell's text in plain on the next: mend it."""
    cell = table.cellAt(0, 0)
    first = cell.firstCursorPosition().block()
    following = first.next()
    if first.text() or not following.isValid() or following.position() > cell.lastPosition():
        return
    cursor = QTextCursor(first)
    cursor.deleteChar()  # the line break: the text moves up
    cursor.setPosition(cell.lastPosition(), _KEEP)
    bold = QTextCharFormat()
    bold.setFontWeight(QFont.Weight.Bold)
    cursor.mergeCharFormat(bold)
