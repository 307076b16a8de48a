"""Prompt cards (issue 11, item 3): a prompt edit, and a reply that drafted a prompt, show
what changed as a readable card — "✎ You edited the prompt" with the inserted and deleted
words marked, folded when long, and "Restore this version". What the model receives is
unchanged (the stored ``[user edited prompt to: "…"]``). A ``json``-mode reply that set no
prompt says why in a small warning line.

Everything is plain text with character formats; links use the ``ikgui-prompt:`` scheme
(handled by :mod:`ikgui.ui.transcript.scrollback_menu`).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QFont, QTextBlockFormat, QTextCharFormat, QTextCursor

from ikgui.domain.events import Event, Kind
from ikgui.domain.prompt_history import RESTORED_FROM, DiffOp, word_diff
from ikgui.domain.safetext import reveal_bidi
from ikgui.ui.prompt.diff_text import THIN_SPACE, run_format

SCHEME = "ikgui-prompt"
#: A card longer than this many characters is folded (with "Show all").
FOLD_CHARS = 420
PEN = "✎"
WARNING = "⚠"


@dataclass(frozen=True)
class PromptCard:
    title: str
    text: str  # the version this event set
    runs: list[tuple[DiffOp, str]]  # its change against the version before


def card_for(event: Event, before: str | None) -> PromptCard | None:
    """The card of a prompt edit, or of a reply that changed the working prompt
    (``before``: the prompt before it, ``None`` when unknown)."""
    prompt = event.data.get("prompt")
    if not isinstance(prompt, str):
        return None
    if event.kind == Kind.ASSISTANT:
        if before is None:
            return None  # it set the prompt it already had, or we can't tell
        title = f"{PEN} The assistant drafted a prompt"
    elif event.kind == Kind.PROMPT_EDIT:
        restored = event.data.get(RESTORED_FROM) is not None
        done = "restored an earlier version" if restored else "edited the prompt"
        title = f"{PEN} You {done}"
    else:
        return None
    if before:
        runs = word_diff(before, prompt)
    else:
        runs = [("equal", prompt)] if prompt else [("delete", "(the prompt was emptied)")]
    return PromptCard(title, prompt, runs)


def link(action: str, event_id: int) -> str:
    return f"{SCHEME}:{action}/{event_id}"


def parse_link(url: QUrl | str) -> tuple[str, int] | None:
    """``("restore" | "expand", event id)`` for a prompt card's link."""
    text = url.toString() if isinstance(url, QUrl) else url
    if not text.startswith(f"{SCHEME}:"):
        return None
    action, _, number = text[len(SCHEME) + 1 :].partition("/")
    if action not in ("restore", "expand") or not number.isdigit():
        return None
    return action, int(number)


def _small(font: QFont, scale: float = 0.9) -> float:
    return max(font.pointSizeF() * scale, 6.0)


def write_card(
    cursor: QTextCursor,
    card: PromptCard,
    event_id: int,
    *,
    accent: QColor,
    link_color: QColor,
    font: QFont,
    expanded: bool,
    first_block: bool,
) -> None:
    """The card's title line, its diff (folded unless ``expanded``) and its links."""
    title = QTextCharFormat()
    title.setFontWeight(QFont.Weight.Bold)
    title.setFontPointSize(_small(font, 0.85))
    title.setForeground(accent)
    heading = QTextBlockFormat()
    heading.setBottomMargin(3)
    if first_block:
        cursor.setBlockFormat(heading)
    else:
        cursor.insertBlock(heading, title)
    cursor.insertText(card.title, title)
    cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
    budget = None if expanded else FOLD_CHARS
    previous: DiffOp = "equal"
    for op, text in card.runs:
        shown = text if budget is None else text[:budget]
        fmt = run_format(op)
        fmt.setFontPointSize(_small(font, 0.95))
        if previous == "delete" and op == "insert":
            cursor.insertText(THIN_SPACE, run_format("equal"))
        cursor.insertText(reveal_bidi(shown), fmt)
        previous = op
        if budget is not None:
            budget -= len(shown)
            if budget <= 0:
                break
    links = QTextBlockFormat()
    links.setTopMargin(4)
    cursor.insertBlock(links, QTextCharFormat())
    folded = budget is not None and budget <= 0
    if folded:
        _link(cursor, "Show all", link("expand", event_id), link_color, font)
        cursor.insertText("   ", QTextCharFormat())
    _link(cursor, "Restore this version", link("restore", event_id), link_color, font)


def _link(cursor: QTextCursor, text: str, href: str, color: QColor, font: QFont) -> None:
    fmt = QTextCharFormat()
    fmt.setAnchor(True)
    fmt.setAnchorHref(href)
    fmt.setForeground(color)
    fmt.setFontPointSize(_small(font, 0.85))
    cursor.insertText(text, fmt)


def write_warning(cursor: QTextCursor, text: str, color: QColor, font: QFont) -> None:
    """A small line under a reply: why it set no prompt."""
    fmt = QTextCharFormat()
    fmt.setForeground(color)
    fmt.setFontPointSize(_small(font, 0.85))
    block = QTextBlockFormat()
    block.setTopMargin(4)
    cursor.insertBlock(block, fmt)
    cursor.insertText(f"{WARNING} {reveal_bidi(text)}", fmt)
