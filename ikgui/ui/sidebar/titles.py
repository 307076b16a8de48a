"""How a branch's title fits its row (issue 25): the part that tells sibling branches
apart — ``branch 2`` in ``↳ Write unit tests for date par… · branch 2``, the model in
``Question · gpt-4o`` — is never elided; the shared start gives way instead
(``Write unit te… · branch 2``). The ``↳`` a fork's default title starts with is not
painted: a branch row says what it is by its glyph (a fork) or its second line (an
edited version, a retried reply), and its indentation."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

#: Between a branch title's shared start and its own part (``fork_title``, compare).
SEPARATOR = " · "
#: The mark a fork's default title starts with (not painted on a branch's row).
ARROW = "↳ "
#: The shared start keeps at least this many characters before its ellipsis, or is
#: left out whole (``…· branch 2``): the own part comes first.
MIN_HEAD = 4


def shown_title(title: str, branch: bool) -> str:
    """The title as painted: a branch's without its leading ``↳``."""
    return title[len(ARROW) :] if branch and title.startswith(ARROW) else title


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


def _base(title: str) -> str:
    """A title's shared start: before its own part, without ``↳`` and a trailing ``…``."""
    shown = shown_title(title, True)
    at = own_part(shown)
    return (shown[:at] if at > 0 else shown).rstrip("…").rstrip()


def own_words(title: str, parent_title: str | None) -> str | None:
    """A branch's own part (``branch 3``, ``gpt-4o-mini``) when the rest of its title
    is its parent's (the shared start, perhaps cut); ``None`` when its title is its own
    (``/fork PROMPT``, a title the user gave)."""
    shown = shown_title(title, True)
    at = own_part(shown)
    if at <= 0 or not parent_title:
        return None
    head = shown[:at].rstrip("…").rstrip()
    parent = shown_title(parent_title, True)
    if head and (parent.startswith(head) or _base(parent_title).startswith(head)):
        return shown[at + len(SEPARATOR) :]
    return None
