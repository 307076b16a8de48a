"""An attached image checked by its header alone: its type, its width and height, and
whether decoding it would take more memory than any screenshot or photo needs (a
decompression bomb: a 50,000 × 50,000 PNG is a few kilobytes on disk and 10 GB decoded).

Nothing here decodes pixels: the header says how large the image is, so a bomb is
refused before the window (thumbnails) or a provider ever decodes it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

#: The most pixels an attached image may have: 100 megapixels (a 48-megapixel phone
#: photo and an 8K screenshot fit; decoded, it is 400 MB at four bytes a pixel).
MAX_PIXELS = 100_000_000

#: The type each image kind is known by, to name it in a refusal.
KIND_NAMES = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
}
#: The extensions that say a file is an image.
IMAGE_SUFFIXES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


class BadImage(ValueError):
    """The header is not a readable image of its type (``args[0]``: why, in words)."""


@dataclass(frozen=True)
class Size:
    width: int
    height: int

    @property
    def pixels(self) -> int:
        return self.width * self.height


def size_of(mime: str, content: bytes) -> Size:
    """The width and height an image's header declares; raises :class:`BadImage`."""
    reader = {
        "image/png": _png,
        "image/jpeg": _jpeg,
        "image/gif": _gif,
        "image/webp": _webp,
    }[mime]
    try:
        size = reader(content)
    except (struct.error, IndexError):
        raise BadImage("its header is cut short") from None
    if size.width <= 0 or size.height <= 0:
        raise BadImage("its header gives it no width or height")
    return size


def _png(content: bytes) -> Size:
    # The signature, then the IHDR chunk: length (13), "IHDR", width, height.
    if content[12:16] != b"IHDR":
        raise BadImage("it has no image header (IHDR)")
    width, height = struct.unpack(">II", content[16:24])
    return Size(width, height)


def _gif(content: bytes) -> Size:
    width, height = struct.unpack("<HH", content[6:10])
    return Size(width, height)


def _webp(content: bytes) -> Size:
    chunk = content[12:16]
    if chunk == b"VP8X":  # extended: 24-bit width-1, height-1
        width = int.from_bytes(content[24:27], "little") + 1
        height = int.from_bytes(content[27:30], "little") + 1
        if len(content) < 30:
            raise IndexError
        return Size(width, height)
    if chunk == b"VP8L":  # lossless: 14 bits each after the 0x2f signature
        if content[20] != 0x2F:
            raise BadImage("its lossless header is damaged")
        bits = int.from_bytes(content[21:25], "little")
        if len(content) < 25:
            raise IndexError
        return Size((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8 ":  # lossy: a key frame's start code, then 14-bit sizes
        if content[23:26] != b"\x9d\x01\x2a":
            raise BadImage("its frame header is damaged")
        width, height = struct.unpack("<HH", content[26:30])
        return Size(width & 0x3FFF, height & 0x3FFF)
    raise BadImage("it has no image data (VP8)")


#: JPEG markers that start a frame (SOF0–SOF15 but DHT, JPG and DAC).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(content: bytes) -> Size:
    """Walk the markers to the first start-of-frame (its height and width)."""
    at = 2
    end = len(content)
    while at + 4 <= end:
        if content[at] != 0xFF:
            raise BadImage("its markers are damaged")
        marker = content[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame before it
            break
        (length,) = struct.unpack(">H", content[at + 2 : at + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", content[at + 5 : at + 9])
            return Size(width, height)
        at += 2 + length
    raise BadImage("it has no frame header")
