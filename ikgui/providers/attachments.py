"""A message's attached files in each provider's wire form (SPEC §13).

The domain's context gives a user message its files as ``message["files"]``: a
:class:`~ikgui.domain.attachments.StoredFile` each (its bytes, read from the store at
send time), or an :class:`~ikgui.domain.attachments.Attachment` alone for a file the
store no longer has. Images go as OpenAI ``image_url`` data URLs, Anthropic ``image``
blocks and Ollama ``images``; PDFs as Anthropic ``document`` blocks and elsewhere as
their extracted text, headed by the file's name; text files as a text part naming the
file.

A 20 MB image is 27 MB of base64: building it as a Python string, then a JSON string
of the whole body, then its bytes would hold four copies at once. :class:`Blobs` hands
the body out with a short placeholder where each file's base64 goes; :meth:`Blobs.encode`
turns it into a :class:`Body`: the JSON around the files, and the files, encoded to
base64 a piece at a time as the request is sent (its length known beforehand), so no
copy of the whole base64 is ever held.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from ikgui.domain.attachments import PDF, Attachment, StoredFile, is_image

#: A file as the context hands it over: stored (with its bytes), or missing.
File = StoredFile | Attachment


class Blobs:
    """The base64 of files in a body: written in place (``deferred=False``, a body a
    test or a log reads), or as placeholders :meth:`encode` fills in."""

    def __init__(self, deferred: bool = False) -> None:
        self.deferred = deferred
        self._files: list[bytes] = []

    def base64(self, file: StoredFile) -> str:
        if not self.deferred:
            return base64.b64encode(file.content).decode("ascii")
        self._files.append(file.content)
        return _marker(len(self._files) - 1)

    def encode(self, body: dict[str, Any]) -> Body:
        """The body as JSON, each placeholder to be replaced by its file's base64."""
        encoded = json.dumps(body, ensure_ascii=False).encode()
        pieces: list[bytes | memoryview] = []
        rest = encoded
        for index, content in enumerate(self._files):
            marker = json.dumps(_marker(index))[1:-1].encode()
            before, found, after = rest.partition(marker)
            if found:  # (a body that dropped the file has nothing to splice)
                pieces += (before, memoryview(content))
                rest = after
        pieces.append(rest)
        self._files.clear()
        return Body(pieces)


#: How much of a file is encoded to base64 at a time while sending (a multiple of 3,
#: so the pieces join into one base64 text): about a millisecond of work each.
PIECE = 3 * 256 * 1024


