"""Where a row's tag chips go: one layout for painting them and for finding the chip
under the mouse (a click on a chip filters the list by its tag).

Chips are right-aligned on the row's second line, as many as fit in 55 % of its width
and leave the row's date room at its left, then a ``+N`` chip for the rest (it has no
tag: clicking it does nothing). The date always stays: the chips give way first, then the
rest of the detail line (``agent · N msgs``) is elided before the date.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QFontMetrics

from ikgui.ui.plain import line as _line

CHIP_PAD = 6
CHIP_GAP = 4
#: Between the parts of the detail line (``agent · N msgs · date``).
SEPARATOR = " · "
ROOM = 0.55


@dataclass(frozen=True)
class Chip:
    label: str  # the text painted (plain, one line)
    tag: str | None  # the tag it stands for; None for the "+N" chip
    rect: QRectF


def chip_layout(
    tags: Sequence[str], fm: QFontMetrics, height: int, line: QRect, keep: int = 0
) -> list[Chip]:
    """The chips of ``tags`` on ``line``, left to right (empty when none fit), leaving
    ``keep`` pixels free at the line's left (the date)."""
    if not tags:
        return []
    room = min(int(line.width() * ROOM), line.width() - keep - CHIP_GAP)

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


@dataclass(frozen=True)
class SecondLine:
    """A row's second line as painted: the detail text (elided before its date, which is
    kept whole), where the date ends up, and the chips."""

    text: str
    date: QRect  # empty when the row has no date
    chips: list[Chip]


def second_line(
    detail: str, date: str, tags: Sequence[str], fm: QFontMetrics, height: int, line: QRect
) -> SecondLine:
    """Lay out ``detail`` (which ends with ``date``) and the chips of ``tags`` on ``line``."""
    date_w = fm.horizontalAdvance(date) if date and detail.endswith(date) else 0
    chips = chip_layout(tags, fm, height, line, date_w)
    right = int(chips[0].rect.left()) - CHIP_GAP if chips else line.right() + 1
    room = max(0, right - line.left())
    if fm.horizontalAdvance(detail) <= room or not date_w:
        text = fm.elidedText(detail, Qt.TextElideMode.ElideRight, room)
    else:
        head = detail[: -len(date)]
        tail = SEPARATOR + date if head.endswith(SEPARATOR) else date
        head = head[: len(head) - len(tail) + len(date)]
        room_left = room - fm.horizontalAdvance(tail)
        text = fm.elidedText(head, Qt.TextElideMode.ElideRight, room_left) + tail
    if not date_w:
        return SecondLine(text, QRect(), chips)
    end = line.left() + fm.horizontalAdvance(text)
    return SecondLine(text, QRect(end - date_w, line.top(), date_w, height), chips)
