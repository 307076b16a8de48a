"""Files a message carries (SPEC §13): images, PDF documents and text files.

A message's ``user`` event lists its files by reference — ``data["attachments"]``, a list
of :meth:`Attachment.data` — and each file's bytes are stored once, by SHA-256, in the
store itself (:class:`StoredFile`), written in the same transaction as the event that
first lists it. Forks, later requests, copies and other conversations share them by
that hash; a file is removed when no event and no draft refers to it any more.

The domain never reads the disk: the window and the command line read and check a file
(:mod:`ikgui.files`, in a worker thread) and hand the session :class:`StoredFile` values;
a file already in the store (an image pasted into a draft, a message's files kept by a
retry or an edit) is handed over as its :class:`Attachment` alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ikgui.domain.errors import UserError

#: The types a file may have, by what it is (read from its content, SPEC §13).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
PDF = "application/pdf"
#: Text files are sent as text: whatever their extension, they are valid UTF-8.
TEXT_TYPES = frozenset(
    {
        "text/plain",
        "text/markdown",
        "text/csv",
        "application/json",
        "text/x-source",
    }
)
#: The default of ``[limits] attachment_mb``: the most one file may hold, in MiB.
ATTACHMENT_MB = 20


def is_image(mime: str) -> bool:
    return mime in IMAGE_TYPES


def is_text(mime: str) -> bool:
    return mime in TEXT_TYPES


@dataclass(frozen=True)
class Attachment:
    """A file as a message refers to it: its hash, the name it was attached under, its
    type (read from its content) and its size in bytes."""

    sha256: str
    name: str
    mime: str
    size: int

    def data(self) -> dict[str, Any]:
        """As the ``user`` event's ``data["attachments"]`` lists it."""
        return {"sha256": self.sha256, "name": self.name, "mime": self.mime, "size": self.size}

    @classmethod
    def from_data(cls, value: Any) -> Attachment | None:
        """One entry of ``data["attachments"]`` (``None`` for an entry that is not one:
        an imported or hand-made log is read, never trusted)."""
        if not isinstance(value, Mapping):
            return None
        sha, name, mime, size = (value.get(k) for k in ("sha256", "name", "mime", "size"))
        if not (isinstance(sha, str) and len(sha) == 64 and isinstance(mime, str)):
            return None
        try:
            int(sha, 16)
        except ValueError:
            return None
        shown = name if isinstance(name, str) and name else "file"
        return cls(sha.lower(), shown, mime, size if isinstance(size, int) and size >= 0 else 0)


def listed(data: Mapping[str, Any] | None) -> list[Attachment]:
    """The attachments an event's data lists (none for a kind that carries none)."""
    raw = (data or {}).get("attachments")
    if not isinstance(raw, list):
        return []
    return [a for a in (Attachment.from_data(v) for v in raw) if a is not None]


@dataclass(frozen=True)
class StoredFile:
    """A file with its bytes, as the store keeps it once per hash: ``text`` is what
    search indexes and what a model that cannot read the file receives (a text file's
    text, a PDF's extracted text; ``None`` for an image)."""

    attachment: Attachment
    content: bytes
    text: str | None = None

    @property
    def sha256(self) -> str:
        return self.attachment.sha256


@dataclass(frozen=True)
class DraftFile:
    """A file attached to a draft and not sent yet. ``path``: where it was read from (it
    is read again at send time, and stored with the message); ``None``: it is in the
    store already (an image pasted from the clipboard), kept by the draft's reference."""

    attachment: Attachment
    path: str | None = None

    def data(self) -> dict[str, Any]:
        return {**self.attachment.data(), "path": self.path}


def draft_files_text(files: Iterable[DraftFile]) -> str:
    """A draft's files as the conversation's ``draft_files`` field keeps them (JSON)."""
    entries = [f.data() for f in files]
    return json.dumps(entries, ensure_ascii=False) if entries else ""


def draft_files(text: str | None) -> list[DraftFile]:
    """The ``draft_files`` field read back (unreadable entries are left out)."""
    if not text:
        return []
    try:
        raw = json.loads(text)
    except ValueError:
        return []
    files: list[DraftFile] = []
    for value in raw if isinstance(raw, list) else []:
        attachment = Attachment.from_data(value)
        if attachment is not None:
            path = value.get("path")
            files.append(DraftFile(attachment, path if isinstance(path, str) else None))
    return files


class AttachmentError(UserError):
    """A file that cannot be attached or sent, in one line naming it and why
    (``report.exe is not an image, a PDF or a text file``)."""


def size_text(size: int) -> str:
    """``812 bytes``, ``14 KB``, ``2.4 MB``: a file's size as a chip shows it."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
