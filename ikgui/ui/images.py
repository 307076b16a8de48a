"""Pictures of attached images, decoded where the window's thread never waits for them.

Every function here is called from a worker thread (``asyncio.to_thread``): ``QImage``
and ``QImageReader`` are reentrant, so decoding and scaling a 20 MB screenshot there
never holds the window's loop. The header is read first: an image whose pixels would
not fit in memory (a decompression bomb: a small file that claims 50,000 × 50,000
pixels) is never decoded — it gives a null image, and the caller shows a plain mark."""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter

#: The most pixels an attached image may have to be decoded at all (a 12,000 × 8,000
#: photograph has 96 million).
MAX_PIXELS = 100_000_000


def _reader(content: bytes) -> tuple[QImageReader, QBuffer]:
    buffer = QBuffer()
    buffer.setData(QByteArray(content))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    reader.setAutoTransform(True)  # (a photograph's EXIF orientation)
    return reader, buffer


def image_size(content: bytes) -> QSize:
    """The image's size from its header alone (invalid when it cannot be read)."""
    reader, _buffer = _reader(content)
    return reader.size()


def decoded(content: bytes, fit: QSize | None = None) -> QImage:
    """The image in ``content``, scaled down to fit in ``fit`` (keeping its shape) when
    given; a null image when it is not one Qt reads, or is too large to decode."""
    reader, _buffer = _reader(content)
    size = reader.size()
    if not size.isValid() or size.width() * size.height() > MAX_PIXELS:
        return QImage()
    if fit is not None and (size.width() > fit.width() or size.height() > fit.height()):
        # Readers that can decode at a smaller scale (JPEG) do: less memory, less time.
        reader.setScaledSize(size.scaled(fit, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        return QImage()
    if fit is not None and (image.width() > fit.width() or image.height() > fit.height()):
        image = image.scaled(
            fit, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
    return image


def boxed(image: QImage, box: QSize, backdrop: QColor | None = None) -> QImage:
    """``image`` (fitted already) centred in an image exactly ``box`` large: the
    transcript lays out a thumbnail at its box's size before the picture is decoded, so
    the picture arriving later moves nothing."""
    out = QImage(box, QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(backdrop if backdrop is not None else Qt.GlobalColor.transparent)
    if not image.isNull():
        painter = QPainter(out)
        x = (box.width() - image.width()) // 2
        y = (box.height() - image.height()) // 2
        painter.drawImage(x, y, image)
        painter.end()
    return out
