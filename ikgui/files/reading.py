"""Reading one attached file: its type from its content (the extension only breaks
ties), its size against ``[limits] attachment_mb``, its SHA-256, and its text (a text
file's, a PDF's extracted text) — or one line saying why it cannot be attached.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ikgui.domain.attachments import (
    ATTACHMENT_MB,
    PDF,
    Attachment,
    AttachmentError,
    StoredFile,
    size_text,
)

#: Magic numbers of the image types a file may have.
_IMAGES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
#: A text file's type by its extension (any other valid UTF-8 file is text/plain).
_TEXT_BY_SUFFIX = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
}


def sniff(head: bytes, name: str) -> str | None:
    """The type of a file from its first bytes (``None``: not one ikgui sends as a file
    unless it is valid UTF-8 text, which the caller checks)."""
    for magic, mime in _IMAGES:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"%PDF-"):
        return PDF
    return None


def text_type(name: str) -> str:
    return _TEXT_BY_SUFFIX.get(Path(name).suffix.lower(), "text/plain")


def read_file(path: str | os.PathLike[str], limit_mb: int = ATTACHMENT_MB) -> StoredFile:
    """Read and check one file; raises :class:`AttachmentError` (one line, naming it)."""
    shown = Path(path).name or str(path)
    limit = limit_mb * 1024 * 1024
    try:
        size = os.path.getsize(path)
        if size > limit:
            raise AttachmentError(
                f"{shown} is {size_text(size)}: files may be at most {limit_mb} MB"
            )
        with open(path, "rb") as handle:
            content = handle.read(limit + 1)
    except FileNotFoundError:
        raise AttachmentError(f"{shown} was not found") from None
    except IsADirectoryError:
        raise AttachmentError(f"{shown} is a folder, not a file") from None
    except OSError as exc:
        raise AttachmentError(f"{shown} cannot be read: {exc.strerror or exc}") from None
    if len(content) > limit:
        raise AttachmentError(f"{shown} is larger than {limit_mb} MB")
    return checked(shown, content)


def checked(name: str, content: bytes) -> StoredFile:
    """A file's bytes (read from disk or pasted) checked and typed."""
    mime = sniff(content[:16], name)
    text: str | None = None
    if mime is None:
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            raise AttachmentError(
                f"{name} is not an image (PNG, JPEG, GIF, WebP), a PDF or a UTF-8 text file"
            ) from None
        mime = text_type(name)
    sha = hashlib.sha256(content).hexdigest()
    return StoredFile(Attachment(sha, name, mime, len(content)), content, text)
