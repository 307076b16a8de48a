"""The window's look: Fusion, a light or dark palette that follows the system, one accent
colour, and a style sheet (``resources/style/base.qss``) templated by palette colours.

``apply_style(app, theme)`` with ``theme`` one of ``system`` (the default: follows the
system's colour scheme, re-applied when it changes), ``light`` or ``dark``.
"""

from __future__ import annotations

from string import Template

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from ikgui.ui import icons, tinted

THEMES = ("system", "light", "dark")
#: The one accent colour (a calm teal, the app icon's), per theme.
ACCENT_LIGHT = "#1f7f86"
ACCENT_DARK = "#3fa7a0"
#: A soft amber for banners and warnings, per theme (background, border, text).
_WARNING_LIGHT = ("#fdf3dc", "#ecc873", "#5c4305")
_WARNING_DARK = ("#3a3120", "#7a6230", "#f1dca7")
_DANGER_LIGHT = "#c2413b"
_DANGER_DARK = "#d8645d"

_THEME_PROPERTY = "ikguiTheme"
_CONNECTED_PROPERTY = "ikguiStyleConnected"
_FUSION_PROPERTY = "ikguiFusion"

Role = QPalette.ColorRole
Group = QPalette.ColorGroup


def _mix(a: QColor | str, b: QColor | str, amount: float) -> QColor:
    """``a`` moved ``amount`` (0..1) of the way towards ``b``."""
    first, second = QColor(a), QColor(b)
    return QColor.fromRgbF(
        first.redF() + (second.redF() - first.redF()) * amount,
        first.greenF() + (second.greenF() - first.greenF()) * amount,
        first.blueF() + (second.blueF() - first.blueF()) * amount,
    )


def _palette(colors: dict[Role, str], disabled_text: str) -> QPalette:
    palette = QPalette()
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    for role in (Role.WindowText, Role.Text, Role.ButtonText, Role.PlaceholderText):
        palette.setColor(Group.Disabled, role, QColor(disabled_text))
    palette.setColor(Group.Disabled, Role.Highlight, _mix(colors[Role.Highlight], "#808080", 0.6))
    return palette


def light_palette() -> QPalette:
    """The light theme's palette (also used to force a theme for screenshots)."""
    return _palette(
        {
            Role.Window: "#f4f5f7",
            Role.WindowText: "#1d2127",
            Role.Base: "#ffffff",
            Role.AlternateBase: "#f1f3f5",
            Role.ToolTipBase: "#2a2e34",
            Role.ToolTipText: "#f2f4f6",
            Role.PlaceholderText: "#8a929c",
            Role.Text: "#1d2127",
            Role.Button: "#eceef1",
            Role.ButtonText: "#1d2127",
            Role.BrightText: "#ffffff",
            Role.Light: "#ffffff",
            Role.Midlight: "#e6e8eb",
            Role.Mid: "#c9ced4",
            Role.Dark: "#9aa1aa",
            Role.Shadow: "#5a6068",
            Role.Highlight: ACCENT_LIGHT,
            Role.HighlightedText: "#ffffff",
            Role.Link: "#1a6f9e",
            Role.LinkVisited: "#6a4c9c",
            Role.Accent: ACCENT_LIGHT,
        },
        disabled_text="#a3a9b1",
    )


def dark_palette() -> QPalette:
    """The dark theme's palette (also used to force a theme for screenshots)."""
    return _palette(
        {
            Role.Window: "#1f2226",
            Role.WindowText: "#e2e5e9",
            Role.Base: "#17191c",
            Role.AlternateBase: "#1c1f22",
            Role.ToolTipBase: "#e2e5e9",
            Role.ToolTipText: "#1d2127",
            Role.PlaceholderText: "#737b85",
            Role.Text: "#e2e5e9",
            Role.Button: "#2a2e34",
            Role.ButtonText: "#e2e5e9",
            Role.BrightText: "#ffffff",
            Role.Light: "#3a3f46",
            Role.Midlight: "#30343a",
            Role.Mid: "#262a2f",
            Role.Dark: "#141619",
            Role.Shadow: "#0b0c0e",
            Role.Highlight: "#2b8580",
            Role.HighlightedText: "#ffffff",
            Role.Link: "#6cc4f0",
            Role.LinkVisited: "#b59ae6",
            Role.Accent: ACCENT_DARK,
        },
        disabled_text="#5f666f",
    )


def is_dark(palette: QPalette) -> bool:
    """True when the palette draws light text on a dark window."""
    window = palette.color(Role.Window)
    text = palette.color(Role.WindowText)
    return window.lightnessF() < text.lightnessF()


def _system_is_dark(app: QApplication) -> bool:
    return app.styleHints().colorScheme() == Qt.ColorScheme.Dark


