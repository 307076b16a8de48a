"""Syntax colours for code blocks, from Pygments' lexers and styles.

Only Pygments' token stream is used (never its HTML): each token type maps to a
``QTextCharFormat`` built from a light or a dark Pygments style, merged over the token's
range of the document. Pygments is imported on the first code block that needs colour
(not at start-up: the window's first paint leaves code plain and colours it right after).
A document's code is coloured up to :data:`HIGHLIGHT_LIMIT` characters; the rest stays
plain, so a huge reply keeps to the render budget.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextDocument

from ikgui.ui.transcript.code_blocks import Run, code_runs

#: Characters of code coloured per document at most (lexing and formatting ~1 ms per KB).
HIGHLIGHT_LIMIT = 24_000
#: The Pygments styles for light and dark backgrounds.
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
_KEEP = QTextCursor.MoveMode.KeepAnchor


@lru_cache(maxsize=64)
def lexer_for(language: str) -> Any | None:
    """The Pygments lexer of a fence's language name (``None`` if Pygments has none)."""
    name = language.strip().lower()
    if not name or len(name) > 40:
        return None
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


#: Token formats already built, by (dark, token type).
_FORMATS: dict[tuple[bool, Any], QTextCharFormat] = {}


@lru_cache(maxsize=2)
def _style(dark: bool) -> tuple[Any, str | None]:
    """The Pygments style and its plain text colour."""
    from pygments.styles import get_style_by_name
    from pygments.token import Token

    style = get_style_by_name(DARK_STYLE if dark else LIGHT_STYLE)
    return style, style.style_for_token(Token.Text).get("color")


def token_format(ttype: Any, dark: bool) -> QTextCharFormat | None:
    """The format of a token type in the light or dark style (``None``: plain text)."""
    fmt = _FORMATS.get((dark, ttype))
    if fmt is None:
        style, plain = _style(dark)
        values = style.style_for_token(ttype)
        fmt = QTextCharFormat()
        color = values.get("color")
        if color and color != plain:
            fmt.setForeground(QColor(f"#{color}"))
        if values.get("bold"):
            fmt.setFontWeight(QFont.Weight.Bold)
        if values.get("italic"):
            fmt.setFontItalic(True)
        _FORMATS[(dark, ttype)] = fmt
    return fmt if not fmt.isEmpty() else None


def _spans(lexer: Any, text: str) -> Iterator[tuple[int, int, Any]]:
    """``(start, end, token type)`` of ``text``'s tokens, neighbours of a type merged."""
    current: tuple[int, int, Any] | None = None
    for index, ttype, value in lexer.get_tokens_unprocessed(text + "\n"):
        end = min(index + len(value), len(text))
        if index >= end:
            continue
        if current is not None and current[2] is ttype and current[1] == index:
            current = (current[0], end, ttype)
            continue
        if current is not None:
            yield current
        current = (index, end, ttype)
    if current is not None:
        yield current


def highlight_runs(document: QTextDocument, runs: Iterable[Run], dark: bool) -> int:
    """Colour ``runs`` of ``document`` (within :data:`HIGHLIGHT_LIMIT` characters in
    all); returns how many characters were coloured."""
    budget = HIGHLIGHT_LIMIT
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    try:
        for run in runs:
            lexer = lexer_for(run.language)
            if lexer is None:
                continue
            text = run.text()
            if len(text) > budget:
                break
            budget -= len(text)
            start = run.first.position()
            try:
                spans = list(_spans(lexer, text))
            except Exception:  # a lexer that fails on odd input: leave the block plain
                continue
            for begin, end, ttype in spans:
                fmt = token_format(ttype, dark)
                if fmt is None:
                    continue
                cursor.setPosition(start + begin)
                cursor.setPosition(start + end, _KEEP)
                cursor.mergeCharFormat(fmt)
    finally:
        cursor.endEditBlock()
    return HIGHLIGHT_LIMIT - budget


def highlight_document(document: QTextDocument, dark: bool) -> int:
    """Colour every code block of ``document`` (the transcript's, after a start-up that
    left them plain)."""
    return highlight_runs(document, code_runs(document), dark)
