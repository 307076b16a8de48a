"""A streaming reply shown as it will end up: its finished Markdown blocks rendered (by the
same safe path as a finished reply, :func:`~ikgui.ui.transcript.markdown.render_markdown`),
only the unfinished last block as plain text — unless that block is a fenced code block
on its way: then it streams inside its code box (issue 20 item 15), rendered once when
its opening fence line is complete, by the same path (so the same frame, header and
monospace font), and growing line by line inside the box. It is coloured when it closes.

The item's frame holds, while the reply grows: the label, the rendered blocks, then the
plain *tail* (from ``Live.tail`` on). When :class:`~ikgui.ui.transcript.stream_blocks.Blocks`
says more blocks are finished, the tail is taken out, those blocks are rendered as one
fragment at the end of the rendered ones and the rest of the tail is written again: the
work is the new blocks and the tail, never the whole reply. When the reply ends, only
what is still unrendered is rendered, so the final layout is the one already on screen,
and equal to the whole reply rendered at once (the joins between fragments are mended to
what one render gives: Qt starts a fragment that opens with a table or a rule with an
empty block, and gives an empty block the format of a fragment inserted into it).
"""

from __future__ import annotations

import bisect
import functools
import re

from PySide6.QtGui import (
    QImage,
    QPainter,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
    QTextFrame,
    QTextTable,
)
from PySide6.QtWidgets import QWidget

from ikgui.domain.text.safe import reveal_bidi
from ikgui.ui.transcript.body import BodyWriter
from ikgui.ui.transcript.items import Colors, body_formats
from ikgui.ui.transcript.markdown import render_markdown
from ikgui.ui.transcript.render_budget import STREAM_LIMIT, fence_after, head_of, plan
from ikgui.ui.transcript.stream_blocks import Blocks, Budget

_KEEP = QTextCursor.MoveMode.KeepAnchor
_RULE = QTextFormat.Property.BlockTrailingHorizontalRulerWidth
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\S", re.MULTILINE)
#: Characters of finished blocks rendered at most per delta (a few ms of Qt's time), so
#: a burst of text never holds the event loop for long.
RENDER_SLICE = 4_000


class Live:
    """The rendering state of one growing reply."""

    __slots__ = (
        "blocks",
        "box",
        "box_char",
        "box_shown",
        "budget",
        "code",
        "code_blocks",
        "event_id",
        "frozen",
        "rendered",
        "tail",
        "text",
    )

    def __init__(self, text: str, tail: int, event_id: int = 0) -> None:
        self.event_id = event_id
        #: Fenced code blocks rendered so far (their Copy links count them).
        self.code_blocks = 0
        #: The reply's text shown so far (at most ``STREAM_LIMIT`` characters).
        self.text = text
        self.blocks = Blocks()
        self.budget = Budget()
        #: ``text[:rendered]`` is rendered as Markdown.
        self.rendered = 0
        #: Where the plain tail's first block starts, from the frame's first position.
        self.tail = tail
        #: No more blocks are rendered (over the render budget, or at the stream cap):
        #: the finished reply is then rendered whole, as before.
        self.frozen = False
        #: A code block is rendered (so the gaps beside frames have no height).
        self.code = False
        #: The code box of the open fenced block at the end of the tail, which the text
        #: arriving goes into (``None``: the tail is plain text), and its code's format.
        self.box: QTextFrame | None = None
        self.box_char = QTextCharFormat()
        #: ``text[:box_shown]`` is in the box (a last line that may be the closing fence,
        #: and a last line end, wait for what follows).
        self.box_shown = 0


def fits(text: str) -> bool:
    """Whether ``text`` renders whole as one Markdown fragment (within the budget) and
    its blocks render alone as they do together (no link reference definitions, which
    change links in the blocks before them)."""
    if head_of(text) != text or _REFERENCE.search(text):
        return False
    return all(segment.table is None for segment in plan(text))


