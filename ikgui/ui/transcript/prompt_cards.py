"""Prompt cards (issue 11, item 3): a prompt edit, and a reply that drafted a prompt, say
so in one compact line — "✎ You edited the prompt · +2 −1 words" — with "Show changes"
and "Restore this version" (not on the version in force: there is nothing to restore).
The prompt itself is shown once, in the working-prompt panel (issue 20 item 18); "Show
changes" unfolds the card to the inserted and deleted words marked (folded again when
long, until "Show all"). What the model receives is unchanged (the stored ``[user edited
prompt to: "…"]``). A ``json``-mode reply that set no prompt says why in a small warning
line.

Everything is plain text with character formats; links use the ``ikgui-prompt:`` scheme
(handled by :mod:`ikgui.ui.transcript.menu`).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QFont, QTextBlockFormat, QTextCharFormat, QTextCursor

from ikgui.domain.events import Event, Kind
from ikgui.domain.state.prompt_history import RESTORED_FROM, DiffOp, diff_counts, word_diff
from ikgui.domain.text.safe import reveal_bidi
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
    """``("restore" | "expand" | "all" | "collapse", event id)`` for a prompt card's link."""
    text = url.toString() if isinstance(url, QUrl) else url
    if not text.startswith(f"{SCHEME}:"):
        return None
    action, _, number = text[len(SCHEME) + 1 :].partition("/")
    if action not in ("restore", "expand", "all", "collapse") or not number.isdigit():
        return None
    return action, int(number)


def change_summary(card: PromptCard) -> str:
    """``+2 −1 words`` (a first version: ``12 words``; emptied: ``emptied``)."""
    if not card.text:
        return "emptied"
    inserted, deleted = diff_counts(card.runs)
    if all(op == "equal" for op, _ in card.runs):
        count = len(card.text.split())
        return f"{count} word" if count == 1 else f"{count} words"
    return f"+{inserted} −{deleted} words"


def _small(font: QFont, scale: float = 0.9) -> float:
    return max(font.pointSizeF() * scale, 6.0)


def _write_diff(cursor: QTextCursor, card: PromptCard, font: QFont, whole: bool) -> bool:
    """The card's word diff on a block of its own; True when it was folded (cut at
    ``FOLD_CHARS`` unless ``whole``)."""
    cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
    budget = None if whole else FOLD_CHARS
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
    return budget is not None and budget <= 0


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
    current: bool = False,
    whole: bool = False,
) -> None:
    """The card's line (its title and how much changed) and links; ``expanded``: its diff
    too (folded unless ``whole``). ``current``: the version in force (no Restore)."""
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
    summary = QTextCharFormat(title)
    summary.setFontWeight(QFont.Weight.Normal)
    cursor.insertText(f"  ·  {change_summary(card)}", summary)
    if current:
        cursor.insertText("  ·  in use", summary)
    folded = _write_diff(cursor, card, font, whole) if expanded else False
    links = QTextBlockFormat()
    links.setTopMargin(4 if expanded else 0)
    cursor.insertBlock(links, QTextCharFormat())
    shown_links = []
    if not expanded:
        shown_links.append(("Show changes", link("expand", event_id)))
    elif folded:
        shown_links.append(("Show all", link("all", event_id)))
    if expanded:
        shown_links.append(("Hide changes", link("collapse", event_id)))
    if not current:
        shown_links.append(("Restore this version", link("restore", event_id)))
    for index, (text, href) in enumerate(shown_links):
        if index:
            cursor.insertText("   ", QTextCharFormat())
        _link(cursor, text, href, link_color, font)


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
