"""What Qt must lay out again, counted instead of timed (tests never compare seconds).

A document's layout redoes the blocks a change touched: every paragraph, list item and
table cell is a block, and its cost grows with its characters and its format runs.
:class:`LayoutWork` records, for each pass of the event loop, the blocks the document's
changes touched in that pass (``contentsChange``), so a test can say "no pass of the
loop lays out more than one item's budget" on any machine, however busy. A 0 ms timer
marks the passes: everything between two of its ticks ran in one pass (or in a few
passes together, which only counts more).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextBlock, QTextDocument


@dataclass(frozen=True)
class Work:
    """What one pass of the loop laid out again."""

    blocks: int = 0
    chars: int = 0
    runs: int = 0


def _runs(block: QTextBlock) -> int:
    count = 0
    it = block.begin()
    while not it.atEnd():
        count += 1
        it += 1
    return count


class LayoutWork:
    """Use as a context manager around what a test drives; then :meth:`most`."""

    def __init__(self, document: QTextDocument) -> None:
        self.document = document
        #: The work of each pass that changed the document, in order.
        self.passes: list[Work] = []
        # A block (by its index in Qt's block map, stable while it lives) -> its length
        # and format runs when last touched in this pass.
        self._touched: dict[int, tuple[int, int]] = {}
        self._timer = QTimer()
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._end_pass)

    def __enter__(self) -> LayoutWork:
        self.document.contentsChange.connect(self._changed)
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.stop()
        self.document.contentsChange.disconnect(self._changed)
        self._end_pass()

    def _changed(self, position: int, removed: int, added: int) -> None:
        block = self.document.findBlock(position)
        end = position + added
        while block.isValid() and block.position() <= end:
            self._touched[block.fragmentIndex()] = (block.length(), _runs(block))
            block = block.next()

    def _end_pass(self) -> None:
        if self._touched:
            values = self._touched.values()
            self.passes.append(
                Work(len(values), sum(v[0] for v in values), sum(v[1] for v in values))
            )
            self._touched = {}

    def most(self) -> Work:
        """The most blocks, characters and format runs laid out in one pass (each the
        largest over all passes)."""
        return Work(
            max((w.blocks for w in self.passes), default=0),
            max((w.chars for w in self.passes), default=0),
            max((w.runs for w in self.passes), default=0),
        )
