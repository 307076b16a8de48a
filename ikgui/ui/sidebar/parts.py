"""Small helpers the sidebar builds its widgets with."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget


def timer(parent: QObject, interval: int, slot: Callable[[], None], *, single: bool) -> QTimer:
    timer = QTimer(parent)
    timer.setInterval(interval)
    timer.setSingleShot(single)
    timer.timeout.connect(slot)
    return timer


def name_widget(widget: QWidget, name: str, spoken: str) -> None:
    """``name`` for tests (the objectName), ``spoken`` for a screen reader (issue 13)."""
    widget.setObjectName(name)
    widget.setAccessibleName(spoken)
