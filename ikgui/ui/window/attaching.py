"""Files attached to the message being written (SPEC §13): taken from the Attach
button's dialog, a drop onto the window, a paste, or ``/attach PATH``; shown as chips
above the editor; kept with the conversation's draft (``draft_files``) across switching
and restarts; sent with the message.

Every file is read and checked in a worker thread (:func:`ikgui.files.read_file`): a
refusal (a type ikgui does not send, a file over the limit, an image that is not what
its name says) is said at once, in one line, and nothing is attached. A file attached
from the disk is kept by its path and hash, and read again when the message is sent: a
file changed or gone since is said, and nothing is sent. A pasted image has no path: its
bytes are stored at once (the draft refers to them by hash)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QMimeData, QObject, QSize
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage

from ikgui.domain.attachments import (
    ATTACHMENT_MB,
    Attachment,
    AttachmentError,
    DraftFile,
    StoredFile,
    draft_files,
    draft_files_text,
    is_image,
)
from ikgui.domain.errors import DatabaseUnreachable, IkguiError
from ikgui.ui.images import decoded

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.prompt.attachments import AttachmentChips
    from ikgui.ui.prompt.drafts import DraftKeeper
    from ikgui.ui.window.collaborators import Feedback, Spawner
    from ikgui.ui.window.services import WindowServices

#: The draft field the files are kept in (with the conversation, like its text).
FIELD = "draft_files"
#: The size a chip's picture is decoded at (the chip shows it at half: sharp on HiDPI).
CHIP_PICTURE = 64
#: The name a pasted image is attached under.
PASTED_NAME = "Pasted image.png"
#: ``/attach PATH``: handled by the window (it reads the user's disk), never the domain.
ATTACH_COMMAND = ("attach", "Attach a file to the message", "/attach <path>")


def local_paths(mime: QMimeData) -> list[str]:
    """The local files a drop or a paste carries (none for other URLs)."""
    if not mime.hasUrls():
        return []
    paths = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]
    return [p for p in paths if p]


def png_bytes(image: QImage) -> bytes:
    """``image`` as PNG (called in a worker thread: encoding a screenshot takes time)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # (The stubs say bytes; PySide takes only a str here.)
    image.save(buffer, "PNG")  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data())


def attach_argument(line: str) -> str | None:
    """The path of a typed ``/attach PATH`` (``""``: none given); ``None``: another line."""
    if line == "/attach" or line.startswith(("/attach ", "/attach\t")):
        return line[len("/attach") :].strip().strip('"')
    return None


