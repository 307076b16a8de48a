"""Everything the command line prints goes through here (issue 8, item 11).

Titles, labels, tags, model names, server error bodies and command output come from
outside ikgui: their control characters (ESC, BEL, CR, C1) could clear the terminal,
set its title or rewrite what was printed before. :func:`say` escapes them
(``terminal_safe``), :func:`error` keeps an error to one line (``one_line``), and
:func:`print_json` writes C1, DEL and bidi controls as ``\\uXXXX`` escapes, so the JSON
means the same and shows nothing hidden.

The model's reply text is the one deliberate exception (:func:`reply`): it goes out
raw when stdout is a pipe or a file (a script gets the bytes the model sent), and
escaped like everything else when stdout is a terminal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from typing import Any, TextIO

from ikgui.domain.text.safe import BIDI_CONTROLS, one_line, terminal_safe

_JSON_UNSAFE = re.compile("[\x7f-\x9f" + "".join(sorted(BIDI_CONTROLS)) + "]")


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


#: How wide a line of a table is when stdout is no terminal (a pipe, a file) and
#: ``COLUMNS`` says nothing: wide enough for a script, not a 1 MB title.
PIPE_WIDTH = 300
#: The narrowest a terminal is taken to be (a cell must still show something).
NARROWEST = 40


def width() -> int:
    """The columns a table's line may take: the terminal's (or ``COLUMNS``), else
    :data:`PIPE_WIDTH`."""
    if is_terminal(sys.stdout) or os.environ.get("COLUMNS", "").strip().isdigit():
        return max(NARROWEST, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)
    return PIPE_WIDTH


def say(text: str = "", *, err: bool = False) -> None:
    """A line (or several) that did not come from the model's reply."""
    stream = sys.stderr if err else sys.stdout
    stream.write(terminal_safe(text) + "\n")


def error(line: str) -> None:
    """An ``Error: …`` (or ``Warning: …``) line on stderr, kept to one line."""
    sys.stderr.write(one_line(line) + "\n")
    sys.stderr.flush()


def reply_safe(text: str) -> str:
    """The model's text as it will be printed: raw to a pipe, escaped to a terminal."""
    return terminal_safe(text) if is_terminal(sys.stdout) else text


def reply(text: str, end: str = "") -> None:
    """Model reply text on stdout (see the module docstring)."""
    sys.stdout.write(reply_safe(text) + end)


def json_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(value: Any) -> None:
    sys.stdout.write(json_text(value) + "\n")
