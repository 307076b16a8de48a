"""Issue 24, item 3 (and the window's share of items 7 and "Speed"): a message's files in
the transcript — images as thumbnails decoded off the window's thread only as they
scroll into view (a conversation of 100 images decodes the few on screen when it
opens), a viewer on click (fit, zoom, Save As), chips for other files (Save As, Open
with the system's application); an image that cannot be decoded (a decompression bomb
from an imported log) shows a plain box, never a freeze."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QPoint, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from ikgui.domain.attachments import StoredFile, listed
from ikgui.domain.events import Conversation
from ikgui.files import checked
from ikgui.storage import open_store
from ikgui.ui.transcript.file_viewer import AttachmentViewer
from ikgui.ui.window.main_window import MainWindow
from tests.support import sample_files
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import laid_out, wait_until
from tests.ui.test_window import closed, opened, settle, write_config

__all__ = ["wire_server", "wire_server_session"]

CONV = "conv-pictures"


def picture(n: int) -> StoredFile:
    """A different real PNG for each ``n`` (each its own hash)."""
    rgb = (n * 37 % 256, n * 91 % 256, 200)
    return checked(f"shot-{n}.png", sample_files.png(320, 200, rgb))


def seed(path: Path | str, images: int, extra: list[StoredFile] | None = None) -> list[StoredFile]:
    """A conversation of ``images`` messages, each with its screenshot, and a reply each;
    then one message with the ``extra`` files. Returns every file stored."""
    files = [picture(n) for n in range(images)]
    store = open_store(path)
    try:
        with store.transaction():
            store.insert_conversation(
                Conversation(CONV, title="Pictures", created_at=1000.0, updated_at=1000.0)
            )
            for n, file in enumerate(files):
                data = {"attachments": [file.attachment.data()]}
                store.append_event(CONV, "user", f"What is in picture {n}?", data, files=[file])
                store.append_event(CONV, "assistant", f"Picture {n} is a square.", {})
            if extra:
                data = {"attachments": [f.attachment.data() for f in extra]}
                store.append_event(CONV, "user", "And these?", data, files=extra)
    finally:
        store.close()
    return files + (extra or [])


async def window_over(tmp_path: Path, url: str, images: int, **more: object) -> MainWindow:
    home = tmp_path / "home"
    write_config(home, url)
    seed(home / "ikgui.db", images, **more)  # type: ignore[arg-type]
    win = await opened(home)
    await laid_out()
    await settle(win)
    return win


def image_positions(win: MainWindow) -> list[int]:
    """Where each thumbnail is in the transcript's document."""
    document = win.scrollback.document()
    found = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().isImageFormat():
                found.append(fragment.position())
            it += 1
        block = block.next()
    return found


