"""Action icons: single-colour SVG line drawings tinted with the palette's text colour.

Each SVG in ``ikgui.resources/icons`` draws with ``currentColor``; :func:`icon` renders it
in the current palette's colours (normal, selected and a dimmed disabled mode), each size
when it is first drawn, and caches the result per name and colours. Widgets and actions
given their icon through :func:`set_icon` are re-tinted by :func:`refresh_icons` when the
theme changes.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QObject, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAction,
    QColor,
    QGuiApplication,
    QIcon,
    QIconEngine,
    QPainter,
    QPalette,
    QPixmap,
)
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

#: Every action icon shipped in ``resources/icons`` (besides the application icon).
ICON_NAMES = (
    "new",
    "mark",
    "rewind",
    "fork",
    "clear",
    "stop",
    "rename",
    "tags",
    "export",
    "delete",
    "settings",
    "send",
    "trash",
    "restore",
    "search",
    "context",
    "retry",
    "copy",
    "warning",
    "sidebar",
    "pin",
    "attach",
    "compare",
)

#: The sizes an icon lists as available (it is drawn at whatever size is asked for).
_SIZES = (16, 20, 24, 32, 48, 64)
#: The dynamic property that remembers which icon a widget or action shows.
ICON_PROPERTY = "ikguiIcon"
_ON_ACCENT_PROPERTY = "ikguiIconOnAccent"

_cache: dict[tuple[str, str, str, str], QIcon] = {}


def resource_path(*parts: str) -> Path:
    """The path of a file shipped in ``ikgui.resources`` (e.g. ``("icons", "new.svg")``)."""
    return _resources_root().joinpath(*parts)


@cache
def _resources_root() -> Path:
    """The folder of ``ikgui.resources``, from its import spec (``importlib.resources``
    costs start-up ~5 ms of imports), or from ``importlib.resources`` where the
    package is no folder."""
    spec = importlib.util.find_spec("ikgui.resources")
    for location in (spec.submodule_search_locations or []) if spec else []:
        if Path(location).is_dir():
            return Path(location)
    from importlib.resources import files

    return Path(str(files("ikgui.resources")))


@cache
def svg_source(name: str) -> str:
    """The SVG text of icon ``name`` (drawn with ``currentColor``); KeyError if unknown."""
    path = resource_path("icons", f"{name}.svg")
    if not path.is_file():
        raise KeyError(f"no icon named {name!r} ({path})")
    return path.read_text(encoding="utf-8")


def _palette() -> QPalette:
    return QGuiApplication.palette()


def _dimmed(color: QColor, background: QColor) -> QColor:
    """``color`` faded 60 % of the way towards ``background`` (the disabled look)."""
    mix = 0.6
    return QColor.fromRgbF(
        color.redF() + (background.redF() - color.redF()) * mix,
        color.greenF() + (background.greenF() - color.greenF()) * mix,
        color.blueF() + (background.blueF() - color.blueF()) * mix,
    )


def render(name: str, size: int, color: QColor, ratio: float = 1.0) -> QPixmap:
    """One icon drawn at ``size`` logical pixels in ``color`` (``ratio``: device pixels)."""
    svg = svg_source(name).replace("currentColor", color.name(QColor.NameFormat.HexRgb))
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    side = max(1, round(size * ratio))
    pixmap = QPixmap(side, side)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, side, side))
    painter.end()
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


def icon(name: str, color: QColor | None = None, *, on_accent: bool = False) -> QIcon:
    """The icon ``name`` in the palette's text colour (or ``color``), cached per colours.

    ``on_accent``: for a button filled with the accent colour (``#sendButton``, default
    buttons): drawn in the highlighted-text colour, and like any icon when disabled.
    """
    palette = _palette()
    text = palette.color(QPalette.ColorRole.WindowText)
    highlighted = palette.color(QPalette.ColorRole.HighlightedText)
    if on_accent:
        normal, selected = highlighted, highlighted
    elif color is not None:
        normal, selected = QColor(color), QColor(color)
    else:
        normal, selected = text, highlighted
    disabled = _dimmed(text if on_accent else normal, palette.color(QPalette.ColorRole.Window))
    key = (name, normal.name(), selected.name(), disabled.name())
    cached = _cache.get(key)
    if cached is not None:
        return cached
    svg_source(name)  # an unknown name fails here, not at the first paint
    colors = {
        QIcon.Mode.Normal: normal,
        QIcon.Mode.Active: normal,
        QIcon.Mode.Selected: selected,
        QIcon.Mode.Disabled: disabled,
    }
    result = QIcon(_TintedEngine(name, colors, {}))
    _cache[key] = result
    return result


class _TintedEngine(QIconEngine):
    """Draws the icon the first time a size and mode is asked for (start-up draws only
    what the first paint shows), square, in that mode's colour; at most ``_SIZES[-1]``
    logical pixels, like the largest size once rendered ahead."""

    def __init__(
        self,
        name: str,
        colors: dict[QIcon.Mode, QColor],
        pixmaps: dict[tuple[int, QIcon.Mode, float], QPixmap],
    ) -> None:
        super().__init__()
        self._name = name
        self._colors = colors
        self._pixmaps = pixmaps  # shared with clones

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        side = max(0, min(size.width(), size.height(), _SIZES[-1]))
        return QSize(side, side)

    def scaledPixmap(
        self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float
    ) -> QPixmap:
        side = self.actualSize(size, mode, state).width()
        key = (side, mode, scale)
        pixmap = self._pixmaps.get(key)
        if pixmap is None:
            pixmap = render(self._name, side, self._colors[mode], scale)
            self._pixmaps[key] = pixmap
        return pixmap

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        ratio = painter.device().devicePixelRatioF() if painter.device() else 1.0
        pixmap = self.scaledPixmap(rect.size(), mode, state, ratio)
        painter.drawPixmap(rect, pixmap)

    def clone(self) -> QIconEngine:
        return _TintedEngine(self._name, self._colors, self._pixmaps)

    def availableSizes(
        self, mode: QIcon.Mode = QIcon.Mode.Normal, state: QIcon.State = QIcon.State.Off
    ) -> list[QSize]:
        return [QSize(size, size) for size in _SIZES]


def app_icon() -> QIcon:
    """The application icon (its own colours, not tinted)."""
    return QIcon(str(resource_path("icons", "ikgui.svg")))


def set_icon(target: QAction | QAbstractButton, name: str, *, on_accent: bool = False) -> None:
    """Give ``target`` the icon ``name`` and remember it, so a theme change re-tints it
    (``on_accent``: see :func:`icon`)."""
    target.setProperty(ICON_PROPERTY, name)
    target.setProperty(_ON_ACCENT_PROPERTY, on_accent)
    target.setIcon(icon(name, on_accent=on_accent))


def refresh_icons() -> None:
    """Re-tint every action and button given its icon by :func:`set_icon` (after a theme
    change the palette's text colour differs)."""
    direct = Qt.FindChildOption.FindDirectChildrenOnly
    for widget in QApplication.allWidgets():
        # QWidget.actions called unbound: a subclass may shadow the name with an attribute.
        targets: list[QObject] = [
            widget,
            *QWidget.actions(widget),
            *widget.findChildren(QAction, options=direct),
        ]
        for target in targets:
            name = target.property(ICON_PROPERTY)
            if isinstance(name, str) and isinstance(target, QAction | QAbstractButton):
                on_accent = bool(target.property(_ON_ACCENT_PROPERTY))
                target.setIcon(icon(name, on_accent=on_accent))


def clear_cache() -> None:
    """Forget rendered icons (tests; the cache is small and keyed by colour anyway)."""
    _cache.clear()
