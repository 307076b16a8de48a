#!/usr/bin/env python3
"""Render the application icon (resources/icons/ikgui.svg) at the usual sizes.

    python packaging/make_icons.py [OUT_DIR]      # default packaging/icons

Writes ``hicolor/<N>x<N>/apps/ikgui.png`` for Linux, ``ikgui.ico`` for Windows and
``ikgui.icns`` for macOS, using Qt's own SVG renderer and image writers.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QImageWriter, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "resources" / "icons" / "ikgui.svg"
LINUX_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def render(renderer: QSvgRenderer, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def write(image: QImage, path: Path, fmt: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = QImageWriter(str(path), fmt)
    if not writer.write(image):
        raise SystemExit(f"could not write {path}: {writer.errorString()}")


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def write_ico(images: list[QImage], path: Path) -> None:
    """A Windows icon holding every size as PNG (the format since Windows Vista)."""
    blobs = [png_bytes(image) for image in images]
    header = struct.pack("<HHH", 0, 1, len(blobs))
    offset = len(header) + 16 * len(blobs)
    entries = b""
    for image, blob in zip(images, blobs, strict=True):
        side = image.width() if image.width() < 256 else 0  # 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + entries + b"".join(blobs))


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "packaging" / "icons"
    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"not a valid SVG: {SOURCE}")
    for size in LINUX_SIZES:
        write(
            render(renderer, size),
            out / "hicolor" / f"{size}x{size}" / "apps" / "ikgui.png",
            b"png",
        )
    write_ico([render(renderer, size) for size in ICO_SIZES], out / "ikgui.ico")
    # Qt's ICNS writer stores the image with the smaller sizes macOS expects.
    write(render(renderer, 1024), out / "ikgui.icns", b"icns")
    (out / "hicolor" / "scalable" / "apps").mkdir(parents=True, exist_ok=True)
    (out / "hicolor" / "scalable" / "apps" / "ikgui.svg").write_bytes(SOURCE.read_bytes())
    print(f"icons written to {out}")
    del _app


if __name__ == "__main__":
    main()
