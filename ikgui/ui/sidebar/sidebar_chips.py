"""Where a row's tag chips go: one layout for painting them and for finding the chip
under the mouse (a click on a chip filters the list by its tag).

Chips are right-aligned on the row's second line, as many as fit in 55 % of its width,
then a ``+N`` chip for the rest (it has no tag: clicking it does nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QFontMetrics

from ikgui.ui.plain import line as _line

CHIP_PAD = 6
CHIP_GAP = 4
ROOM = 0.55


@dataclass(frozen=True)
class Chip:
    label: str  # the text painted (plain, one line)
    tag: str | None  # the tag it stands for; None for the "+N" chip
    rect: QRectF


def chip_layout(tags: Sequence[str], fm: QFontMetrics, height: int, line: QRect) -> list[Chip]:
    """The chips of ``tags`` on ``line``, left to right (empty when none fit)."""
    if not tags:
        return []
    room = int(line.width() * ROOM)

    def width_of(label: str) -> int:
        return fm.horizontalAdvance(label) + 2 * CHIP_PAD

    labels = [_line(str(t)) for t in tags]
    kept = len(labels)
    while kept:
        hidden = len(tags) - kept
        shown = labels[:kept] + ([f"+{hidden}"] if hidden else [])
        total = sum(width_of(t) for t in shown) + CHIP_GAP * (len(shown) - 1)
        if total <= room:
            break
        kept -= 1
    hidden = len(tags) - kept
    shown = labels[:kept] + ([f"+{hidden}"] if hidden else [])
    total = sum(width_of(t) for t in shown) + CHIP_GAP * (len(shown) - 1)
    if total > room:
        return []
    chips: list[Chip] = []
    x = line.right() + 1 - total
    for i, label in enumerate(shown):
        w = width_of(label)
        tag = str(tags[i]) if i < kept else None
        chips.append(Chip(label, tag, QRectF(x, line.top(), w, height)))
        x += w + CHIP_GAP
    return chips
