"""The render budget of one scrollback item, decided before Qt sees any text.

Qt lays out a Markdown table in time that grows faster than its cell count (a 400 x 100
table froze the window for 21 s) and a megabyte reply costs seconds too. So an item's
text is planned first, in plain Python: a body longer than :data:`DISPLAY_LIMIT` shows
only its head (the rest is one click away in a plain-text viewer), and tables past
:data:`TABLE_CELL_BUDGET` cells or :data:`TABLE_TEXT_BUDGET` characters (counted over the
whole item) are shown as preformatted text with a "Show as table" link. The limits keep
one item near 50 ms of layout on this 2-core machine, half of the 100 ms budget of
ARCHITECTURE.md §2 (text in a table costs Qt ~5x what the same text costs in prose).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Characters of one item's body that are rendered in the transcript at most.
DISPLAY_LIMIT = 32_000
#: A longer body is cut near here (at a line end if there is one close by).
HEAD = 24_000
#: Lines of a body shown at most (each is a block for Qt; a list of 7,000 items took 2 s).
MAX_LINES = 1_000
#: Inline-markup characters of a body shown at most (each span is a format run for Qt).
MAX_MARKUP = 4_000
#: Cells of Markdown tables (rows x columns, all tables of one item) rendered as tables.
TABLE_CELL_BUDGET = 400
#: Characters of Markdown tables (all tables of one item) rendered as tables.
TABLE_TEXT_BUDGET = 6_000
#: A streaming reply shows at most this much until it finishes.
STREAM_LIMIT = DISPLAY_LIMIT

_FENCE = re.compile(r"`{3,}|~{3,}")
_MARKUP = re.compile(r"[*_`\[~]")
_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
#: A line end followed by a blank line or a line without a pipe: where a table stops.
_TABLE_END = re.compile(r"\n(?=[ \t]*\n|[^|\n]*(?:\n|$))")


@dataclass(frozen=True)
class Table:
    """A GitHub Markdown table in a text: ``text[start:end]``, header line included."""

    start: int
    end: int
    rows: int
    columns: int

    @property
    def cells(self) -> int:
        return (self.rows + 1) * self.columns


@dataclass(frozen=True)
class Segment:
    """A piece of an item's body: Markdown, or (with ``table``, whose offsets are in the
    item's full text) a table shown as preformatted text."""

    text: str
    table: Table | None = None

    @property
    def preformatted(self) -> bool:
        return self.table is not None


def fence_after(fence: str, line: str) -> str:
    """The code fence open after ``line`` (``""``: none), given the one open before it.

    The one home of fence tracking (tables, kept line breaks, streaming blocks): a fence
    opens with three or more backticks or tildes and closes at a line of the same
    character, at least as long, with nothing after it (CommonMark)."""
    stripped = line.lstrip()
    if fence:
        closing = stripped.rstrip()
        return "" if closing.startswith(fence) and not closing.strip(fence[0]) else fence
    match = _FENCE.match(stripped)
    if match is None or (match.group()[0] == "`" and "`" in stripped[match.end() :]):
        return ""
    return match.group()


def split_row(line: str) -> list[str]:
    """The cells of a table row (outer pipes dropped, ``\\|`` kept as a pipe)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _UNESCAPED_PIPE.split(body)]


def find_tables(text: str) -> list[Table]:
    """The tables of ``text`` outside code fences: a header row with a pipe, a
    delimiter row, then rows until a blank line or a line without a pipe."""
    tables: list[Table] = []
    if "|" not in text:
        return tables
    lines = text.split("\n")
    starts = []
    position = 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    fence = ""
    index = 0
    while index < len(lines) - 1:
        inside, fence = fence, fence_after(fence, lines[index])
        if inside or fence:
            index += 1
            continue
        header, delimiter = lines[index], lines[index + 1]
        if "|" in header and "-" in delimiter and _DELIMITER.match(delimiter):
            stop = index + 2
            while stop < len(lines) and lines[stop].strip() and "|" in lines[stop]:
                stop += 1
            end = starts[stop - 1] + len(lines[stop - 1])
            columns = len(split_row(header))
            tables.append(Table(starts[index], end, stop - index - 2, columns))
            index = stop
            continue
        index += 1
    return tables


def markup_count(text: str) -> int:
    """Inline-markup characters of ``text`` (what ``MAX_MARKUP`` limits)."""
    return len(_MARKUP.findall(text))


def head_of(text: str, markup: bool = True) -> str:
    """``text`` itself if it is within the limits (``DISPLAY_LIMIT`` characters,
    ``MAX_LINES`` lines, and for Markdown ``MAX_MARKUP`` markup characters, each of which
    becomes a run of formatting; plain text has none); else its head, at most
    ``HEAD`` characters and within the other limits, cut at a line end when there is one
    in the head's second half. Counting costs milliseconds: it runs in C over 32 KB."""
    stop = len(text) if len(text) <= DISPLAY_LIMIT else HEAD
    if text.count("\n", 0, stop) > MAX_LINES:
        position = -1
        for _ in range(MAX_LINES):
            position = text.find("\n", position + 1)
        stop = position
    if markup and len(_MARKUP.findall(text, 0, stop)) > MAX_MARKUP:
        for count, match in enumerate(_MARKUP.finditer(text, 0, stop)):
            if count == MAX_MARKUP:
                stop = match.start()
                break
    if stop < len(text):
        line_end = text.rfind("\n", stop // 2, stop)
        stop = line_end if line_end > 0 else stop
    return text[:stop]


def plan(
    text: str, cells: int = TABLE_CELL_BUDGET, characters: int = TABLE_TEXT_BUDGET
) -> list[Segment]:
    """``text`` as Markdown segments and, for the tables past ``cells`` cells or
    ``characters`` characters (counted in order), preformatted ones; one Markdown
    segment when every table fits."""
    segments: list[Segment] = []
    spent_cells = spent_text = 0
    done = 0
    for table in find_tables(text):
        spent_cells += table.cells
        spent_text += table.end - table.start
        if spent_cells <= cells and spent_text <= characters:
            continue
        if table.start > done:
            segments.append(Segment(text[done : table.start]))
        segments.append(Segment(text[table.start : table.end], table))
        done = table.end
    if done < len(text) or not segments:
        segments.append(Segment(text[done:]))
    return segments


def table_at(text: str, start: int) -> str:
    """The whole table that begins at ``start`` of ``text`` (found in C-speed steps, so a
    table of megabytes costs milliseconds): up to its first blank or pipe-less line."""
    match = _TABLE_END.search(text, start)
    return text[start : match.start() if match else len(text)]
