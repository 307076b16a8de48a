"""How a branch's title fits its row (issue 25): the part that tells sibling branches
apart — ``branch 2`` in ``↳ Write unit tests for date par… · branch 2``, the model in
``Question · gpt-4o`` — is never elided; the shared start gives way instead
(``Write unit te… · branch 2``). The ``↳`` a fork's default title starts with is left
to the row's branch glyph."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

#: Between a branch title's shared start and its own part (``fork_title``, compare).
SEPARATOR = " · "
#: The mark a fork's default title starts with (the row paints a glyph instead).
ARROW = "↳ "
#: The shared start keeps at least this many characters before its ellipsis, or is
#: left out whole (``…· branch 2``): the own part comes first.
MIN_HEAD = 4


def shown_title(title: str, glyph: bool) -> str:
    """The title as painted: without its leading ``↳`` when the row paints the glyph."""
    return title[len(ARROW) :] if glyph and title.startswith(ARROW) else title


def own_part(title: str) -> int:
    """Where a branch title's own part starts (the text after its last ``·``
    separator), or ``-1`` when it has none."""
    at = title.rfind(SEPARATOR)
    return at if at > 0 else -1


def fit_branch_title(title: str, metrics: QFontMetrics, width: int) -> str:
    """``title`` within ``width`` pixels, its own part kept whole and the start elided
    (a title without an own part elided at its end; an own part wider than the row
    comes first, after an ellipsis, and is elided at its end)."""
    if metrics.horizontalAdvance(title) <= width:
        return title
    at = own_part(title)
    if at < 0:
        return metrics.elidedText(title, Qt.TextElideMode.ElideRight, width)
    tail = title[at:]
    room = width - metrics.horizontalAdvance(tail)
    head = metrics.elidedText(title[:at], Qt.TextElideMode.ElideRight, room) if room > 0 else ""
    if len(head) <= min(MIN_HEAD, at):  # the ellipsis and a letter or two: no start
        return metrics.elidedText("…" + tail.lstrip(), Qt.TextElideMode.ElideRight, width)
    return head + tail
