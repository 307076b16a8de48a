"""Fork and close notices by title (issue 12 item 3): the stored notice keeps its SPEC
text (``Forked from chat-7vun``: the ids stay for the command line) while the window
shows ``Forked from <title>`` with the title a link (``ikgui-conv:<id>``) that opens
that conversation; a fork notice ends with a ``Branches`` link (``ikgui-branches:<id>``)
that opens the Branches view. Titles are inserted as plain text, never as markup."""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextCharFormat, QTextCursor

from ikgui.domain.events import Event, Kind
from ikgui.domain.text.safe import one_line, reveal_bidi

CONV_SCHEME = "ikgui-conv"
BRANCHES_SCHEME = "ikgui-branches"
#: What a conversation id in a link may be.
_ID = re.compile(r"[\w.-]{1,128}")
#: How a title is looked up (``None``: the conversation is gone; its id is shown).
TitleLookup = Callable[[str], "str | None"]


def notice_parts(event: Event) -> tuple[str, str, str] | None:
    """``(words before, conversation id, words after)`` of a fork, close or reopen notice."""
    data = event.data
    if event.kind == Kind.FORK:
        if data.get("role") == "child":
            return _parts("Forked from ", data.get("parent_id"), "")
        return _parts("Forked child ", data.get("child_id"), "")
    if event.kind == Kind.AGENT_KILLED:
        count = data.get("count")
        more = f" and its branches ({count} closed)" if data.get("cascade") else ""
        return _parts("Closed ", data.get("target"), more)
    if event.kind == Kind.AGENT_REOPENED:
        return _parts("Reopened ", data.get("target"), "")
    return None


def is_valid_id(conv_id: str) -> bool:
    return _ID.fullmatch(conv_id) is not None


def _parts(before: str, conv_id: object, after: str) -> tuple[str, str, str] | None:
    if not isinstance(conv_id, str) or not is_valid_id(conv_id):
        return None
    return before, conv_id, after


def conv_link(url: QUrl) -> tuple[str, str] | None:
    """``(scheme, conversation id)`` of a notice's link; ``None`` for other links."""
    if url.scheme() not in (CONV_SCHEME, BRANCHES_SCHEME):
        return None
    conv_id = url.path()
    return (url.scheme(), conv_id) if is_valid_id(conv_id) else None


def write_branch_notice(
    cursor: QTextCursor, parts: tuple[str, str, str], char: QTextCharFormat, titles: TitleLookup
) -> None:
    """The notice's words with the conversation's title as a link, and a Branches link."""
    before, conv_id, after = parts
    title = titles(conv_id)
    shown = f"“{one_line(title)}”" if title else conv_id
    cursor.insertText(before, char)
    cursor.insertText(reveal_bidi(shown), _link(char, f"{CONV_SCHEME}:{conv_id}"))
    cursor.insertText(after, char)
    if before.startswith("Forked"):
        cursor.insertText("  ·  ", char)
        cursor.insertText("Branches", _link(char, f"{BRANCHES_SCHEME}:{conv_id}"))


def _link(char: QTextCharFormat, href: str) -> QTextCharFormat:
    fmt = QTextCharFormat(char)
    fmt.setAnchor(True)
    fmt.setAnchorHref(href)
    fmt.setFontUnderline(True)
    return fmt
