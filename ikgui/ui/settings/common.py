"""Pieces shared by the Settings dialog's pages: add/remove buttons, inline validation
marks, and the problems a page reports when asked to validate (the editor of named
entries the Agents and Providers pages share is :mod:`ikgui.ui.settings.entries`)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from ikgui.ui import icons
from ikgui.ui.plain import block, plain_label

W = TypeVar("W", bound=QWidget)

_ENV = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_URL = re.compile(r"https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


@dataclass
class Issue:
    """One validation problem: the page, a sentence for the user, and where to look."""

    page: str
    message: str
    widget: QWidget | None = None
    row: int | None = None


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a provider's base URL, or None when it can."""
    url = url.strip()
    if not url:
        return "Enter the server's base URL, e.g. http://localhost:11434."
    if not _URL.match(url):
        return "The base URL must start with http:// or https://."
    return None


def name_problem(name: str, names: list[str], what: str) -> str | None:
    """Why ``name`` cannot name a ``what`` among ``names`` (which include it once)."""
    if not name.strip():
        return f"Every {what} needs a name."
    if name != name.strip():
        return f"The {what} name “{name}” must not start or end with spaces."
    if names.count(name) > 1:
        return f"There are two {what}s named “{name}”; names must be unique."
    return None


def env_problem(name: str) -> str | None:
    """Why ``name`` cannot be an environment variable's name (empty is fine: none)."""
    name = name.strip()
    if not name:
        return None
    if not _ENV.match(name):
        return (
            f"“{name}” is not a variable name: use letters, digits and _ "
            "(e.g. OPENAI_API_KEY). Paste the key itself into the API key field."
        )
    if len(name) >= 24 and re.search(r"[a-z]", name) and re.search(r"\d", name):
        return (
            "That looks like a key, not a variable name; paste keys into the API key field "
            "(they are kept in the keyring, never in config.toml)."
        )
    return None


def number_problem(text: str) -> str | None:
    """Why ``text`` is not a price (a finite number ≥ 0), or None when it is."""
    try:
        value = float(text.strip())
    except ValueError:
        return f"“{text}” is not a number."
    if not 0 <= value < float("inf"):
        return f"{text.strip()} is not a number ≥ 0."
    return None


def named(widget: W, name: str, spoken: str) -> W:
    """``widget`` with ``name`` as its objectName (SPEC §10: for tests) and ``spoken`` as
    its accessible name (what a screen reader says: issue 13)."""
    widget.setObjectName(name)
    widget.setAccessibleName(spoken)
    return widget


def set_invalid(widget: QWidget, invalid: bool) -> None:
    """Mark a field as invalid (the style sheet gives it a red border)."""
    if bool(widget.property("invalid")) == invalid:
        return
    widget.setProperty("invalid", invalid)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def label(text: str = "", role: str | None = None, name: str | None = None) -> QLabel:
    """A word-wrapped plain-text label (it shows server messages and names, never
    HTML); ``role`` (hint, error, success, banner) picks its style."""
    result = plain_label(text)
    result.setWordWrap(True)
    result.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if role:
        result.setProperty("role", role)
    if name:
        result.setObjectName(name)
    return result


def set_role(widget: QLabel, role: str) -> None:
    if widget.property("role") != role:
        widget.setProperty("role", role)
        widget.style().unpolish(widget)
        widget.style().polish(widget)


def form_layout() -> QFormLayout:
    form = QFormLayout()
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    form.setHorizontalSpacing(12)
    form.setVerticalSpacing(8)
    return form


def _field_height() -> int:
    probe = QLineEdit()
    probe.ensurePolished()
    return probe.sizeHint().height()


def add_row(
    form: QFormLayout, text: str, field: QWidget | QLayout, buddy: QWidget | None = None
) -> QLabel:
    """A form row whose label lines up with the middle of a single-line field (QFormLayout
    top-aligns labels beside the style sheet's taller fields) or a multi-line one's top."""
    row_label = QLabel(text)
    row_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    row_label.setFixedHeight(_field_height())
    target = buddy or (field if isinstance(field, QWidget) else None)
    if target is not None:
        row_label.setBuddy(target)
    form.addRow(row_label, field)
    return row_label


def add_remove_buttons(name: str, what: str) -> tuple[QPushButton, QPushButton, QHBoxLayout]:
    """ "Add <what>" and "Remove" (objectNames ``<name>Add`` / ``<name>Remove``) in a row."""
    add = named(QPushButton(f"Add {what}"), f"{name}Add", f"Add {what}")
    add.setToolTip(f"Add a {what}")
    icons.set_icon(add, "new")
    remove = named(QPushButton("Remove"), f"{name}Remove", f"Remove {what}")
    remove.setToolTip(f"Remove the selected {what}")
    icons.set_icon(remove, "delete")
    row = QHBoxLayout()
    row.setSpacing(6)
    row.addWidget(add)
    row.addWidget(remove)
    row.addStretch(1)
    return add, remove, row


class TestRun:
    """A page's Test button and the line beside it: one test at a time, run as a task
    (never on the dialog's thread of work), its outcome one plain line."""

    def __init__(self, button: QPushButton, result: QLabel) -> None:
        self.button = button
        self.result = result
        self.task: asyncio.Future[None] | None = None

    def start(self, work: Coroutine[Any, Any, None], saying: str) -> None:
        self.cancel()
        self.show(saying, "hint")
        self.button.setEnabled(False)
        self.task = asyncio.ensure_future(work)

    def finish(self, text: str, role: str) -> None:
        self.task = None
        self.button.setEnabled(True)
        self.show(text, role)

    def show(self, text: str, role: str) -> None:
        self.result.setText(block(text))  # a server's words: bidi controls shown
        set_role(self.result, role)

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def cancel(self) -> None:
        """Stop a running test (another entry was selected, or the dialog closed)."""
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
            self.result.clear()
        self.button.setEnabled(True)
