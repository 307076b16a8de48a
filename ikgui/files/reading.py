"""Reading one attached file: its type from its content (the extension only breaks
ties), its size against ``[limits] attachment_mb``, its SHA-256, and its text (a text
file's, a PDF's extracted text) — or one line saying why it cannot be attached.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

from ikgui.domain.attachments import (
    ATTACHMENT_MB,
    PDF,
    Attachment,
    AttachmentError,
    DraftFile,
    StoredFile,
    is_image,
    size_text,
)
from ikgui.files.documents import pdf_text
from ikgui.files.images import IMAGE_SUFFIXES, KIND_NAMES, MAX_PIXELS, BadImage, size_of

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
#: Extensions of files that are text, to say "not UTF-8" rather than "not a text file".
_TEXT_WORDS = (
    ".txt .text .log .py .js .ts .tsx .jsx .c .h .cc .cpp .hpp .rs .go .java .kt .rb .php"
    " .pl .sh .bash .zsh .ps1 .bat .sql .html .htm .css .xml .yaml .yml .toml .ini .cfg"
    " .conf .tex .rst .org .srt .vtt .tsv .swift .cs .lua .r"
)
_TEXT_SUFFIXES = frozenset({*_TEXT_BY_SUFFIX, *_TEXT_WORDS.split()})


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
    shown = _shown(Path(path).name or str(path))
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


def _shown(name: str) -> str:
    """A file's name as text: any bytes may name a file (the command line hands the
    ones that are not UTF-8 over as lone surrogates, which no database takes)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_again(draft: DraftFile, limit_mb: int = ATTACHMENT_MB) -> StoredFile:
    """A draft's file read again at send time, under the name it was attached as: it
    must still be there and hold what it held then (its hash)."""
    name = draft.attachment.name
    if draft.path is None or not os.path.lexists(draft.path):
        raise AttachmentError(f"{name} is no longer there: attach it again or remove it")
    stored = read_file(draft.path, limit_mb)
    if stored.sha256 != draft.attachment.sha256:
        raise AttachmentError(f"{name} changed since you attached it: attach it again")
    named = dataclasses.replace(stored.attachment, name=name)
    return StoredFile(named, stored.content, stored.text)


def checked(name: str, content: bytes) -> StoredFile:
    """A file's bytes (read from disk or pasted) checked and typed; raises
    :class:`AttachmentError` (one line naming the file and why)."""
    mime = sniff(content[:16], name)
    claimed = _claimed(name)
    if claimed is not None and claimed != mime and (mime is None or not is_image(mime)):
        # A .png that is not an image at all (a renamed file, a download that failed):
        # a JPEG named .png is still an image, and is sent as the JPEG it is.
        raise AttachmentError(f"{name} is named like {_kind_name(claimed)} but is not one")
    text: str | None = None
    if mime is None:
        text = _text(name, content)
        mime = text_type(name)
    elif is_image(mime):
        _check_image(name, mime, content)
    elif mime == PDF:
        text = pdf_text(name, content)
    sha = hashlib.sha256(content).hexdigest()
    return StoredFile(Attachment(sha, name, mime, len(content)), content, text)


def _claimed(name: str) -> str | None:
    """The type a file's extension claims for the kinds recognised by content."""
    suffix = Path(name).suffix.lower()
    return PDF if suffix == ".pdf" else IMAGE_SUFFIXES.get(suffix)


def _kind_name(mime: str) -> str:
    return "a PDF" if mime == PDF else f"a {KIND_NAMES[mime]} image"


def _check_image(name: str, mime: str, content: bytes) -> None:
    """Its header readable, and small enough to decode (no decompression bomb)."""
    try:
        size = size_of(mime, content)
    except BadImage as exc:
        raise AttachmentError(f"{name} is a damaged {KIND_NAMES[mime]} image: {exc}") from None
    if size.pixels > MAX_PIXELS:
        raise AttachmentError(
            f"{name} is {size.width:,} × {size.height:,} pixels: images may have at most "
            f"{MAX_PIXELS // 1_000_000} megapixels"
        )


def _text(name: str, content: bytes) -> str:
    """A text file's text: valid UTF-8 without NUL bytes (a BOM is dropped)."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if b"\0" in content[:8192] or Path(name).suffix.lower() not in _TEXT_SUFFIXES:
            raise AttachmentError(
                f"{name} is not an image (PNG, JPEG, GIF, WebP), a PDF or a UTF-8 text file"
            ) from None
        raise AttachmentError(
            f"{name} is not UTF-8 text (byte {exc.start + 1:,} is not): "
            "save it as UTF-8 and attach it again"
        ) from None
    if "\0" in text:
        raise AttachmentError(
            f"{name} is not an image (PNG, JPEG, GIF, WebP), a PDF or a UTF-8 text file"
        )
    return text