class StreamRenderer:
    """Renders the finished blocks of growing replies in one document."""

    def __init__(self, document: QTextDocument, body: BodyWriter) -> None:
        self.document = document
        self.body = body

    def start(self, frame: QTextFrame, body_start: int, text: str, event_id: int = 0) -> Live:
        """The state of a reply whose plain text so far starts at ``body_start``."""
        live = Live(text[:STREAM_LIMIT], body_start - frame.firstPosition(), event_id)
        live.frozen = len(text) >= STREAM_LIMIT
        if not live.frozen:
            cursor = QTextCursor(self.document)
            cursor.setPosition(body_start)
            cursor.setPosition(frame.lastPosition(), _KEEP)
            cursor.mergeBlockFormat(tail_format(text))
        self.advance(frame, live)
        return live

    def grow(self, frame: QTextFrame, live: Live, text: str) -> None:
        """``text`` arrived (already written at the end of the tail): render what it
        finished."""
        live.text += text
        live.frozen = live.frozen or len(live.text) >= STREAM_LIMIT
        self.advance(frame, live)
        self.open_box(frame, live)

    def write(self, live: Live, text: str) -> bool:
        """Write arriving ``text`` into the open code box, if there is one (``False``:
        the caller writes it at the end of the tail, as plain text)."""
        if live.box is None or live.frozen:
            return False
        whole = live.text + text
        end = _shown_end(whole, live.box_shown)
        if end > live.box_shown:
            cursor = QTextCursor(self.document)
            cursor.setPosition(live.box.lastPosition())
            # (a line end starts a new code line, in the format of the one before)
            cursor.insertText(reveal_bidi(whole[live.box_shown : end]), live.box_char)
            live.box_shown = end
        return True

    def open_box(self, frame: QTextFrame, live: Live) -> None:
        """When the tail is a fenced code block still open (its opening line complete),
        show it in its code box from now on."""
        if live.frozen or live.box is not None:
            return
        tail = live.text[live.rendered :]
        if len(tail) > RENDER_SLICE or not _open_fence(tail):
            return
        shown = _shown_end(tail, 0)
        highlight, self.body.highlight = self.body.highlight, False  # (coloured when done)
        try:
            fragment = self.body.rendered(
                tail[:shown].lstrip("\n"),
                live.event_id,
                live.code_blocks,
                continued=live.rendered > 0,
            )
        finally:
            self.body.highlight = highlight
        # As :meth:`_render` writes blocks: from the end of the block before the tail,
        # which the fragment's empty first block joins (the tail starts where it did).
        cursor = QTextCursor(self.document)
        cursor.beginEditBlock()
        cursor.setPosition(frame.firstPosition() + live.tail - 1)
        joint = cursor.block()
        at = joint.position()
        kept = (joint.blockFormat(), joint.charFormat()) if not joint.text() else None
        cursor.setPosition(frame.lastPosition(), _KEEP)
        cursor.removeSelectedText()
        _restore(self.document.findBlock(at), kept)
        cursor.insertFragment(QTextDocumentFragment(fragment))
        _restore(self.document.findBlock(at), kept)
        cursor.endEditBlock()
        boxes = [f for f in frame.childFrames() if not isinstance(f, QTextTable)]
        box = boxes[-1] if boxes else None
        if box is None or box.firstPosition() < frame.firstPosition() + live.tail:
            return  # (no box came of it: the tail stays as written, until it renders)
        live.box, live.box_shown = box, live.rendered + shown
        end = QTextCursor(self.document)
        end.setPosition(box.lastPosition())
        live.box_char = QTextCharFormat(end.block().charFormat())
        if not end.block().text():
            end.movePosition(QTextCursor.MoveOperation.PreviousBlock)
        live.box_char = QTextCharFormat(end.charFormat()) if end.block().text() else live.box_char

    def advance(self, frame: QTextFrame, live: Live) -> None:
        if live.frozen:
            return
        done = live.blocks.feed(live.text)
        if done <= live.rendered:
            return
        if done - live.rendered > RENDER_SLICE:  # the rest at the next delta (or the end)
            ends = live.blocks.ends
            first = bisect.bisect_right(ends, live.rendered)  # (one block at least)
            last = bisect.bisect_right(ends, live.rendered + RENDER_SLICE, lo=first + 1)
            done = ends[last - 1]
        if not live.budget.spend(live.text[live.rendered : done]):
            live.frozen = True
            return
        self._render(frame, live, done)

    def finish(self, frame: QTextFrame, live: Live, text: str) -> bool:
        """The reply ended with ``text``: render the rest after what is rendered, if
        that gives the same as rendering it whole; ``False``: render it whole."""
        if live.frozen or not text.startswith(live.text) or not fits(text):
            return False
        live.text = text  # (with the last deltas, which the end may bring itself)
        self._render(frame, live, len(text), tail=False)
        return True

    def _render(self, frame: QTextFrame, live: Live, done: int, tail: bool = True) -> None:
        live.box = None  # (the tail is written again: the box with it)
        cursor = QTextCursor(self.document)
        cursor.beginEditBlock()
        cursor.setPosition(frame.firstPosition() + live.tail - 1)
        joint = cursor.block()
        at = joint.position()  # (a block handle may not survive the edits; this does)
        # Qt gives an empty block the format of what is joined to it (a rule would lose
        # its line): the joint keeps its own.
        kept = (joint.blockFormat(), joint.charFormat()) if not joint.text() else None
        cursor.setPosition(frame.lastPosition(), _KEEP)
        cursor.removeSelectedText()
        part = live.text[live.rendered : done]
        if part.strip():
            fragment = self.body.rendered(
                part, live.event_id, live.code_blocks, continued=live.rendered > 0
            )
            live.code_blocks += fragment.code_blocks
            _restore(self.document.findBlock(at), kept)
            start = cursor.position()
            cursor.insertFragment(QTextDocumentFragment(fragment))
            self.body.adopt(fragment, self.document, start, cursor.position())
            if live.rendered and _leading_empty(fragment):
                _merge_next(self.document.findBlock(at))
            _restore(self.document.findBlock(at), kept)
            if not live.code and has_code(fragment):
                live.code = True
                at = frame.firstPosition()  # (all gaps, once)
        live.rendered = done
        if tail:
            block, char = body_formats("assistant", "", self.body.font, self.body.colors)
            rest = live.text[done:].lstrip("\n")
            block.merge(tail_format(rest))
            cursor.setPosition(frame.lastPosition())
            cursor.insertBlock(block, char)
            live.tail = cursor.position() - frame.firstPosition()
            if rest:
                cursor.insertText(reveal_bidi(rest), char)
        cursor.endEditBlock()
        if live.code and part.strip():  # (Qt knows the new frames after the edit block)
            end = frame.firstPosition() + live.tail - 1 if tail else frame.lastPosition()
            shrink_gaps(frame, self.document.findBlock(at), end)


