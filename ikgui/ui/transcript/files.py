"""A message's files in the transcript (SPEC §13): images as thumbnails under the text,
other files as chips (name and size); a click opens an image in the viewer, and offers
Save As and Open for the others.

A thumbnail is laid out at its box's size (``THUMB``) before its picture exists: the
document asks for the picture only when it paints it, that is when it scrolls into view
(:meth:`MessageFiles.resource`). Then the file's bytes are read from the store and
decoded and scaled in a worker thread, once; the picture is kept (``CACHE`` of them) and
the view repainted. Opening a conversation of a hundred images decodes the few on
screen. Names are shown as plain text; the links use ikgui's own schemes
(``ikgui-file:``), which never reach ``QDesktopServices``."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QPoint, QSize, QUrl
from PySide6.QtGui import (
    QColor,
    QCursor,
    QDesktopServices,
    QFont,
    QImage,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
)
from PySide6.QtWidgets import QMenu, QWidget

from ikgui.domain.attachments import Attachment, StoredFile, is_image, size_text
from ikgui.domain.errors import IkguiError
from ikgui.ui.images import boxed, decoded
from ikgui.ui.plain import line, tooltip
from ikgui.ui.transcript.items import Colors, blend

FILE_SCHEME = "ikgui-file"
THUMB_SCHEME = "ikgui-thumb"
#: A thumbnail's box in the transcript, in pixels (the picture is fitted inside).
THUMB = QSize(168, 120)
#: Thumbnails kept decoded (a screenful is a dozen; scrolling back reuses them).
CACHE = 240

Reader = Callable[[Sequence[str]], Mapping[str, StoredFile]]
Spawn = Callable[[Coroutine[Any, Any, Any], str], "asyncio.Task[Any]"]


def file_href(event_id: int, sha256: str) -> str:
    return f"{FILE_SCHEME}:{event_id}/{sha256}"


def file_link(url: QUrl) -> tuple[int, str] | None:
    """``(event id, sha256)`` of a file's link in the transcript."""
    if url.scheme() != FILE_SCHEME:
        return None
    event, _, sha = url.path().partition("/")
    if not event.lstrip("-").isdigit() or len(sha) != 64:
        return None
    return int(event), sha


def thumb_sha(url: QUrl | str) -> str | None:
    url = QUrl(url) if isinstance(url, str) else url
    if url.scheme() != THUMB_SCHEME or len(url.path()) != 64:
        return None
    return url.path()


def chip_text(attachment: Attachment) -> str:
    kind = "PDF" if attachment.mime == "application/pdf" else "Text"
    return f"\u2009{kind} · {line(attachment.name)} · {size_text(attachment.size)}\u2009"


def write_files(
    cursor: QTextCursor,
    event_id: int,
    files: Sequence[Attachment],
    colors: Colors,
    font: QFont,
) -> None:
    """The files' row at ``cursor`` (the end of a message's frame): thumbnails first,
    then a chip for each other file."""
    block = QTextBlockFormat()
    block.setTopMargin(6)
    cursor.insertBlock(block, QTextCharFormat())
    space = QTextCharFormat()
    for attachment in files:
        if not is_image(attachment.mime):
            continue
        image = QTextImageFormat()
        image.setName(f"{THUMB_SCHEME}:{attachment.sha256}")
        image.setWidth(THUMB.width())
        image.setHeight(THUMB.height())
        image.setAnchor(True)
        image.setAnchorHref(file_href(event_id, attachment.sha256))
        image.setToolTip(
            tooltip(f"{attachment.name} ({size_text(attachment.size)}): click to view")
        )
        cursor.insertImage(image)
        cursor.insertText("  ", space)
    others = [a for a in files if not is_image(a.mime)]
    if others and len(others) < len(files):  # (a chip beside a thumbnail would be as tall)
        cursor.insertBlock(block, QTextCharFormat())
    chip = QTextCharFormat()
    chip.setBackground(blend(colors.base, colors.text, 0.10))
    chip.setForeground(colors.text)
    chip.setFontPointSize(max(font.pointSizeF() * 0.9, 6.0))
    for attachment in others:
        fmt = QTextCharFormat(chip)
        fmt.setAnchor(True)
        fmt.setAnchorHref(file_href(event_id, attachment.sha256))
        fmt.setToolTip(tooltip(f"{attachment.name}: click to save or open"))
        cursor.insertText(chip_text(attachment), fmt)
        cursor.insertText("  ", space)


