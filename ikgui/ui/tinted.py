"""Tinted copies of the icons the style sheet points at, served by Qt's resource system.

A style sheet loads images by path only (``image: url(...)``), and the icons are drawn
with ``currentColor``, so the sheet needs a copy of an SVG with its colour written in.
Each copy lives in memory: :func:`path` registers it once with
``QResource.registerResourceData`` as a one-file resource (the binary format ``rcc
-binary`` writes, version 1) and returns its ``:/ikgui-tinted/…`` path. Nothing is
written to disk.
"""

from __future__ import annotations

import struct

from PySide6.QtCore import QResource
from PySide6.QtGui import QColor

from ikgui.ui import icons

#: Where the copies appear among Qt's resources.
ROOT = "/ikgui-tinted"

_DIRECTORY = 0x02
_LANGUAGE_C = 1
#: (icon name, colour "#rrggbb") -> resource path; each blob stays referenced while Qt
#: reads from it (for the life of the process).
_registered: dict[tuple[str, str], tuple[str, bytes]] = {}


def path(name: str, color: QColor) -> str:
    """The resource path of icon ``name`` drawn in ``color`` (registered on first use)."""
    hex_rgb = color.name(QColor.NameFormat.HexRgb)
    key = (name, hex_rgb)
    found = _registered.get(key)
    if found is None:
        svg = icons.svg_source(name).replace("currentColor", hex_rgb)
        file_name = f"{name}-{hex_rgb[1:]}.svg"
        blob = rcc(file_name, svg.encode("utf-8"))
        if not QResource.registerResourceData(blob, ROOT):
            raise RuntimeError(f"Qt refused the resource {ROOT}/{file_name}")
        found = _registered[key] = (f":{ROOT}/{file_name}", blob)
    return found[0]


def qt_hash(text: str) -> int:
    """Qt's hash of a resource name (``qt_hash``): the order of a folder's entries."""
    h = 0
    units = text.encode("utf-16-be")
    for i in range(0, len(units), 2):
        h = ((h << 4) + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
        h ^= (h & 0xF0000000) >> 23
        h &= 0x0FFFFFFF
    return h


def rcc(file_name: str, data: bytes) -> bytes:
    """A binary resource (version 1) holding one file, ``file_name``, at its root, laid
    out byte for byte as ``rcc -binary --format-version 1 --no-compress`` writes it."""
    encoded = file_name.encode("utf-16-be")
    payload = struct.pack(">I", len(data)) + data
    names = struct.pack(">HI", len(encoded) // 2, qt_hash(file_name)) + encoded
    # Entries of 14 bytes: name offset, flags, then for a folder its child count and
    # first child's entry, for a file its territory, language (1: C) and data offset.
    root = struct.pack(">IHII", 0, _DIRECTORY, 1, 1)
    leaf = struct.pack(">IHHHI", 0, 0, 0, _LANGUAGE_C, 0)
    data_at = 4 + 4 * 4
    names_at = data_at + len(payload)
    tree_at = names_at + len(names)
    header = b"qres" + struct.pack(">IIII", 1, tree_at, data_at, names_at)
    return header + payload + names + root + leaf
