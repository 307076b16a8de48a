"""Issue 24, item 2 (and the window's share of item 7): files attached in the window —
the Attach button's dialog, a drop onto the window, a paste, ``/attach PATH`` — show as
chips above the editor (name, size, a thumbnail, remove), stay with the draft across
switching and restarts, are refused at once with one line naming the file and why, and
are sent with the message (read again first: a file changed or gone since is said, and
nothing is sent)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from ikgui.domain.attachments import draft_files
from ikgui.ui.prompt.attachments import AttachmentChip
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.conftest import wait_until
from tests.ui.test_window import closed, opened, reply, settle, write_config

__all__ = ["wire_server", "wire_server_session"]


def png(path: Path, width: int = 64, height: int = 40, color: str = "#d04030") -> Path:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(color))
    path.parent.mkdir(parents=True, exist_ok=True)
    assert image.save(str(path), "PNG")
    return path


def chips(win: MainWindow) -> list[AttachmentChip]:
    return [c for c in win.pane.attachment_chips.chips if not c.isHidden()]


def chip_names(win: MainWindow) -> list[str]:
    return [c.file.attachment.name for c in chips(win)]


def feedback(win: MainWindow) -> str:
    return win.feedback.text() if win.feedback.isVisible() else ""


async def attach_by_button(win: MainWindow, *paths: Path) -> None:
    """The Attach button, with the file dialog answered (window-modal: never exec()-ed)."""
    win.ask_open_paths = lambda then: then([str(p) for p in paths])  # type: ignore[method-assign]
    win.pane.attach_button.click()
    await settle(win)


async def test_attach_button_shows_chips_with_name_size_and_thumbnail(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        assert win.findChild(type(win.pane.attach_button), "attachButton") is not None
        assert not win.pane.attachment_chips.isVisible()
        shot = png(tmp_path / "screen shot.png")
        notes = tmp_path / "notes.md"
        notes.write_text("# Notes\nthe plan\n", encoding="utf-8")
        await attach_by_button(win, shot, notes)
        await wait_until(lambda: chip_names(win) == ["screen shot.png", "notes.md"])
        assert win.pane.attachment_chips.isVisible()
        image_chip, text_chip = chips(win)
        assert image_chip.objectName() == "attachmentChip"
        assert text_chip.size_label.text() == "17 bytes"
        await wait_until(lambda: image_chip.thumb.pixmap() is not None)
        await wait_until(lambda: not image_chip.thumb.pixmap().isNull())
        assert text_chip.thumb.text() == "TXT"
        # Remove: the chip goes, the other stays.
        image_chip.remove.click()
        await wait_until(lambda: chip_names(win) == ["notes.md"])
    finally:
        await closed(win)


async def test_refused_files_say_why_at_once_and_attach_nothing(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        binary = tmp_path / "tool.exe"
        binary.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\xff\xff\xfe" * 20)
        await attach_by_button(win, binary)
        assert chips(win) == []
        assert "tool.exe" in feedback(win)
        assert "\n" not in feedback(win)
        big = tmp_path / "big.txt"
        big.write_bytes(b"a" * (21 * 1024 * 1024))
        await attach_by_button(win, big)
        assert chips(win) == []
        assert "big.txt" in feedback(win) and "MB" in feedback(win)
        latin = tmp_path / "latin.txt"
        latin.write_bytes("café crème".encode("latin-1"))
        await attach_by_button(win, latin)
        assert chips(win) == [] and "latin.txt" in feedback(win)
        fake = tmp_path / "photo.png"
        fake.write_text("not a picture at all", encoding="utf-8")
        await attach_by_button(win, fake)
        assert chips(win) == [] and "photo.png" in feedback(win)
        # One bad file among good ones: the good ones are attached, the bad one said.
        good = png(tmp_path / "good.png")
        await attach_by_button(win, good, binary)
        assert chip_names(win) == ["good.png"]
        assert "tool.exe" in feedback(win)
    finally:
        await closed(win)


async def test_bombs_and_bad_pdfs_are_refused_in_one_line_each(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    from tests.support import sample_files

    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        bad = {
            "bomb.png": sample_files.png_bomb(),
            "locked.pdf": sample_files.encrypted_pdf(),
            "broken.pdf": sample_files.damaged_pdf(),
            "long.pdf": sample_files.long_pdf(2000),
        }
        for name, content in bad.items():
            path = tmp_path / name
            path.write_bytes(content)
            await attach_by_button(win, path)
            said = feedback(win)
            assert said.startswith("Error: ") and name in said, said
            assert "\n" not in said and "Traceback" not in said
            assert chips(win) == []
        assert win.store.has_files([]) == set()
    finally:
        await closed(win)


async def test_typed_attach_command_and_a_drop_attach_files(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        listing = tmp_path / "data.csv"
        listing.write_text("a,b\n1,2\n", encoding="utf-8")
        win.run_line(f"/attach {listing}")
        await settle(win)
        assert chip_names(win) == ["data.csv"]
        assert win.prompt.toPlainText() == ""
        win.run_line(f"/attach {tmp_path / 'missing.txt'}")
        await settle(win)
        assert "missing.txt" in feedback(win)
        assert win.prompt.toPlainText().startswith("/attach ")  # kept, to be corrected
        win.prompt.clear()

        dropped = png(tmp_path / "dropped.png")
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(dropped))])
        target = win.scrollback.viewport()
        enter = QDragEnterEvent(
            QPoint(20, 20),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(target, enter)
        assert enter.isAccepted()  # (Qt drops only where the drag was taken)
        drop = QDropEvent(
            QPointF(20, 20),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(target, drop)
        assert drop.isAccepted()
        await settle(win)
        assert chip_names(win) == ["data.csv", "dropped.png"]
        assert win.scrollback.item_texts() == []  # nothing was written into the transcript
    finally:
        await closed(win)


async def test_a_pasted_picture_and_pasted_files_are_attached(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        clipboard = QGuiApplication.clipboard()
        picture = QImage(30, 20, QImage.Format.Format_RGB32)
        picture.fill(QColor("#2060c0"))
        clipboard.setImage(picture)
        win.prompt.setFocus()
        win.prompt.paste()
        await settle(win)
        assert chip_names(win) == ["Pasted image.png"]
        assert win.prompt.toPlainText() == ""
        copied = tmp_path / "copied.txt"
        copied.write_text("copied in a file manager", encoding="utf-8")
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(copied))])
        mime.setText(str(copied))
        clipboard.setMimeData(mime)
        win.prompt.paste()
        await settle(win)
        assert chip_names(win) == ["Pasted image.png", "copied.txt"]
        assert win.prompt.toPlainText() == ""
        clipboard.setText("just words")
        win.prompt.paste()
        assert win.prompt.toPlainText() == "just words"
    finally:
        await closed(win)


def _sent_files(wire_server: WireServer) -> list[dict[str, object]]:
    body = wire_server.bodies("/v1/chat/completions")[-1]
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    content = user["content"]
    return content if isinstance(content, list) else []


async def test_files_are_sent_with_the_message_and_leave_the_chips(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("A red ", "square."))
    win = await opened(home)
    try:
        shot = png(tmp_path / "shot.png")
        await attach_by_button(win, shot)
        win.prompt.setPlainText("What is this?")
        win.prompt.submit()
        await settle(win)
        parts = _sent_files(wire_server)
        kinds = [p["type"] for p in parts]
        assert "image_url" in kinds and "text" in kinds
        url = next(p for p in parts if p["type"] == "image_url")["image_url"]["url"]  # type: ignore[index]
        assert url.startswith("data:image/png;base64,")
        assert chips(win) == []
        user = [e for e in win.session.state.scrollback if e.kind == "user"][-1]
        sha = hashlib.sha256(shot.read_bytes()).hexdigest()
        assert [a["sha256"] for a in user.data["attachments"]] == [sha]
        assert win.store.has_files([sha]) == {sha}
        assert draft_files(win.drafts.keeper.of_open("draft_files")) == []
        # Retry and "Edit and resend" send the message's file again.
        answer = win.session.state.scrollback[-1]
        win.scrollback.retry_requested.emit(answer.id)
        await settle(win)
        assert len(wire_server.bodies("/v1/chat/completions")) == 2
        assert "image_url" in [p["type"] for p in _sent_files(wire_server)]
        first = win.current_id
        win.scrollback.edit_resend_requested.emit(user.id, "What colour is it?")
        await settle(win)
        assert win.current_id != first  # a new branch
        parts = _sent_files(wire_server)
        assert "image_url" in [p["type"] for p in parts]
        assert {"type": "text", "text": "What colour is it?"} in parts
    finally:
        await closed(win)


async def test_a_file_changed_or_gone_since_it_was_attached_sends_nothing(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("ok"))
    win = await opened(home)
    try:
        report = tmp_path / "report.md"
        report.write_text("first version", encoding="utf-8")
        await attach_by_button(win, report)
        report.write_text("second version", encoding="utf-8")
        win.prompt.setPlainText("Summarise it")
        win.prompt.submit()
        await settle(win)
        said = "report.md changed since you attached it: attach it again"
        assert feedback(win).endswith(said)
        assert wire_server.bodies("/v1/chat/completions") == []
        assert win.prompt.toPlainText() == "Summarise it"  # the text is kept
        assert chip_names(win) == ["report.md"]  # and so is the file
        report.unlink()
        win.prompt.submit()
        await settle(win)
        said = "report.md is no longer there: attach it again or remove it"
        assert feedback(win).endswith(said)
        assert wire_server.bodies("/v1/chat/completions") == []
        assert [e.kind for e in win.session.state.scrollback if e.kind == "user"] == []
    finally:
        await closed(win)


async def test_attached_files_stay_with_the_draft_across_switching_and_a_restart(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("hello"))
    win = await opened(home)
    try:
        win.prompt.setPlainText("first")
        win.prompt.submit()
        await settle(win)
        first = win.current_id
        shot = png(tmp_path / "kept.png")
        await attach_by_button(win, shot)
        clipboard = QGuiApplication.clipboard()
        picture = QImage(30, 20, QImage.Format.Format_RGB32)
        picture.fill(QColor("#20c060"))
        clipboard.setImage(picture)
        win.prompt.paste()
        await settle(win)
        assert chip_names(win) == ["kept.png", "Pasted image.png"]
        win.run_line("/new")
        await settle(win)
        assert chips(win) == []
        win.open_conversation(first)
        await settle(win)
        assert chip_names(win) == ["kept.png", "Pasted image.png"]
    finally:
        await closed(win)
    again = await opened(home)
    try:
        assert again.current_id == first
        await wait_until(lambda: chip_names(again) == ["kept.png", "Pasted image.png"])
        pasted = chips(again)[1]
        await wait_until(lambda: pasted.thumb.pixmap() is not None)
        again.prompt.setPlainText("and now?")
        again.prompt.submit()
        await settle(again)
        parts = _sent_files(wire_server)
        assert [p["type"] for p in parts].count("image_url") == 2
        assert chips(again) == []
    finally:
        await closed(again)


def test_a_chip_shows_a_long_or_hostile_name_as_plain_text(qtbot: QtBot) -> None:
    from ikgui.domain.attachments import Attachment, DraftFile

    name = "<b>bold</b> and a very long name that goes on and on and on.png"
    chip = AttachmentChip(DraftFile(Attachment("a" * 64, name, "image/png", 2048), None))
    qtbot.addWidget(chip)
    label = chip.name
    assert isinstance(label, QLabel)
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert "…" in label.text() and label.text().startswith("<b>bold")
    assert "&lt;b&gt;bold" in chip.toolTip()  # (a tooltip escaped: shown as typed)
    assert QPoint(0, 0) == chip.pos()


async def test_attached_files_stay_with_the_draft_on_postgresql(
    tmp_path: Path, pg_url: str, wire_server: WireServer, qtbot: QtBot
) -> None:
    from ikgui.storage import open_store
    from tests.ui.store_window import opened_over

    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("hello"))
    win = await opened_over(open_store(pg_url), home)
    try:
        win.prompt.setPlainText("first")
        win.prompt.submit()
        await settle(win)
        conv_id = win.current_id
        await attach_by_button(win, png(tmp_path / "on-server.png"))
        picture = QImage(24, 24, QImage.Format.Format_RGB32)
        picture.fill(QColor("#c0c020"))
        QGuiApplication.clipboard().setImage(picture)
        win.prompt.paste()
        await settle(win)
        assert chip_names(win) == ["on-server.png", "Pasted image.png"]
    finally:
        await closed(win)
    again = await opened_over(open_store(pg_url), home)
    try:
        assert again.current_id == conv_id
        await wait_until(lambda: chip_names(again) == ["on-server.png", "Pasted image.png"])
        again.prompt.setPlainText("and these?")
        again.prompt.submit()
        await settle(again)
        assert [p["type"] for p in _sent_files(wire_server)].count("image_url") == 2
        user = [e for e in again.session.state.scrollback if e.kind == "user"][-1]
        assert [a["name"] for a in user.data["attachments"]] == [
            "on-server.png",
            "Pasted image.png",
        ]
    finally:
        await closed(again)


async def test_a_large_image_is_read_once_to_attach_and_once_to_send(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    from tests.support import sample_files

    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("A lot of noise."))
    win = await opened(home)
    try:
        big = tmp_path / "big.png"
        big.write_bytes(sample_files.noisy_png(12 * 1024 * 1024))
        reads: list[str] = []
        read = win.attachments.read_file

        def counted(path: str, limit_mb: int) -> object:
            reads.append(path)
            return read(path, limit_mb)

        win.attachments.read_file = counted  # type: ignore[assignment]
        await attach_by_button(win, big)
        assert chip_names(win) == ["big.png"]
        assert len(reads) == 1  # its chip's picture is made from the same bytes
        assert not chips(win)[0].thumb.pixmap().isNull()
        win.prompt.setPlainText("What is it?")
        win.prompt.submit()
        await settle(win)
        assert len(reads) == 2  # read again to send (it must not have changed)
        assert "image_url" in [p["type"] for p in _sent_files(wire_server)]
    finally:
        await closed(win)


async def test_files_alone_are_sent_with_no_text(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    wire_server.route("/v1/chat/completions", reply("A red rectangle."))
    win = await opened(home)
    try:
        win.prompt.submit()  # nothing typed, nothing attached: nothing happens
        await settle(win)
        assert wire_server.bodies("/v1/chat/completions") == []
        await attach_by_button(win, png(tmp_path / "only.png"))
        win.prompt.setFocus()
        qtbot.keyClick(win.prompt, Qt.Key.Key_Return)
        await settle(win)
        assert [p["type"] for p in _sent_files(wire_server)] == ["image_url"]
        assert chips(win) == []
        user = [e for e in win.session.state.scrollback if e.kind == "user"][-1]
        assert user.content == "" and len(user.data["attachments"]) == 1
    finally:
        await closed(win)
