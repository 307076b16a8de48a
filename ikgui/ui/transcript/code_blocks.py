"""Code blocks of a rendered Markdown document: each run of code lines goes into a padded
frame headed by its language and a Copy link, its lines wrap with a hanging indent (a
wrapped line continues under its own indentation, never at column 0), and Pygments
colours it (:mod:`ikgui.ui.transcript.highlight`).

The Copy link (``ikgui-copy:<event id>/<n>``) names the item's ``n``-th fenced block;
:func:`code_source` finds that block's exact source in the item's text (tabs included,
which Qt's Markdown reader turns into spaces).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QTimer, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
)

from ikgui.domain.text.safe import one_line

COPY_SCHEME = "ikgui-copy"
COPY_LABEL = "Copy"
#: What the link says for a moment after a click.
COPIED_LABEL = "Copied ✓"
#: The label of a block without a language.
NO_LANGUAGE = "code"
#: Block property of a code block's header line (copying a selection leaves it out).
HEADER_PROPERTY = QTextFormat.Property.UserProperty + 40
#: A wrapped code line continues this many columns right of its own indentation.
HANG = 2
_KEEP = QTextCursor.MoveMode.KeepAnchor
_LANGUAGE = QTextFormat.Property.BlockCodeLanguage
_FENCE = QTextFormat.Property.BlockCodeFence
#: An opening fence, possibly inside block quotes and a list item.
_OPENING = re.compile(
    r"^(?P<prefix>(?:[ ]{0,3}>[ ]?)*)(?P<indent>[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)"
    r"(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$"
)


@dataclass(frozen=True)
class CodeLook:
    """How code blocks look: the frame's colours, the header's, and the code font."""

    background: QColor
    border: QColor
    label: QColor
    link: QColor
    font: QFont | None = None


@dataclass
class Run:
    """Consecutive code lines of one block: their first block, how many there are, and
    (for a fenced block matched to the source) its number among the fenced blocks."""

    first: QTextBlock
    count: int
    language: str
    fenced: bool
    number: int | None = None

    def text(self) -> str:
        lines = []
        block = self.first
        for _ in range(self.count):
            lines.append(block.text())
            block = block.next()
        return "\n".join(lines)


def is_code_block(fmt: QTextBlockFormat) -> bool:
    """Fenced and indented code alike (Qt marks both with a code language, maybe empty)."""
    return fmt.hasProperty(_FENCE) or fmt.hasProperty(_LANGUAGE)


def code_runs(
    document: QTextDocument, sizes: list[int] | None = None, start: int = 0, end: int = -1
) -> list[Run]:
    """The code blocks of ``document`` in order (a change of language starts a new one),
    or of its part from ``start`` to ``end``.

    Qt's reader leaves no trace of where two fenced blocks of one language meet; given
    ``sizes`` (the line counts of the source's fenced blocks, :func:`fenced_blocks`),
    runs of fenced lines are split and numbered by them."""
    runs: list[Run] = []
    previous = -2
    block = document.findBlock(start) if start else document.begin()
    while block.isValid() and (end < 0 or block.position() <= end):
        fmt = block.blockFormat()
        if is_code_block(fmt) and not fmt.hasProperty(HEADER_PROPERTY):
            language = str(fmt.property(_LANGUAGE) or "")
            if block.blockNumber() == previous + 1 and runs[-1].language == language:
                runs[-1].count += 1
            else:
                runs.append(Run(block, 1, language, fmt.hasProperty(_FENCE)))
            previous = block.blockNumber()
        block = block.next()
    return runs if sizes is None else _split(runs, sizes)


def _split(runs: list[Run], sizes: list[int]) -> list[Run]:
    queue = [(number, size) for number, size in enumerate(sizes) if size > 0]
    queue.reverse()
    result: list[Run] = []
    for run in runs:
        if not run.fenced:
            result.append(run)
            continue
        block, left = run.first, run.count
        while left > 0:
            number: int | None = None
            size = left
            if queue and queue[-1][1] <= left:
                number, size = queue.pop()
            result.append(Run(block, size, run.language, True, number))
            for _ in range(size):
                block = block.next()
            left -= size
    return result


def frame_code_blocks(
    document: QTextDocument,
    look: CodeLook,
    sizes: list[int] | None = None,
    code_id: int | None = None,
    first: int = 0,
) -> list[Run]:
    """Put each code block in a padded frame with a header (its language and, with a
    ``code_id``, a Copy link numbered from ``first``); returns the blocks, in order.
    ``sizes``: as for :func:`code_runs`."""
    runs = code_runs(document, sizes)
    cursor = QTextCursor(document)
    unit = _column_width(look.font)
    for run in reversed(runs):
        formats = []
        block = run.first
        for _ in range(run.count):
            formats.append(block.blockFormat())
            block = block.next()
        cursor.setPosition(run.first.position())
        cursor.movePosition(QTextCursor.MoveOperation.NextBlock, _KEEP, run.count - 1)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, _KEEP)
        frame = cursor.insertFrame(code_frame_format(look))
        # Qt hands the first block's format to the frame's start; put them back, each
        # line with its hanging indent.
        block = frame.firstCursorPosition().block()
        for fmt in formats:
            QTextCursor(block).setBlockFormat(_hanging(fmt, block.text(), unit))
            block = block.next()
        run.first = frame.firstCursorPosition().block()
        href = ""
        if code_id is not None and run.number is not None:
            href = f"{COPY_SCHEME}:{code_id}/{first + run.number}"
        _insert_header(frame.firstCursorPosition(), run, look, href)
        run.first = run.first.next()
    if runs:
        _shrink_gaps(document)
    return runs


def _hanging(fmt: QTextBlockFormat, text: str, unit: float) -> QTextBlockFormat:
    """``fmt`` wrapping with a hanging indent: wrapped lines start ``HANG`` columns right
    of the line's own indentation (Qt has turned tabs into spaces)."""
    fmt = QTextBlockFormat(fmt)
    fmt.setNonBreakableLines(False)
    indent = (len(text) - len(text.lstrip(" ")) + HANG) * unit
    fmt.setLeftMargin(indent)
    fmt.setTextIndent(-indent)
    return fmt


def _column_width(font: QFont | None) -> float:
    code = QFont(font) if font is not None else QFont()
    code.setFamilies([monospace_family()])
    code.setFixedPitch(True)
    if font is not None:
        code.setPointSizeF(code_point_size(font))
    return QFontMetricsF(code).horizontalAdvance(" ")


def code_point_size(font: QFont) -> float:
    """The point size of code next to body text in ``font``."""
    return max(font.pointSizeF() * 0.92, 6.0)


def monospace_family() -> str:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def _insert_header(cursor: QTextCursor, run: Run, look: CodeLook, href: str) -> None:
    """A header line before the frame's first code line: the language, then Copy."""
    code_char = cursor.charFormat()
    code_block = cursor.blockFormat()
    cursor.insertBlock(code_block, code_char)  # the first code line moves down
    cursor.movePosition(QTextCursor.MoveOperation.PreviousBlock)
    header = QTextBlockFormat()
    header.setProperty(HEADER_PROPERTY, bool(href))
    header.setBottomMargin(6)
    header.setNonBreakableLines(True)
    cursor.setBlockFormat(header)
    small = (look.font.pointSizeF() if look.font is not None else 9.0) * 0.85
    label = QTextCharFormat()
    label.setForeground(look.label)
    label.setFontPointSize(max(small, 6.0))
    label.setFontWeight(QFont.Weight.DemiBold)
    cursor.setBlockCharFormat(label)
    language = one_line(run.language.strip())[:40] or NO_LANGUAGE
    cursor.insertText(language, label)
    if href:
        gap = QTextCharFormat(label)
        gap.setFontWeight(QFont.Weight.Normal)
        cursor.insertText("   ·   ", gap)
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setAnchorHref(href)
        link.setForeground(look.link)
        link.setFontPointSize(max(small, 6.0))
        link.setToolTip("Copy this code")
        cursor.insertText(COPY_LABEL, link)


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


def code_frame_format(look: CodeLook) -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setBackground(look.background)
    fmt.setBorder(1)
    fmt.setBorderBrush(look.border)
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setPadding(8)
    fmt.setTopMargin(8)
    fmt.setBottomMargin(6)
    fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
    return fmt


def copy_link(url: QUrl) -> tuple[int, int] | None:
    """``(event id, block number)`` of a Copy link, else ``None``."""
    if url.scheme() != COPY_SCHEME:
        return None
    parts = url.path().split("/")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        return None
    return int(parts[0]), int(parts[1])


def fenced_blocks(text: str, dedent: bool = True) -> list[str]:
    """The source of each fenced code block of ``text`` (Markdown), in order: the lines
    between its fences, less the fence's indentation (unless not ``dedent``), exactly as
    written."""
    blocks: list[str] = []
    if "```" not in text and "~~~" not in text:
        return blocks
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        del lines[-1]  # the text's final line end
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        index += 1
        if opening is None or ("`" in opening["info"] and opening["fence"][0] == "`"):
            continue
        fence, prefix = opening["fence"], opening["prefix"]
        width = len(opening["indent"])
        body: list[str] = []
        while index < len(lines):
            line = lines[index]
            index += 1
            content = line[len(prefix) :] if prefix and line.startswith(prefix) else line
            stripped = content.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            body.append(_dedent(content, width) if dedent and width else content)
        blocks.append("\n".join(body))
    return blocks


def _dedent(line: str, width: int) -> str:
    """``line`` less up to ``width`` leading spaces (a fence's indentation)."""
    stripped = len(line) - len(line.lstrip(" "))
    return line[min(width, stripped) :]


def code_source(text: str, number: int) -> str | None:
    """The exact source of the ``number``-th fenced block of ``text``, if there is one."""
    blocks = fenced_blocks(text)
    return blocks[number] if 0 <= number < len(blocks) else None


def relabel_copy(document: QTextDocument, href: str, label: str) -> bool:
    """Show ``label`` as the text of the Copy link ``href`` (e.g. "Copied" for a moment);
    ``False`` if the link is no longer in ``document``."""
    block = document.begin()
    while block.isValid():
        if block.blockFormat().hasProperty(HEADER_PROPERTY):
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                fmt = fragment.charFormat()
                if fmt.isAnchor() and fmt.anchorHref() == href:
                    cursor = QTextCursor(document)
                    cursor.setPosition(fragment.position())
                    cursor.setPosition(fragment.position() + fragment.length(), _KEEP)
                    cursor.insertText(label, fmt)
                    return True
                it += 1
        block = block.next()
    return False


def show_copied(document: QTextDocument, href: str, ms: int = 1500) -> None:
    """The Copy link ``href`` says "Copied ✓" for ``ms`` milliseconds."""
    if relabel_copy(document, href, COPIED_LABEL):
        QTimer.singleShot(ms, document, lambda: relabel_copy(document, href, COPY_LABEL))
