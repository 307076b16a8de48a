"""Real files to attach in tests (SPEC §13), made here byte by byte: PNG images (a
decompression bomb among them), PDFs with text (encrypted, damaged, 2,000 pages)."""

from __future__ import annotations

import io
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png(width: int = 64, height: int = 48, rgb: tuple[int, int, int] = (200, 60, 30)) -> bytes:
    """A real PNG of one colour (decodes in any image library)."""
    row = b"\x00" + bytes(rgb) * width
    raw = row * height
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def noisy_png(size: int) -> bytes:
    """A PNG of at least ``size`` bytes that does not compress (random pixels): a
    large screenshot's worth of bytes that must be sent byte for byte."""
    import random

    rnd = random.Random(24)
    side = int((size / 3) ** 0.5) + 1
    rows = b"".join(b"\x00" + rnd.randbytes(side * 3) for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 0))
        + _chunk(b"IEND", b"")
    )


def png_bomb(side: int = 50_000) -> bytes:
    """A real 1-bit PNG of ``side`` × ``side`` black pixels: ~300 KB on disk, 312 MB of
    rows, 10 GB once a library decodes it to RGBA."""
    row = b"\x00" + b"\x00" * ((side + 7) // 8)
    squeeze = zlib.compressobj(9)
    rows = row * 1000
    parts = [squeeze.compress(rows) for _ in range(side // 1000)]
    parts.append(squeeze.compress(row * (side % 1000)))
    parts.append(squeeze.flush())
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", b"".join(parts))
        + _chunk(b"IEND", b"")
    )


def gif_header(width: int, height: int) -> bytes:
    """A GIF's header and an empty image (enough for a header check)."""
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00" + b";"


def webp_header(width: int, height: int) -> bytes:
    """An extended (VP8X) WebP's header declaring ``width`` × ``height``."""
    vp8x = (
        b"\x00\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    )
    body = b"WEBP" + b"VP8X" + struct.pack("<I", len(vp8x)) + vp8x
    return b"RIFF" + struct.pack("<I", len(body)) + body


def pdf(*pages: str) -> bytes:
    """A real PDF, one page per text given (pypdf extracts the text back)."""
    objects: list[bytes] = []
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


def encrypted_pdf(password: str = "secret") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf("a secret page"))))
    writer.encrypt(user_password=password, owner_password=password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def long_pdf(pages: int = 2000) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=612, height=792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def damaged_pdf() -> bytes:
    """A PDF's first bytes and then garbage: no objects, no cross-reference table."""
    return b"%PDF-1.7\n" + bytes(range(256)) * 40
