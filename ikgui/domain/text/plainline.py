"""Markdown as one line of words: what an automatic title, a fork point in the Branches
view or any other one-line excerpt of a message shows.

Messages are Markdown; a one-line place shows what they *say*, not how they are marked
up: fences and their language, heading ``#``, quote ``>``, list bullets, emphasis, inline
code backticks and table pipes go; a link shows its text, an image its description;
whitespace (newlines included) collapses to single spaces. Other control characters
stay as they are: where the line is shown, :func:`~ikgui.domain.text.safe.one_line`
escapes them as for any untrusted text.
"""

from __future__ import annotations

import re

#: A fence line: its backticks or tildes and any language or info after them.
_FENCE = re.compile(r"^[ \t]*(?:>[ \t]?)*(?:`{3,}|~{3,})[^\n]*$", re.MULTILINE)
#: Block markers at a line's start: quotes, headings, bullets and numbers of list items.
_LINE_START = re.compile(
    r"^[ \t]*(?:>[ \t]?)*[ \t]*(?:#{1,6}(?=[ \t]|$)|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))?",
    re.MULTILINE,
)
#: A closing ``#`` run of a heading, a thematic break, a table's separator row.
_HEADING_END = re.compile(r"[ \t]+#+[ \t]*$", re.MULTILINE)
_RULE = re.compile(r"^[ \t]*(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$", re.MULTILINE)
_TABLE_RULE = re.compile(
    r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$", re.MULTILINE
)
#: Setext heading underlines (``===`` or ``---`` under a line).
_SETEXT = re.compile(r"^[ \t]*(?:=+|-+)[ \t]*$", re.MULTILINE)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]+)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
#: Emphasis: ``**x**``, ``__x__``, ``*x*``, ``_x_``, ``~~x~~`` (not the ``_`` inside
#: ``snake_case`` nor a ``*`` between spaces, as in ``2 * 3``).
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(
    r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"
)
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
#: Where an escaped ASCII mark waits (plane 15's private use area).
_ASIDE = 0xF0000
_ASIDE_CHAR = re.compile("[\U000f0000-\U000f007f]")
#: A table row (a line that starts and ends with a pipe): its pipes part its cells.
_TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$", re.MULTILINE)


def plain_line(text: str, limit: int | None = None, ellipsis: str = "…") -> str:
    """``text`` (Markdown) as one line of plain words, cut to ``limit`` characters plus
    ``ellipsis`` when longer."""
    words = " ".join(_unmark(text).split())
    if limit is not None and len(words) > limit:
        return words[:limit].rstrip() + ellipsis
    return words


def _unmark(text: str) -> str:
    if not any(mark in text for mark in "`~#>*_-+|[!<\\=0123456789"):
        return text  # (most titles: plain words already)
    text = _FENCE.sub("", text)
    text = _RULE.sub("", text)
    text = _TABLE_RULE.sub("", text)
    text = _SETEXT.sub("", text)
    text = _HEADING_END.sub("", text)
    text = _LINE_START.sub("", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _TABLE_ROW.sub(lambda m: m.group(1).replace("|", " "), text)
    # Code spans are shown as written (a ``*`` in code is code): emphasis is taken off
    # the text between them only.
    parts = _CODE.split(text)  # text, fence, code, fence, code…, text
    out = []
    for index in range(0, len(parts), 3):
        out.append(_unemphasize(parts[index]))
        if index + 2 < len(parts):
            out.append(parts[index + 2].strip())
    return "".join(out)


def _unemphasize(text: str) -> str:
    # An escaped mark (``\*``) is a character, not emphasis: it stands aside (as a
    # private-use character) while emphasis is taken off.
    text = _ESCAPED.sub(lambda m: chr(_ASIDE + ord(m.group(1))), text)
    for _ in range(2):  # (``***x***``: strong inside emphasis)
        text = _STRONG.sub(r"\2", text)
        text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
        text = _STRIKE.sub(r"\1", text)
    return _ASIDE_CHAR.sub(lambda m: chr(ord(m.group()) - _ASIDE), text)