@dataclass(frozen=True)
class Body:
    """A request's body: JSON bytes, and files (``memoryview``) that go as base64."""

    pieces: list[bytes | memoryview]

    @property
    def length(self) -> int:
        """Its size in bytes once encoded (its ``content-length``)."""
        return sum(len(p) if isinstance(p, bytes) else 4 * ((len(p) + 2) // 3) for p in self.pieces)

    def whole(self) -> bytes:
        """All of it at once (a test, a small body)."""
        return b"".join(p if isinstance(p, bytes) else base64.b64encode(p) for p in self.pieces)

    async def stream(self) -> AsyncIterator[bytes]:
        """Its bytes as they are sent, each file encoded a piece at a time."""
        for piece in self.pieces:
            if isinstance(piece, bytes):
                yield piece
                continue
            for start in range(0, len(piece), PIECE):
                yield base64.b64encode(piece[start : start + PIECE])
                await asyncio.sleep(0)  # the window paints between pieces


def _marker(index: int) -> str:
    # NUL never occurs in a JSON string ikgui writes unescaped, nor in a file's name.
    return f"\x00ikgui-file-{index}\x00"


def files_of(message: dict[str, Any]) -> list[File]:
    """The files a context message carries (none for most)."""
    files = message.get("files")
    return [f for f in files if isinstance(f, StoredFile | Attachment)] if files else []


def carries_files(messages: Sequence[dict[str, Any]]) -> bool:
    return any(m.get("files") for m in messages)


def sent_types(messages: Sequence[dict[str, Any]]) -> frozenset[str]:
    """The types of the files a request carries as files (images, PDFs), not text."""
    return frozenset(
        f.attachment.mime
        for m in messages
        for f in files_of(m)
        if isinstance(f, StoredFile) and (is_image(f.attachment.mime) or f.attachment.mime == PDF)
    )


def openai_messages(messages: Sequence[dict[str, Any]], blobs: Blobs) -> list[dict[str, Any]]:
    """The context as OpenAI sends it: a message with files gets content parts; the
    domain's own keys (``files``, ``attachments``) never go on the wire."""
    out: list[dict[str, Any]] = []
    for message in messages:
        files = files_of(message)
        wire = {k: v for k, v in message.items() if k not in ("files", "attachments")}
        if files:
            text = message.get("content")
            wire["content"] = openai_content(text if isinstance(text, str) else "", files, blobs)
        out.append(wire)
    return out


def _attachment(file: File) -> Attachment:
    return file.attachment if isinstance(file, StoredFile) else file


def named_text(file: File) -> str:
    """A file that goes as text: its text, headed by its name (a PDF's extracted text;
    a file the store no longer has says so)."""
    attachment = _attachment(file)
    name = attachment.name.replace('"', "'")
    if not isinstance(file, StoredFile):
        return f'<file name="{name}">(this file is no longer stored)</file>'
    text = file.text
    if not text:
        what = "PDF" if attachment.mime == PDF else "file"
        text = f"(no text could be read from this {what})"
    return f'<file name="{name}" type="{attachment.mime}">\n{text}\n</file>'


def data_url(file: StoredFile, blobs: Blobs) -> str:
    return f"data:{file.attachment.mime};base64,{blobs.base64(file)}"


def is_stored_image(file: File) -> bool:
    return isinstance(file, StoredFile) and is_image(file.attachment.mime)


# -- the three wire forms -----------------------------------------------------
def openai_content(text: str, files: Sequence[File], blobs: Blobs) -> list[dict[str, Any]]:
    """OpenAI content parts: the files (images as data URLs, others as named text),
    then the message's text."""
    parts: list[dict[str, Any]] = []
    for file in files:
        if isinstance(file, StoredFile) and is_image(file.attachment.mime):
            parts.append({"type": "image_url", "image_url": {"url": data_url(file, blobs)}})
        else:
            parts.append({"type": "text", "text": named_text(file)})
    if text:
        parts.append({"type": "text", "text": text})
    return parts


def anthropic_blocks(files: Sequence[File], blobs: Blobs) -> list[dict[str, Any]]:
    """Anthropic content blocks for the files (before the message's text, as its
    documentation advises): ``image`` and ``document`` blocks, text files as text."""
    blocks: list[dict[str, Any]] = []
    for file in files:
        if isinstance(file, StoredFile) and (is_image(file.attachment.mime) or _is_pdf(file)):
            mime = file.attachment.mime
            source = {"type": "base64", "media_type": mime, "data": blobs.base64(file)}
            if mime == PDF:
                blocks.append({"type": "document", "source": source, "title": file.attachment.name})
            else:
                blocks.append({"type": "image", "source": source})
        else:
            blocks.append({"type": "text", "text": named_text(file)})
    return blocks


def _is_pdf(file: StoredFile) -> bool:
    return file.attachment.mime == PDF


def ollama_message(text: str, files: Sequence[File], blobs: Blobs) -> dict[str, Any]:
    """Ollama's user message: other files' text before the message's, images apart."""
    texts = [named_text(f) for f in files if not is_stored_image(f)]
    content = "\n\n".join(t for t in (*texts, text) if t)
    message: dict[str, Any] = {"role": "user", "content": content}
    images = [blobs.base64(f) for f in files if isinstance(f, StoredFile) and is_stored_image(f)]
    if images:
        message["images"] = images
    return message