class DraftAttachments(QObject):
    """The open conversation's attached files, from attaching to sending."""

    def __init__(
        self,
        session: Session,
        keeper: DraftKeeper,
        chips: AttachmentChips,
        feedback: Feedback,
        spawn: Spawner,
        services: WindowServices,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        #: Reading and checking files (``ikgui.files``, handed over by the root).
        self.read_file, self.check_file = services.read_file, services.check_file
        self.session = session
        self.keeper = keeper
        self.chips = chips
        self.feedback = feedback
        self.spawn = spawn
        #: The files attached to the draft on screen, in the order attached.
        self.files: list[DraftFile] = []
        #: Pasted files' bytes while the window lives (sent as they are).
        self._pasted: dict[str, StoredFile] = {}
        #: The chips' pictures, by hash (small: decoded once while the window lives).
        self._pictures: dict[str, QImage] = {}
        #: The conversation whose files the chips show.
        self._of: str | None = None
        #: Whether a click that would write is refused (the demo; set by the wiring).
        self.refuses: Callable[[], bool] = lambda: False
        chips.remove_requested.connect(self.remove)

    @property
    def limit_mb(self) -> int:
        return int(getattr(self.session.settings, "attachment_mb", ATTACHMENT_MB))

    # -- the draft ----------------------------------------------------------------
    def shown(self) -> None:
        """The open conversation is shown: its draft's files in the chips."""
        conv_id = self.session.conversation.id
        if conv_id == self._of:
            return
        self._of = conv_id
        self._set(draft_files(self.keeper.of_open(FIELD)), keep=False)

    def _set(self, files: Sequence[DraftFile], *, keep: bool = True) -> None:
        self.files = list(files)
        self.chips.show_files(self.files)
        if keep:
            self.keeper.keep(FIELD, draft_files_text(self.files) or None, now=True)
        wanted = []
        for file in self.files:
            picture = self._pictures.get(file.attachment.sha256)
            if picture is not None:
                self.chips.set_thumbnail(file.attachment.sha256, picture)
            elif is_image(file.attachment.mime):
                wanted.append(file)
        if wanted:
            self.spawn(self._thumbnails(wanted), "attachment-thumbnails")

    def remove(self, sha256: str) -> None:
        self._set([f for f in self.files if f.attachment.sha256 != sha256])

    def _add(self, file: DraftFile) -> None:
        if self.session.conversation.id != self._of:
            return  # switched meanwhile: the file belonged to the draft left
        sha = file.attachment.sha256
        if any(f.attachment.sha256 == sha for f in self.files):
            self.feedback.status(f"{file.attachment.name} is attached already", 4000)
            return
        self._set([*self.files, file])

    async def _thumbnails(self, files: Sequence[DraftFile]) -> None:
        for file in files:
            content = await self._content(file)
            if content is None:
                continue
            await self._picture(file.attachment.sha256, content)

    async def _picture(self, sha: str, content: bytes) -> None:
        """Decode a chip's picture off the loop, and show it."""
        picture = await asyncio.to_thread(decoded, content, QSize(CHIP_PICTURE, CHIP_PICTURE))
        self._pictures[sha] = picture
        self.chips.set_thumbnail(sha, picture)

    async def _content(self, file: DraftFile) -> bytes | None:
        sha = file.attachment.sha256
        if sha in self._pasted:
            return self._pasted[sha].content
        try:
            if file.path is None:
                found = await asyncio.to_thread(self.session.store.read_files, [sha])
                return found[sha].content if sha in found else None
            stored = await asyncio.to_thread(self.read_file, file.path, self.limit_mb)
        except (IkguiError, OSError):
            return None  # (said at send time, if it is still attached then)
        return stored.content if stored.sha256 == sha else None

    # -- attaching ------------------------------------------------------------------
    def _refused(self) -> bool:
        if self.refuses():
            return True
        read_only = self.session.read_only
        if read_only is not None:
            self.feedback.show(read_only.message, error=True)
            return True
        return False

    def attach_paths(self, paths: Sequence[str]) -> asyncio.Task[Any] | None:
        """Attach the files at ``paths`` (each refusal is said; the rest are attached)."""
        if not paths or self._refused():
            return None
        return self.spawn(self._attaching(list(paths)), "attach")

    async def _attaching(self, paths: list[str]) -> None:
        try:
            await self.adding(paths)
        except AttachmentError as exc:
            self.feedback.show(exc.line, error=True)

    async def adding(self, paths: Sequence[str]) -> str:
        """Read and check each file off the loop, and attach it; the first refusal is
        raised after the others are attached (one line, naming the file)."""
        self.feedback.show("")
        refusal: AttachmentError | None = None
        for path in paths:
            full = os.path.abspath(os.path.expanduser(path))
            try:
                stored = await asyncio.to_thread(self.read_file, full, self.limit_mb)
            except AttachmentError as exc:
                refusal = refusal or exc
                continue
            if is_image(stored.attachment.mime):  # (from these bytes: never read twice)
                await self._picture(stored.sha256, stored.content)
            self._add(DraftFile(stored.attachment, full))
        if refusal is not None:
            raise refusal
        return ""

    def attach_image(self, image: QImage, name: str = PASTED_NAME) -> asyncio.Task[Any] | None:
        """Attach a pasted (or dropped) picture: encoded as PNG off the loop, stored."""
        if image.isNull() or self._refused():
            return None
        return self.spawn(self._pasting(image.copy(), name), "attach-image")

    async def _pasting(self, image: QImage, name: str) -> None:
        try:
            content = await asyncio.to_thread(png_bytes, image)
            stored = await asyncio.to_thread(self.check_file, name, content)
            if stored.attachment.size > self.limit_mb * 1024 * 1024:
                raise AttachmentError(
                    f"{name} is larger than {self.limit_mb} MB: files may be at most that"
                )
            self.session.store.put_files([stored])
        except IkguiError as exc:
            self.feedback.show(exc.line, error=True)
            return
        self._pasted[stored.sha256] = stored
        await self._picture(stored.sha256, stored.content)
        self._add(DraftFile(stored.attachment, None))

    def take_mime(self, mime: QMimeData) -> bool:
        """Attach what a drop or a paste carries (local files, or a picture); ``False``:
        nothing to attach (text, say: it is the editor's)."""
        paths = local_paths(mime)
        if paths:
            self.attach_paths(paths)
            return True
        if mime.hasImage():
            image = mime.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self.attach_image(image)
                return True
        return False

    # -- sending ----------------------------------------------------------------------
    def line_work(self, line: str) -> Callable[[], Awaitable[str]] | None:
        """The work of a typed line when it concerns files: ``/attach PATH``, or a
        message sent with files attached (``None``: the session runs it as it is)."""
        path = attach_argument(line)
        if path is not None:
            if not path:
                return lambda: _refusal("/attach needs a file: /attach PATH")
            return lambda: self.adding([path])
        if not self.files or (line.startswith("/") and not line.startswith("//")):
            return None
        text = line[1:] if line.startswith("//") else line
        return lambda: self.sending(text)

    async def resolved(self, files: Sequence[DraftFile]) -> list[StoredFile | Attachment]:
        """The files as they are sent: each one from the disk read again off the loop,
        and still what it was when attached."""
        out: list[StoredFile | Attachment] = []
        for file in files:
            attachment = file.attachment
            if file.path is None:
                out.append(self._pasted.get(attachment.sha256, attachment))
                continue
            if not Path(file.path).is_file():
                raise AttachmentError(
                    f"{attachment.name} is no longer there: attach it again or remove it"
                )
            stored = await asyncio.to_thread(self.read_file, file.path, self.limit_mb)
            if stored.sha256 != attachment.sha256:
                raise AttachmentError(
                    f"{attachment.name} changed since you attached it: attach it again"
                )
            named = Attachment(
                stored.sha256, attachment.name, stored.attachment.mime, stored.attachment.size
            )
            out.append(StoredFile(named, stored.content, stored.text))
        return out

    async def sending(self, text: str) -> str:
        """Send ``text`` with the draft's files; they leave the chips as the send starts
        and come back if nothing was recorded (a refusal, a busy conversation)."""
        files, before = list(self.files), self._position()
        resolved = await self.resolved(files)
        self._set([])
        # The first message of a conversation in a project carries its files (SPEC §15).
        command = text.startswith("/") and not text.startswith("//")
        try:
            project = [] if command else list(self.session.project_files())
        except DatabaseUnreachable:
            project = []  # the send says the store is away, and keeps the message
        try:
            await self.session.send(text, files=[*project, *resolved])
        finally:
            unsent = self._position() == before
            if unsent and not self.files:
                self._set(files)  # nothing was sent: the files stay with the draft
        return ""

    def _position(self) -> tuple[str, int | None]:
        shown = self.session.state.scrollback
        return self.session.conversation.id, shown[-1].id if shown else None


async def _refusal(line: str) -> str:
    raise AttachmentError(line)


class DropTarget(QObject):
    """Takes files and pictures dropped anywhere on the window (installed on the window
    and on the widgets that would take a drop themselves: the editor, the transcript)."""

    def __init__(self, attachments: DraftAttachments, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.attachments = attachments

    @staticmethod
    def carries_files(mime: QMimeData | None) -> bool:
        return mime is not None and (bool(local_paths(mime)) or mime.hasImage())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent | QDropEvent)
            if self.carries_files(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            if self.carries_files(event.mimeData()):
                event.acceptProposedAction()
                self.attachments.take_mime(event.mimeData())
                return True
        return False
