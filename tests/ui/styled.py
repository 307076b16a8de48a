"""The app's look applied inside a test as ``ikgui`` applies it before building the
window (``ikgui.ui.style.apply_style``), and taken off again afterwards: a test's result
must not depend on whether an earlier test styled the application."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QWidget

from ikgui.ui import style

#: What ``apply_style`` records on the application.
_PROPERTIES = (style._THEME_PROPERTY, style._FUSION_PROPERTY)


def _app() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


@contextmanager
def app_styled(theme: str) -> Iterator[QApplication]:
    """The application in ``theme`` (``light`` or ``dark``) meanwhile; as before after."""
    app = _app()
    sheet, palette, name = app.styleSheet(), QPalette(app.palette()), app.style().name()
    properties = {key: app.property(key) for key in _PROPERTIES}
    style.apply_style(app, theme)
    try:
        yield app
    finally:
        if sheet:  # styled before: styled again, in its theme
            style.apply_style(app, str(properties[style._THEME_PROPERTY] or "system"))
        else:
            app.setStyleSheet("")
            app.setStyle(name)
            app.setPalette(palette)
            hints = app.styleHints()
            if hasattr(hints, "unsetColorScheme"):
                hints.unsetColorScheme()
            for key, value in properties.items():
                app.setProperty(key, value)


def gone(window: QWidget) -> None:
    """Delete a closed window now: restoring the style afterwards must not reach its
    widgets (they would lay out again over a closed store)."""
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