def _open_fence(tail: str) -> bool:
    """Whether ``tail`` ends inside a fenced code block opened at a line's very start
    (not indented into a list item, not quoted: their lines arrive with prefixes the box
    would show) whose opening line is complete."""
    fence = ""
    lines = tail.split("\n")[:-1]  # (complete lines only)
    opened_plain = False
    for line in lines:
        was = fence
        fence = fence_after(fence, line)
        if fence and not was:
            opened_plain = line[:1] in ("`", "~")
    return bool(fence) and opened_plain


def _shown_end(text: str, start: int) -> int:
    """How much of a growing code block's ``text`` its box shows: not a last line end
    (the line after it may close the block), nor a last line that may be the closing
    fence, complete or not (never less than ``start``, what is shown already)."""
    end = len(text)
    for _ in range(2):
        line_start = text.rfind("\n", start, end) + 1
        last = text[line_start:end].strip()
        if line_start == 0 or (last and not (set(last) <= {"`"} or set(last) <= {"~"})):
            break
        end = line_start - 1  # (the line end before it waits too)
    return max(end, start)


def tail_format(text: str) -> QTextBlockFormat:
    """The unfinished block's spacing: a paragraph's (Qt's Markdown margins), so the
    text does not move when it renders; none for code on its way (its lines stay
    together, as in the code block they become)."""
    fmt = QTextBlockFormat()
    if not text.startswith(("```", "~~~", "    ", "\t")):
        paragraph = _paragraph_format()
        fmt.setTopMargin(paragraph.topMargin())
        fmt.setBottomMargin(paragraph.bottomMargin())
    return fmt