class MessageFiles(QObject):
    """Thumbnails for one document (loaded as they are painted) and what a click on a
    file does. The window sets ``reader`` (the store's ``read_files``, called in a
    worker thread) and ``spawn``."""

    def __init__(self, document: QTextDocument, view: QWidget) -> None:
        super().__init__(view)
        self.document = document
        self.view = view
        self.reader: Reader | None = None
        self.spawn: Spawn = lambda coro, name: asyncio.ensure_future(coro)
        #: Pictures decoded (a test counts them: opening decodes only what shows).
        self.decodes = 0
        self._cache: OrderedDict[str, QImage] = OrderedDict()
        self._pending: set[str] = set()
        self._wanted: list[str] = []
        self._placeholder: QImage | None = None
        #: The last viewer or menu opened (tests and screenshots look at it).
        self.opened: QWidget | None = None
        #: Says an outcome in one line (set by the window: its feedback line).
        self.say: Callable[[str, bool], None] = lambda text, error: None

    # -- thumbnails ---------------------------------------------------------------------
    def resource(self, url: QUrl) -> object:
        """The document's image at ``url``: the decoded thumbnail, or a placeholder
        while it loads (asked for when painted: only what scrolls into view loads)."""
        sha = thumb_sha(url)
        if sha is None:
            return None
        image = self._cache.get(sha)
        if image is not None:
            self._cache.move_to_end(sha)
            return image
        self._want(sha)
        return self.placeholder()

    def placeholder(self) -> QImage:
        if self._placeholder is None:
            colors = Colors.from_palette(self.view.palette())
            backdrop = blend(colors.base, colors.text, 0.08)
            self._placeholder = boxed(QImage(), THUMB, backdrop)
        return self._placeholder

    def restyled(self) -> None:
        """The palette changed: placeholders in its colours from now on."""
        self._placeholder = None

    def _want(self, sha: str) -> None:
        if sha in self._pending or self.reader is None:
            return
        self._pending.add(sha)
        self._wanted.append(sha)
        if len(self._wanted) == 1:  # one load per paint, for every thumbnail it showed
            self.spawn(self._load(), "thumbnails")

    async def _load(self) -> None:
        await asyncio.sleep(0)  # (the rest of this paint asks for its thumbnails too)
        batch, self._wanted = self._wanted, []
        try:
            pictures = await asyncio.to_thread(self._decode, batch)
        except IkguiError:  # the database is away: painted again later, asked again
            pictures = {}
        for sha in batch:
            self._pending.discard(sha)
        for sha, image in pictures.items():
            self._cache[sha] = image
            self.document.addResource(
                QTextDocument.ResourceType.ImageResource.value,
                QUrl(f"{THUMB_SCHEME}:{sha}"),
                image,
            )
        while len(self._cache) > CACHE:
            self._cache.popitem(last=False)
        if pictures:
            self.view.update()
            viewport = getattr(self.view, "viewport", None)
            if viewport is not None:
                viewport().update()

    def _decode(self, shas: Sequence[str]) -> dict[str, QImage]:
        """In a worker thread: read the files and decode each into its box."""
        assert self.reader is not None
        found = self.reader(list(shas))
        inner = QSize(THUMB.width() - 4, THUMB.height() - 4)
        pictures: dict[str, QImage] = {}
        for sha in shas:
            stored = found.get(sha)
            picture = decoded(stored.content, inner) if stored is not None else QImage()
            self.decodes += 1
            pictures[sha] = boxed(picture, THUMB, None if not picture.isNull() else _BROKEN)
        return pictures

    # -- a click on a file -----------------------------------------------------------------
    def open(self, attachment: Attachment, at: QPoint | None = None) -> QWidget | None:
        """An image: the viewer; another file: a menu of Save As and Open."""
        if is_image(attachment.mime):
            from ikgui.ui.transcript.file_viewer import AttachmentViewer

            viewer = AttachmentViewer(attachment, self.view)
            viewer.save_requested.connect(lambda: self.save_as(attachment))
            viewer.show()
            self.spawn(self._fill_viewer(viewer), "attachment-viewer")
            self.opened = viewer
            return viewer
        menu = QMenu(self.view)
        menu.setObjectName("attachmentMenu")
        menu.addAction("Save As…", lambda: self.save_as(attachment)).setObjectName(
            "actionSaveAttachment"
        )
        menu.addAction("Open", lambda: self.spawn(self.open_outside(attachment), "open-file"))
        menu.actions()[-1].setObjectName("actionOpenAttachment")
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(at if at is not None else QCursor.pos())
        self.opened = menu
        return menu

    async def content(self, sha: str) -> StoredFile | None:
        if self.reader is None:
            return None
        try:
            found = await asyncio.to_thread(self.reader, [sha])
        except IkguiError:
            return None
        return found.get(sha)

    async def _fill_viewer(self, viewer: Any) -> None:
        stored = await self.content(viewer.attachment.sha256)
        image = await asyncio.to_thread(decoded, stored.content) if stored else QImage()
        viewer.show_image(image)

    def save_as(self, attachment: Attachment) -> None:
        from ikgui.ui.questions import ask_save_path
        from ikgui.ui.window.export_file import documents

        def chosen(path: Path) -> None:
            self.spawn(self.save_to(attachment, path), "save-file")

        start = documents() / Path(attachment.name).name
        ask_save_path(self.view, "Save attachment", start, "All files (*)", chosen)

    async def save_to(self, attachment: Attachment, path: Path) -> str:
        """Write the file's bytes to ``path`` (off the loop); the outcome in one line."""
        stored = await self.content(attachment.sha256)
        if stored is None:
            return self._said(f"{attachment.name} is not in the database any more")
        try:
            await asyncio.to_thread(path.write_bytes, stored.content)
        except OSError as exc:
            return self._said(f"{path.name} could not be saved: {exc.strerror or exc}")
        return self._said(f"Saved {path.name}", error=False)

    async def open_outside(self, attachment: Attachment) -> str:
        """Open the file with the system's application (from a copy in a folder of
        ikgui's own under the temporary folder)."""
        stored = await self.content(attachment.sha256)
        if stored is None:
            return self._said(f"{attachment.name} is not in the database any more")
        folder = Path(tempfile.gettempdir()) / "ikgui-files" / attachment.sha256[:16]
        path = folder / (Path(attachment.name).name or "file")
        try:
            await asyncio.to_thread(_write_copy, path, stored.content)
        except OSError as exc:
            return self._said(f"{attachment.name} could not be opened: {exc.strerror or exc}")
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
        return ""

    def _said(self, text: str, error: bool = True) -> str:
        self.say(text, error)
        return text


#: The backdrop of an image that cannot be shown (not one Qt reads, or too large).
_BROKEN = QColor(128, 128, 128, 60)


def _write_copy(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not (path.exists() and path.stat().st_size == len(content)):
        path.write_bytes(content)
    os.chmod(path, 0o600)