async def test_opening_a_conversation_of_100_images_decodes_only_those_in_view(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    win = await window_over(tmp_path, wire_server.url, 100)
    try:
        files = win.scrollback.files
        await wait_until(lambda: files.decodes > 0)
        await settle(win)
        assert len(image_positions(win)) >= 70  # laid out: at their boxes' size
        opened_with = files.decodes
        assert 0 < opened_with <= 10, opened_with  # a screenful, not a hundred
        # Scrolling up paints (and so decodes) the thumbnails that come into view.
        bar = win.scrollback.verticalScrollBar()
        bar.setValue(bar.maximum() // 2)
        await wait_until(lambda: files.decodes > opened_with)
        await settle(win)
        assert files.decodes <= opened_with + 12
        # A thumbnail seen once is not decoded again when the transcript is rebuilt.
        before = files.decodes
        bar.setValue(bar.maximum())
        await laid_out()
        await settle(win)
        assert files.decodes <= before + 2
    finally:
        await closed(win)


async def test_a_thumbnail_click_opens_the_viewer_with_zoom_and_save_as(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, monkeypatch: object
) -> None:
    win = await window_over(tmp_path, wire_server.url, 3)
    try:
        view = win.scrollback
        position = image_positions(win)[-1]
        cursor = QTextCursor(view.document())
        cursor.setPosition(position)
        rect = view.cursorRect(cursor)
        qtbot.mouseClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center() + QPoint(20, 0)
        )
        await wait_until(lambda: isinstance(view.files.opened, AttachmentViewer))
        viewer = view.files.opened
        assert isinstance(viewer, AttachmentViewer)
        assert viewer.objectName() == "attachmentViewer"
        assert viewer.windowTitle().startswith("shot-2.png")
        await wait_until(lambda: not viewer.image.isNull())
        assert (viewer.image.width(), viewer.image.height()) == (320, 200)
        viewer.zoom_in_button.click()
        assert viewer.zoom is not None
        width = viewer.picture.pixmap().width()
        viewer.zoom_in_button.click()
        assert viewer.picture.pixmap().width() > width
        viewer.fit_button.click()
        assert viewer.zoom is None

        target = tmp_path / "saved.png"
        import ikgui.ui.questions as questions

        monkeypatch.setattr(  # type: ignore[attr-defined]
            questions, "ask_save_path", lambda parent, caption, start, filters, then: then(target)
        )
        viewer.save_button.click()
        await settle(win)
        assert target.read_bytes() == picture(2).content
        assert "Saved saved.png" in win.feedback.text()
        viewer.close()
    finally:
        await closed(win)


class _Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


async def test_other_files_show_as_chips_with_save_as_and_open(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot, monkeypatch: object
) -> None:
    report = checked("report.pdf", sample_files.pdf("Quarterly figures"))
    notes = checked("<b>notes</b>.md", b"# Notes\n")
    win = await window_over(tmp_path, wire_server.url, 1, extra=[report, notes])
    try:
        view = win.scrollback
        last = view.item_texts()[-1]
        assert "PDF · report.pdf · " in last
        assert "Text · <b>notes</b>.md · 8 bytes" in last  # plain text, never markup
        event = [e for e in win.session.state.scrollback if e.kind == "user"][-1]
        assert [a.name for a in listed(event.data)] == ["report.pdf", "<b>notes</b>.md"]
        # The message's menu reaches its files by keyboard too.
        item_menu = view.menu_for(event.id)
        offered = [a.text() for a in item_menu.actions() if a.objectName() == "actionOpenFile"]
        assert offered == ["Save or open report.pdf", "Save or open <b>notes</b>.md"]
        next(a for a in item_menu.actions() if a.objectName() == "actionOpenFile").trigger()
        assert isinstance(view.files.opened, QMenu)
        view.files.opened.close()
        item_menu.deleteLater()
        menu = view.open_file(event.id, report.sha256)
        assert isinstance(menu, QMenu)
        names = [a.objectName() for a in menu.actions()]
        assert names == ["actionSaveAttachment", "actionOpenAttachment"]
        menu.close()

        target = tmp_path / "out" / "copy.pdf"
        target.parent.mkdir()
        import ikgui.ui.questions as questions

        monkeypatch.setattr(  # type: ignore[attr-defined]
            questions, "ask_save_path", lambda parent, caption, start, filters, then: then(target)
        )
        view.files.save_as(listed(event.data)[0])
        await settle(win)
        assert target.read_bytes() == report.content

        handler = _Opened()
        QDesktopServices.setUrlHandler("file", handler, "open")
        try:
            await view.files.open_outside(listed(event.data)[0])
        finally:
            QDesktopServices.unsetUrlHandler("file")
        assert len(handler.urls) == 1
        opened_path = Path(handler.urls[0].toLocalFile())
        assert opened_path.name == "report.pdf"
        assert opened_path.read_bytes() == report.content
    finally:
        await closed(win)


async def test_an_image_that_cannot_be_decoded_shows_a_plain_box(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    # An imported log can carry what the attach checks refuse: a 50,000 × 50,000 PNG.
    bomb = sample_files.png_bomb()
    import hashlib

    from ikgui.domain.attachments import Attachment

    sha = hashlib.sha256(bomb).hexdigest()
    stored = StoredFile(Attachment(sha, "bomb.png", "image/png", len(bomb)), bomb)
    win = await window_over(tmp_path, wire_server.url, 0, extra=[stored])
    try:
        view = win.scrollback
        await wait_until(lambda: view.files.decodes == 1)
        await settle(win)
        event = [e for e in win.session.state.scrollback if e.kind == "user"][-1]
        viewer = view.open_file(event.id, sha)
        assert isinstance(viewer, AttachmentViewer)
        await settle(win)
        assert viewer.image.isNull()
        assert "cannot be shown" in viewer.picture.text()
        viewer.close()
    finally:
        await closed(win)


async def test_thumbnails_and_the_viewer_read_from_postgresql(
    tmp_path: Path, pg_url: str, wire_server: WireServer, qtbot: QtBot
) -> None:
    from tests.ui.store_window import opened_over

    files = seed(pg_url, 4)
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened_over(open_store(pg_url), home)
    try:
        view = win.scrollback
        await wait_until(lambda: view.files.decodes > 0)
        await settle(win)
        event = [e for e in win.session.state.scrollback if e.kind == "user"][-1]
        viewer = view.open_file(event.id, files[3].sha256)
        assert isinstance(viewer, AttachmentViewer)
        await wait_until(lambda: not viewer.image.isNull())
        assert viewer.image.width() == 320
        viewer.close()
    finally:
        await closed(win)


def test_thumbnails_are_images_of_the_transcript_only() -> None:
    from ikgui.ui.transcript.files import THUMB_SCHEME, thumb_sha

    assert thumb_sha(QUrl(f"{THUMB_SCHEME}:{'a' * 64}")) == "a" * 64
    assert thumb_sha(QUrl("https://example.com/a.png")) is None
    assert thumb_sha(QUrl(f"{THUMB_SCHEME}:../../etc/passwd")) is None
