"""Checking attached files (SPEC §13, issue 24 item 7): each refusal is one line naming
the file, read from real files on disk; nothing here decodes an image's pixels."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from ikgui.domain.attachments import AttachmentError, DraftFile
from ikgui.files import checked, read_again, read_file
from tests.support import sample_files


def write(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def refusal(path: Path, limit_mb: int = 20) -> str:
    with pytest.raises(AttachmentError) as caught:
        read_file(path, limit_mb)
    line = caught.value.message
    assert "\n" not in line and "Traceback" not in line
    return line


def test_an_image_is_typed_by_its_content_and_hashed(tmp_path: Path) -> None:
    content = sample_files.png(64, 48)
    stored = read_file(write(tmp_path, "shot.png", content))
    assert stored.attachment.mime == "image/png" and stored.text is None
    assert stored.attachment.size == len(content) and stored.content == content
    assert stored.sha256 == hashlib.sha256(content).hexdigest()
    # A PNG named .jpg is the PNG it is (the extension only breaks ties).
    assert read_file(write(tmp_path, "shot.jpg", content)).attachment.mime == "image/png"


def test_a_decompression_bomb_is_refused_from_its_header(tmp_path: Path) -> None:
    bomb = sample_files.png_bomb(50_000)
    assert len(bomb) < 2_000_000
    line = refusal(write(tmp_path, "bomb.png", bomb))
    assert line == "bomb.png is 50,000 × 50,000 pixels: images may have at most 100 megapixels"
    line = refusal(write(tmp_path, "wide.webp", sample_files.webp_header(16_000, 16_000)))
    assert "wide.webp is 16,000 × 16,000 pixels" in line
    line = refusal(write(tmp_path, "tall.gif", sample_files.gif_header(65_535, 65_535)))
    assert "tall.gif is 65,535 × 65,535 pixels" in line
    # A real large screenshot passes.
    assert read_file(write(tmp_path, "ok.gif", sample_files.gif_header(7680, 4320)))


def test_an_image_that_is_not_what_its_extension_says(tmp_path: Path) -> None:
    assert refusal(write(tmp_path, "photo.png", b"<html>not found</html>")) == (
        "photo.png is named like a PNG image but is not one"
    )
    assert refusal(write(tmp_path, "paper.pdf", b"hello")) == (
        "paper.pdf is named like a PDF but is not one"
    )
    cut = sample_files.png()[:20]
    assert refusal(write(tmp_path, "cut.png", cut)) == (
        "cut.png is a damaged PNG image: its header is cut short"
    )
    assert "damaged JPEG image" in refusal(write(tmp_path, "j.jpg", b"\xff\xd8\xff\x00" * 4))


def test_pdfs_give_their_text_or_one_line_why_not(tmp_path: Path) -> None:
    stored = read_file(write(tmp_path, "report.pdf", sample_files.pdf("Quarterly figures", "p2")))
    assert stored.attachment.mime == "application/pdf"
    assert stored.text is not None and "Quarterly figures" in stored.text and "p2" in stored.text
    assert refusal(write(tmp_path, "locked.pdf", sample_files.encrypted_pdf())) == (
        "locked.pdf is protected by a password: save a copy without it and attach that"
    )
    assert refusal(write(tmp_path, "broken.pdf", sample_files.damaged_pdf())) == (
        "broken.pdf is a damaged PDF: it cannot be read"
    )
    assert refusal(write(tmp_path, "book.pdf", sample_files.long_pdf(2000))) == (
        "book.pdf has 2,000 pages: PDFs may have at most 1,000"
    )


def test_text_files_must_be_utf8(tmp_path: Path) -> None:
    stored = read_file(write(tmp_path, "notes.md", "# Straße\n".encode()))
    assert (stored.attachment.mime, stored.text) == ("text/markdown", "# Straße\n")
    assert refusal(write(tmp_path, "latin.txt", "Straße".encode("latin-1"))) == (
        "latin.txt is not UTF-8 text (byte 5 is not): save it as UTF-8 and attach it again"
    )
    assert refusal(write(tmp_path, "tool.exe", b"MZ\x90\x00\x03\x00\xff\xfe")) == (
        "tool.exe is not an image (PNG, JPEG, GIF, WebP), a PDF or a UTF-8 text file"
    )
    assert "not an image" in refusal(write(tmp_path, "zeros.bin", b"ab\x00cd"))


def test_size_limit_and_missing_files(tmp_path: Path) -> None:
    big = write(tmp_path, "big.txt", b"a" * (1024 * 1024 + 1))
    assert refusal(big, limit_mb=1) == "big.txt is 1.0 MB: files may be at most 1 MB"
    assert refusal(tmp_path / "gone.png") == "gone.png was not found"
    assert refusal(tmp_path).endswith("is a folder, not a file")


def test_a_file_that_changes_or_disappears_after_attaching(tmp_path: Path) -> None:
    path = write(tmp_path, "data.csv", b"a,b\n1,2\n")
    draft = DraftFile(read_file(path).attachment, str(path))
    assert read_again(draft).content == b"a,b\n1,2\n"
    path.write_bytes(b"a,b\n1,3\n")
    with pytest.raises(AttachmentError, match=r"^data\.csv changed since you attached it"):
        read_again(draft)
    path.unlink()
    with pytest.raises(AttachmentError, match=r"^data\.csv is no longer there"):
        read_again(draft)


def test_pasted_bytes_are_checked_the_same_way() -> None:
    assert checked("pasted.png", sample_files.png()).attachment.mime == "image/png"
    with pytest.raises(AttachmentError, match="100 megapixels"):
        checked("pasted.png", sample_files.png_bomb(20_000))


def test_the_bomb_check_reads_only_the_header(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counting work, not time: the bomb's rows would be 312 MB; the check never
    # decompresses a byte of them (zlib is not called).
    import zlib

    bomb = sample_files.png_bomb(50_000)
    calls: list[object] = []
    real_obj, real_one = zlib.decompressobj, zlib.decompress
    monkeypatch.setattr(zlib, "decompressobj", lambda *a, **k: calls.append(a) or real_obj(*a, **k))
    monkeypatch.setattr(zlib, "decompress", lambda *a, **k: calls.append(a) or real_one(*a, **k))
    with pytest.raises(AttachmentError):
        checked("bomb.png", bomb)
    assert calls == []
