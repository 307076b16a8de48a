"""Where a row's tag chips go: one layout for painting them and for finding the chip
under the mouse (a click on a chip filters the list by its tag).

Chips are right-aligned on the row's second line, as many as fit in 55 % of its width
and leave the row's date room at its left, then a ``+N`` chip for the rest (it has no
tag: clicking it does nothing). The date always stays: the chips give way first, then the
rest of the detail line (``agent · N msgs``) is elided before the date. Laying out a
row measures only the chips that can fit (and long tags only up to ``LABEL_CHARS``), so
a row with 100,000 tags paints as fast as one with three.
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
#: The most characters a chip shows of its tag.
LABEL_CHARS = 40


@dataclass(frozen=True)
class Chip:
    label: str  # the text painted (plain, one line)
    tag: str | None  # the tag it stands for; None for the "+N" chip
    rect: QRectF


def chip_label(tag: str) -> str:
    """What a chip says for ``tag``: one line, at most ``LABEL_CHARS`` characters (an
    imported tag may be long; what is measured per paint stays bounded)."""
    text = str(tag)
    if len(text) > LABEL_CHARS:
        text = text[: LABEL_CHARS - 1] + "…"
    return _line(text)


def chip_layout(
    tags: Sequence[str], fm: QFontMetrics, height: int, line: QRect, keep: int = 0
) -> list[Chip]:
    """The chips of ``tags`` on ``line``, left to right (empty when none fit), leaving
    ``keep`` pixels free at the line's left (the date): as many of the first tags as fit
    with a ``+N`` chip for the rest.

    The work is bounded by what fits, never by how many tags there are: tags are measured
    one by one until their chips alone overflow the room (every chip is at least
    ``2 * CHIP_PAD`` wide), so a row with 100,000 tags measures a handful."""
    count = len(tags)
    if not count:
        return []
    room = min(int(line.width() * ROOM), line.width() - keep - CHIP_GAP)

    def width_of(label: str) -> int:
        return fm.horizontalAdvance(label) + 2 * CHIP_PAD

    labels: list[str] = []
    widths: list[int] = []
    ends = [0]  # ends[k]: the width of the first k chips with their gaps
    for tag in tags:
        if ends[-1] > room:
            break  # more chips only add width: no longer prefix can fit
        labels.append(chip_label(tag))
        widths.append(width_of(labels[-1]))
        ends.append(ends[-1] + (CHIP_GAP if len(widths) > 1 else 0) + widths[-1])
    for kept in range(len(labels), -1, -1):
        hidden = count - kept
        shown = list(zip(labels[:kept], widths[:kept], strict=True))
        total = ends[kept]
        if hidden:
            more = f"+{hidden}"
            shown.append((more, width_of(more)))
            total += (CHIP_GAP if kept else 0) + shown[-1][1]
        if total <= room:
            break
    else:
        return []
    chips: list[Chip] = []
    x = line.right() + 1 - total
    for i, (label, w) in enumerate(shown):
        name = str(tags[i]) if i < kept else None
        chips.append(Chip(label, name, QRectF(x, line.top(), w, height)))
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
