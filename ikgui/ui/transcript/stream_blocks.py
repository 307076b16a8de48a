"""Where the finished Markdown blocks of a growing reply end, decided in plain Python.

A streaming reply is shown as Markdown block by block (see
:mod:`ikgui.ui.transcript.stream_render`). A block is finished at a blank line outside a
fenced code block, or after a closing fence, once the next line shows it does not carry
on: a line indented (list item text, indented code), a list item after a list (one loose
list), code or a quote right after code or a quote (one code frame). So the finished
part renders to the same document as the whole reply rendered at once. Fence tracking is
:func:`ikgui.ui.transcript.render_budget.fence_after`; the budget counts are the ones of
:mod:`ikgui.ui.transcript.render_budget`.
"""

from __future__ import annotations

import re

from ikgui.ui.transcript.render_budget import (
    MAX_LINES,
    MAX_MARKUP,
    TABLE_CELL_BUDGET,
    TABLE_TEXT_BUDGET,
    fence_after,
    find_tables,
    markup_count,
)

_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
#: What the start of a line may still grow into a list item.
_LIST_START = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)]?)$")
_INDENTED = re.compile(r"(?: {4}|\t)")


class Blocks:
    """Scans a growing text once, line by line: ``feed`` returns the end of its
    finished blocks (``text[:end]``; it only grows)."""

    def __init__(self) -> None:
        self.done = 0
        #: Every block end found so far, in order (``done`` is the last).
        self.ends: list[int] = []
        self._scan = 0  # the start of the first line not scanned yet
        self._fence = ""  # the fence open at ``_scan``
        self._fence_indented = False
        self._candidate: int | None = None  # a block end waiting for the next line
        self._has_list = False  # the block since ``done`` has list items
        self._code_end = False  # its last line ends (or is) code, or is quoted
        self._content = False  # it has more than blank lines

    def feed(self, text: str) -> int:
        """``text`` is the whole text so far (what was fed before, and more)."""
        while True:
            end = text.find("\n", self._scan)
            if end < 0:
                break
            self._line(text[self._scan : end], end + 1)
            self._scan = end + 1
        rest = text[self._scan :]
        if self._candidate is not None and rest.strip():
            self._decide(rest, complete=False)
        return self.done

    def _line(self, line: str, after: int) -> None:
        if self._candidate is not None and line.strip():
            self._decide(line, complete=True)
        was = self._fence
        self._fence = fence_after(was, line)
        if was or self._fence:
            self._content = True
        if was:
            if not self._fence:  # a closing fence: the block may end here
                self._code_end = True
                if not self._fence_indented:
                    self._candidate = after
            return
        if self._fence:
            self._fence_indented = line[:1] in (" ", "\t")
            self._code_end = False
            return
        if not line.strip():
            if self._candidate is None and self._content:
                self._candidate = after
            return
        self._content = True
        self._has_list = self._has_list or bool(_LIST_ITEM.match(line))
        self._code_end = bool(_INDENTED.match(line)) or line.lstrip(" ").startswith(">")

    def _decide(self, line: str, complete: bool) -> None:
        """The first line after a possible block end: is the block finished?"""
        verdict = self._carries_on(line, complete)
        if verdict is None:
            return  # too little of the line to say
        if not verdict:
            assert self._candidate is not None
            self.done = self._candidate
            self.ends.append(self.done)
            self._has_list = self._code_end = self._content = False
        self._candidate = None

    def _carries_on(self, line: str, complete: bool) -> bool | None:
        if line[0] in (" ", "\t"):
            return True
        if self._has_list:
            if _LIST_ITEM.match(line):
                return True
            if not complete and _LIST_START.match(line):
                return None
        if self._code_end:
            stripped = line.rstrip("\n")
            if stripped.lstrip(" ").startswith(("```", "~~~", ">")):
                return True
            if not complete and stripped.lstrip(" ") in ("", "`", "``", "~", "~~"):
                return None
        return False


class Budget:
    """The render budget spent by the blocks rendered so far (the same limits as
    :func:`~ikgui.ui.transcript.render_budget.head_of` and ``plan``)."""

    def __init__(self) -> None:
        self.lines = 0
        self.markup = 0
        self.cells = 0
        self.table_text = 0

    def spend(self, block: str) -> bool:
        """Count ``block`` in; whether everything counted so far is within budget."""
        self.lines += block.count("\n")
        self.markup += markup_count(block)
        for table in find_tables(block):
            self.cells += table.cells
            self.table_text += table.end - table.start
        return (
            self.lines <= MAX_LINES
            and self.markup <= MAX_MARKUP
            and self.cells <= TABLE_CELL_BUDGET
            and self.table_text <= TABLE_TEXT_BUDGET
        )
