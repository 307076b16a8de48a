"""Small helpers of the sidebar's painting: colour mixing (remembered), reading a row's
roles without a trip through Qt for each, and cutting a search snippet into runs."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QColor

AnyIndex = QModelIndex | QPersistentModelIndex


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` (0..1) of the way towards ``b``."""
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * amount,
        a.greenF() + (b.greenF() - a.greenF()) * amount,
        a.blueF() + (b.blueF() - a.blueF()) * amount,
    )


@functools.lru_cache(maxsize=512)
def mixed_rgba(a: int, b: int, amount: float) -> QColor:
    return mix(QColor.fromRgba(a), QColor.fromRgba(b), amount)


def mixed(a: QColor, b: QColor, amount: float) -> QColor:
    """:func:`mix`, remembered (a row paints with the same few colours as the others)."""
    return mixed_rgba(a.rgba(), b.rgba(), amount)


def reader(index: AnyIndex) -> Callable[[int], Any]:
    """``index.data`` asked of the model directly: a row reads nine roles, and each trip
    through Qt costs more than the lookup itself."""
    model = index.model()
    if model is None:
        return lambda role: None
    return functools.partial(model.data, index)


def distance(a: QColor, b: QColor) -> float:
    return abs(a.lightnessF() - b.lightnessF()) + abs(a.hueF() - b.hueF()) * 0.2


def runs(text: str, query: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, matches a word of ``query``) runs."""
    words = [re.escape(w) for w in re.findall(r"\w+", query)]
    if not words:
        return [(text, False)]
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(words) + r")\w*", re.IGNORECASE)
    runs: list[tuple[str, bool]] = []
    at = 0
    for match in pattern.finditer(text):
        if match.start() > at:
            runs.append((text[at : match.start()], False))
        runs.append((match.group(0), True))
        at = match.end()
    if at < len(text):
        runs.append((text[at:], False))
    return runs


__all__ = ["distance", "mix", "mixed", "reader", "runs"]
