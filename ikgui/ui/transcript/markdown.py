"""Safe Markdown: model and user text turned into a ``QTextDocument`` that can hold no HTML,
load nothing and link only to http(s).

Qt's own importer (md4c) parses the GitHub dialect with ``MarkdownNoHTML``, so tags show as
text. The result is then sanitised: images become a text placeholder (nothing is fetched,
not even local files), links other than http(s) lose their anchor, and code is styled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFragment,
    QTextFrameFormat,
    QTextLength,
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


@dataclass(frozen=True)
class MarkdownStyle:
    """Colours for code, links and quotes; the scrollback derives them from its palette."""

    background: QColor
    border: QColor
    link: QColor
    quote: QColor


def is_code_block(fmt: QTextBlockFormat) -> bool:
    """Fenced and indented code alike (Qt marks both with a code language, maybe empty)."""
    return fmt.hasProperty(QTextFormat.Property.BlockCodeFence) or fmt.hasProperty(
        QTextFormat.Property.BlockCodeLanguage
    )


class SafeDocument(QTextDocument):
    """A document that loads no resource at all (no network, no files, no data: URLs)."""

    def loadResource(self, type: int, name: QUrl | str) -> object:
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
    text: str, style: MarkdownStyle | None = None, *, keep_breaks: bool = False
) -> QTextDocument:
    """``text`` as a sanitised document whose first block is empty.

    The empty first block lets a caller insert the document as a fragment after other
    text (a role label) without the fragment's first block losing its format (Qt merges
    the first block of a fragment into the block at the cursor).
    """
    document = SafeDocument()
    document.setUndoRedoEnabled(False)
    text = hard_breaks(text) if keep_breaks else text
    # Qt (6.7+) takes a leading "---" block for YAML front matter and drops it from the
    # text; a blank line first keeps it (a rule, then the text, as CommonMark reads it).
    document.setMarkdown("\n" + text if text.startswith("---") else text, _FEATURES)
    sanitize(document, style)
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


def sanitize(document: QTextDocument, style: MarkdownStyle | None = None) -> None:
    """Make ``document`` inert: no images, only http(s) links; with a ``style``, colour
    links and quotes and put code on a subtle background."""
    found = _scan(document)
    replacements, anchors, code_spans, quotes = (
        found.replacements,
        found.anchors,
        found.code_spans,
        found.quotes,
    )
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
            cursor.mergeCharFormat(fmt)
    # Replace from the end so earlier positions stay valid.
    for start, length, label in reversed(replacements):
        cursor.setPosition(start)
        cursor.setPosition(start + length, _KEEP)
        plain = QTextCharFormat()
        plain.setFontItalic(True)
        cursor.insertText(label, plain)
    cursor.endEditBlock()
    if style is not None:
        _frame_code_blocks(document, style)


def _frame_code_blocks(document: QTextDocument, style: MarkdownStyle) -> None:
    """Put each run of code blocks in a padded frame with a subtle background."""
    runs: list[list[QTextBlockFormat]] = []
    starts: list[int] = []
    previous = -2
    block = document.begin()
    while block.isValid():
        if is_code_block(block.blockFormat()):
            if block.blockNumber() != previous + 1:
                runs.append([])
                starts.append(block.position())
            runs[-1].append(block.blockFormat())
            previous = block.blockNumber()
        block = block.next()
    cursor = QTextCursor(document)
    for start, formats in zip(reversed(starts), reversed(runs), strict=True):
        cursor.setPosition(start)
        cursor.movePosition(QTextCursor.MoveOperation.NextBlock, _KEEP, len(formats) - 1)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, _KEEP)
        frame = cursor.insertFrame(code_frame_format(style))
        # Qt hands the first block's format to the frame's start; put them back.
        block = frame.firstCursorPosition().block()
        for fmt in formats:
            # Wrap long lines: a non-breaking line would widen the whole transcript.
            fmt.setNonBreakableLines(False)
            QTextCursor(block).setBlockFormat(fmt)
            block = block.next()
    if starts:
        _shrink_gaps(document)


def _shrink_gaps(document: QTextDocument) -> None:
    """Qt keeps an empty block on each side of a frame; draw those with no height."""
    root = document.rootFrame()
    gaps = []
    block = document.begin()
    while block.isValid():
        if not block.text() and QTextCursor(block).currentFrame() == root:
            neighbours = (block.previous(), block.next())
            if any(n.isValid() and QTextCursor(n).currentFrame() != root for n in neighbours):
                gaps.append(block)
        block = block.next()
    gap = QTextBlockFormat()
    gap.setLineHeight(0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
    for block in gaps:
        QTextCursor(block).setBlockFormat(gap)


def code_frame_format(style: MarkdownStyle) -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setBackground(style.background)
    fmt.setBorder(1)
    fmt.setBorderBrush(style.border)
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setPadding(8)
    fmt.setTopMargin(4)
    fmt.setBottomMargin(4)
    fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
    return fmt


def monospace_family() -> str:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