def style_sheet(palette: QPalette) -> str:
    """The application style sheet, its colours taken from ``palette``."""
    dark = is_dark(palette)
    window = palette.color(Role.Window)
    base = palette.color(Role.Base)
    text = palette.color(Role.Text)
    accent = QColor(ACCENT_DARK if dark else ACCENT_LIGHT)
    banner_bg, banner_border, banner_text = _WARNING_DARK if dark else _WARNING_LIGHT
    danger = QColor(_DANGER_DARK if dark else _DANGER_LIGHT)
    colors = {
        "window": window,
        "base": base,
        "alt": palette.color(Role.AlternateBase),
        "text": text,
        "muted": _mix(text, window, 0.45),
        "border": _mix(window, text, 0.16 if dark else 0.18),
        "border_strong": _mix(window, text, 0.28),
        "hover": _mix(window, text, 0.07),
        "pressed": _mix(window, text, 0.13),
        "button": palette.color(Role.Button),
        "button_hover": _mix(palette.color(Role.Button), text, 0.06),
        "accent": accent,
        # Filled accent (send and default buttons, selected text): the palette's highlight.
        "accent_fill": palette.color(Role.Highlight),
        "accent_fill_hover": palette.color(Role.Highlight).lighter(110)
        if dark
        else palette.color(Role.Highlight).darker(112),
        "accent_text": palette.color(Role.HighlightedText),
        "accent_soft": _mix(base, accent, 0.28 if dark else 0.16),
        "accent_soft_hover": _mix(base, accent, 0.14 if dark else 0.08),
        "banner_bg": QColor(banner_bg),
        "banner_border": QColor(banner_border),
        "banner_text": QColor(banner_text),
        "danger": danger,
        "danger_hover": danger.lighter(112) if dark else danger.darker(112),
        "danger_text": QColor("#ffffff"),
        "danger_soft": _mix(base, danger, 0.12),
        "editor_bg": base,
        "working_bg": _mix(base, accent, 0.06 if dark else 0.035),
        "handle": _mix(window, text, 0.10),
        "scroll": _mix(window, text, 0.25),
        "scroll_hover": _mix(window, text, 0.38),
        # A QToolTip rule makes Qt paint the tip with the sheet's background (the window
        # colour unless said): both its colours are said, from the palette's tip roles.
        "tip_base": palette.color(Role.ToolTipBase),
        "tip_text": palette.color(Role.ToolTipText),
    }
    values = {key: value.name() for key, value in colors.items()}
    # Style sheets load images by path: tinted copies served from memory.
    values["chevron"] = tinted.path("chevron-down", colors["muted"])
    values["chevron_disabled"] = tinted.path("chevron-down", _mix(colors["muted"], window, 0.5))
    values["check"] = tinted.path("check", colors["accent_text"])
    template = Template(icons.resource_path("style", "base.qss").read_text(encoding="utf-8"))
    return template.substitute(values)


def apply_style(app: QApplication, theme: str = "system") -> None:
    """Fusion, the palette for ``theme`` and the style sheet; with ``system`` the look is
    re-applied whenever the system switches between light and dark."""
    if theme not in THEMES:
        theme = "system"
    app.setProperty(_THEME_PROPERTY, theme)
    # With a style sheet set, app.style() is a wrapper whose name() is empty.
    if not app.property(_FUSION_PROPERTY) or app.style().name().lower() not in ("fusion", ""):
        app.setStyle("Fusion")
        app.setProperty(_FUSION_PROPERTY, True)
    hints = app.styleHints()
    # setColorScheme/unsetColorScheme arrived in Qt 6.8; they also tell the platform
    # (native title bars on Windows and macOS) which theme the window uses.
    if theme == "system":
        if hasattr(hints, "unsetColorScheme"):
            hints.unsetColorScheme()
        dark = _system_is_dark(app)
    else:
        dark = theme == "dark"
        if hasattr(hints, "setColorScheme"):
            hints.setColorScheme(Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
    palette = dark_palette() if dark else light_palette()
    app.setPalette(palette)
    app.setStyleSheet(style_sheet(palette))
    icons.refresh_icons()
    if not app.property(_CONNECTED_PROPERTY):
        app.setProperty(_CONNECTED_PROPERTY, True)
        hints.colorSchemeChanged.connect(lambda _scheme: _follow_system(app))


def _follow_system(app: QApplication) -> None:
    if app.property(_THEME_PROPERTY) != "system":
        return
    if is_dark(app.palette()) != _system_is_dark(app):
        apply_style(app, "system")


def current_theme(app: QApplication) -> str:
    """The theme last given to :func:`apply_style` (``system`` before any)."""
    value = app.property(_THEME_PROPERTY)
    return value if isinstance(value, str) and value in THEMES else "system"