@functools.cache
def _paragraph_format() -> QTextBlockFormat:
    """The block format Qt's Markdown import gives a paragraph."""
    document = render_markdown("x")  # (kept alive while its blocks are read)
    return QTextBlockFormat(document.begin().next().blockFormat())


def has_code(document: QTextDocument) -> bool:
    """Whether a rendered fragment has a code block (its frames other than tables)."""
    return any(not isinstance(f, QTextTable) for f in document.rootFrame().childFrames())


#: A tiny reply with every kind of block: rendered and painted once off-screen after the
#: window's first paint, so the first reply does not pay for Qt's first Markdown import,
#: table and code layout and glyphs (a few ms, up to 10 on this machine).
WARM_UP = (
    "## Heading\n\nSome **bold**, *italic*, `code` and [a link](https://example.com).\n\n"
    "- item\n\n1. item\n\n> quote\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n"
    "```python\nprint('hi')\n```\n"
)


def warm_up(widget: QWidget) -> None:
    """Render :data:`WARM_UP` in ``widget``'s font and palette and paint it off-screen."""
    document = render_markdown(WARM_UP, Colors.from_palette(widget.palette()).markdown())
    document.setDefaultFont(widget.font())
    document.setTextWidth(480)
    image = QImage(480, 480, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    document.drawContents(painter)
    painter.end()


def shrink_gaps(frame: QTextFrame, block: QTextBlock, last: int) -> None:
    """From ``block`` to position ``last``: the empty blocks beside a table or code
    frame drawn with no height, as :func:`~ikgui.ui.transcript.markdown.render_markdown`
    draws them in a reply with code."""
    first = frame.firstPosition()

    def framed(other: QTextBlock) -> bool:
        inside = other.isValid() and first <= other.position() <= frame.lastPosition()
        return inside and QTextCursor(other).currentFrame() != frame

    gap = QTextBlockFormat()
    gap.setLineHeight(0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
    while block.isValid() and block.position() <= last:
        fmt = block.blockFormat()
        if (
            not block.text()
            and not fmt.hasProperty(QTextFormat.Property.LineHeight)
            and not fmt.hasProperty(_RULE)
            and QTextCursor(block).currentFrame() == frame
            and (framed(block.previous()) or framed(block.next()))
        ):
            QTextCursor(block).mergeBlockFormat(gap)
        block = block.next()


def _restore(block: QTextBlock, kept: tuple[QTextBlockFormat, QTextCharFormat] | None) -> None:
    if kept is not None:
        cursor = QTextCursor(block)
        cursor.setBlockFormat(kept[0])
        cursor.setBlockCharFormat(kept[1])


def _leading_empty(fragment: QTextDocument) -> bool:
    """Whether the fragment's content (after its empty first block) begins with the empty
    block Qt puts before a table or a rule at a document's start (one render of the whole
    reply has none there; the gap before a code frame it has)."""
    second = fragment.begin().next()
    third = second.next()
    if not third.isValid() or second.text() or second.blockFormat().hasProperty(_RULE):
        return False
    return third.blockFormat().hasProperty(_RULE) or isinstance(
        QTextCursor(third).currentFrame(), QTextTable
    )


def _merge_next(block: QTextBlock) -> None:
    """Remove the empty block after ``block`` (joining it to ``block``)."""
    following = block.next()
    if not following.isValid() or following.text():
        return
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    cursor.setPosition(following.position() + following.length() - 1, _KEEP)
    cursor.removeSelectedText()
