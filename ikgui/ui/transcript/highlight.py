"""Syntax colours for code blocks, from Pygments' lexers and styles.

Only Pygments' token stream is used (never its HTML): each token type maps to a
``QTextCharFormat`` built from a light or a dark Pygments style, merged over the token's
range of the document. Pygments is imported on the first code block that needs colour
(not at start-up: the window's first paint leaves code plain and colours it right after).

Lexing costs ~10 µs a character (a 24 KB block: a quarter of a second), so a document
is coloured at once only up to :data:`HIGHLIGHT_LIMIT` characters of code. The rest is
left to :class:`LateHighlighter`, which goes on in slices of a few milliseconds from the
event loop (Pygments lexes lazily, so each slice pays only for the tokens it colours).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache, partial
from time import perf_counter
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrame,
)

from ikgui.ui.transcript.code_blocks import Run, code_runs

#: Characters of code coloured at once per rendered document (about 20 ms of lexing).
HIGHLIGHT_LIMIT = 2_000
#: Milliseconds of one slice of late colouring (the event loop runs between slices).
SLICE_MS = 8.0
#: The Pygments styles for light and dark backgrounds.
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
_KEEP = QTextCursor.MoveMode.KeepAnchor
#: Token formats already built, by (dark, token type).
_FORMATS: dict[tuple[bool, Any], QTextCharFormat] = {}


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


def warm_up(dark: bool) -> None:
    """Import Pygments and build its Python lexer and styles in a thread of their own
    (~60 ms, the import lock shared), so that the first code shown does not pay it."""

    def load() -> None:
        lexer = lexer_for("python")
        if lexer is not None:
            list(lexer.get_tokens_unprocessed("x = 1  # warm\n"))
        _style(dark)

    threading.Thread(target=load, name="pygments-warm-up", daemon=True).start()


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


class Job:
    """Colouring one code block, resumable: its tokens come as they are lexed."""

    def __init__(self, run: Run, lexer: Any, dark: bool) -> None:
        self.first: QTextBlock = run.first
        self.dark = dark
        self.done = 0  # characters coloured so far
        self._spans = _spans(lexer, run.text())
        #: Whether the block is still there (the transcript sets it for its items).
        self.alive: Callable[[], bool] = lambda: True

    def advance(self, cursor: QTextCursor, until: Callable[[], bool]) -> bool:
        """Colour tokens until ``until()`` says stop; ``True`` when the block is done."""
        start = self.first.position()
        try:
            for begin, end, ttype in self._spans:
                fmt = token_format(ttype, self.dark)
                if fmt is not None:
                    cursor.setPosition(start + begin)
                    cursor.setPosition(start + end, _KEEP)
                    cursor.mergeCharFormat(fmt)
                self.done = end
                if until():
                    return False
        except Exception:  # a lexer that fails on odd input: the rest stays plain
            pass
        return True


def _spent(job: Job, budget: int) -> bool:
    return job.done >= budget


def highlight_runs(
    document: QTextDocument, runs: Iterable[Run], dark: bool, limit: int | None = None
) -> list[tuple[int, Job]]:
    """Colour ``runs`` of ``document`` up to ``limit`` characters in all (default
    :data:`HIGHLIGHT_LIMIT`); returns what is left: ``(run index, job)`` pairs."""
    budget = HIGHLIGHT_LIMIT if limit is None else limit
    left: list[tuple[int, Job]] = []
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    try:
        for index, run in enumerate(runs):
            lexer = lexer_for(run.language)
            if lexer is None:
                continue
            job = Job(run, lexer, dark)
            if budget <= 0 or not job.advance(cursor, partial(_spent, job, budget)):
                left.append((index, job))
            budget -= job.done
    finally:
        cursor.endEditBlock()
    return left


def highlight_frames(
    document: QTextDocument, frames: Iterable[tuple[QTextFrame, Callable[[], bool]]], dark: bool
) -> list[Job]:
    """Jobs colouring the code of each frame (the transcript's items, after a start-up
    that left them plain), each knowing whether its frame is still there by the callable
    paired with the frame; for :class:`LateHighlighter`."""
    left = []
    for frame, alive in frames:
        runs = code_runs(document, start=frame.firstPosition(), end=frame.lastPosition())
        for _, job in highlight_runs(document, runs, dark, limit=0):
            job.alive = alive
            left.append(job)
    return left


class LateHighlighter(QObject):
    """Colours what was left of code blocks, a slice at a time, from the event loop: the
    batch added last first (the items at the bottom of a page inserted in order), each
    batch's blocks in order."""

    def __init__(self, document: QTextDocument, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.batches: list[list[Job]] = []
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.step)

    @property
    def jobs(self) -> list[Job]:
        return [job for batch in self.batches for job in batch]

    def add(self, jobs: Iterable[Job]) -> None:
        batch = list(jobs)
        if batch:
            self.batches.append(batch)
        if self.batches and not self._timer.isActive():
            self._timer.start()

    def step(self) -> None:
        """One slice of :data:`SLICE_MS`, and at least one token whatever the clock says
        (a busy machine's slice may be over before it starts: colouring still ends)."""
        deadline = perf_counter() + SLICE_MS / 1000
        cursor = QTextCursor(self.document)
        cursor.beginEditBlock()
        first = True
        try:
            while self.batches and (first or perf_counter() < deadline):
                first = False
                batch = self.batches[-1]
                job = batch[0]
                if not job.alive() or job.advance(cursor, lambda: perf_counter() >= deadline):
                    batch.pop(0)
                    if not batch:
                        self.batches.pop()
        finally:
            cursor.endEditBlock()
        if not self.batches:
            self._timer.stop()
