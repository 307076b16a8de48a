"""Untrusted text (from a model, a server, an import or the user) shown in widgets, always
as plain text: what it says is shown, never interpreted.

A ``QLabel`` on the automatic text format renders anything that *looks* like HTML, so a
server error ``<img src="file:///dev/zero">`` makes Qt read that file (and abort);
tooltips are always sniffed the same way. Every widget text built from such data goes
through one of these helpers:

- :func:`plain_label` / :func:`make_plain`: a label fixed on ``Qt.PlainText``;
- :func:`error_box`: a message box on plain text;
- :func:`tooltip`: the text HTML-escaped inside a ``<p>``, so it is rich text whose only
  markup is ours;
- :func:`line` (titles, status bar), :func:`window_title`, :func:`block` (several lines) and
  :func:`action_text` (menu entries, ``&`` doubled so it is no mnemonic): bidirectional
  controls shown as ``⟨U+202E⟩`` and control characters escaped, by
  :mod:`ikgui.domain.text.safe`.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from ikgui.domain.text.safe import one_line, terminal_safe


def line(text: str) -> str:
    """``text`` for a one-line place: controls (newlines too) escaped, bidi revealed."""
    return one_line(text)


def block(text: str) -> str:
    """``text`` for a multi-line place: newlines and tabs kept, other controls escaped,
    bidi revealed."""
    return terminal_safe(text)


def action_text(text: str) -> str:
    """``text`` as a ``QAction``/menu entry: one line, and ``&`` shown as itself."""
    return line(text).replace("&", "&&")


def window_title(text: str) -> str:
    """``text`` as (part of) a window title: one line, and a ``[*]`` in it shown as
    itself (Qt takes a lone ``[*]`` for the "modified" placeholder and hides it)."""
    return line(text).replace("[*]", "[*][*]")


def tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally (escaped HTML, newlines as line breaks)."""
    escaped = html.escape(block(text), quote=False).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{escaped}</p>"


def make_plain(label: QLabel) -> QLabel:
    """``label`` fixed on plain text (its text is never read as HTML)."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A ``QLabel`` on plain text, showing ``text`` as :func:`block` makes it safe."""
    label = QLabel(parent)
    make_plain(label)
    label.setText(block(text))
    return label


def error_box(parent: QWidget | None, title: str, text: str) -> QMessageBox:
    """A critical message box showing ``text`` as plain text (the caller shows it)."""
    box = QMessageBox(QMessageBox.Icon.Critical, line(title), block(text), parent=parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box
