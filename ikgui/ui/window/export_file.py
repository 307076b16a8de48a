"""Where Export suggests saving a conversation (issue 20, item 19): the user's Documents
folder, under a file name made from the title — not the process's working directory
under the conversation's id."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from PySide6.QtCore import QStandardPaths

#: Characters no file name may hold on one system or another.
_FORBIDDEN = frozenset('<>:"/\\|?*')
#: Names Windows keeps for devices (with any extension).
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{i}" for i in range(1, 10)}
    | {f"LPT{i}" for i in range(1, 10)}
)
#: Enough of a title to recognise the file by (characters).
LONGEST = 80


def documents() -> Path:
    """The user's Documents folder (their home when there is none)."""
    where = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    folder = Path(where) if where else Path.home()
    return folder if folder.is_dir() else Path.home()


def file_name(title: str, fallback: str, extension: str = "json") -> str:
    """``title`` as a file name that works everywhere (``fallback`` when nothing of it
    is left): one line of words, no separators, control or direction characters."""
    kept = "".join(
        " " if ch in _FORBIDDEN or unicodedata.category(ch)[0] in "CZ" else ch for ch in title
    )
    words = " ".join(kept.split())[:LONGEST].strip(" .")
    if not words or words.split(".")[0].upper() in _RESERVED:
        words = fallback
    return f"{words}.{extension}"


def export_format(path: Path) -> str:
    """The export format a chosen file name asks for (Markdown by its extension)."""
    return "md" if path.suffix.lower() in (".md", ".markdown") else "json"
