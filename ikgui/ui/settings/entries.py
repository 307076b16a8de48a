"""The editor of named entries the Settings dialog's Agents and Providers pages share
(issue 22, item 8): the list of names with Add and Remove under it, beside the page's
form. It owns the entries being edited (``drafts``), which one is selected, and the
form's name field (a rename shows in the list at once, a name that is empty, padded or
taken is marked); the page shows the rest of the selected entry (``show``) and makes a
new one (``make``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLayout, QLineEdit, QListWidget, QVBoxLayout, QWidget

from ikgui.ui.settings.common import add_remove_buttons, name_problem, set_invalid


class Named(Protocol):
    name: str


D = TypeVar("D", bound=Named)


def free_name(prefix: str, names: list[str]) -> str:
    """``prefix-1``, ``prefix-2``…: the first not in ``names``."""
    return next(n for i in itertools.count(1) if (n := f"{prefix}-{i}") not in names)


class NamedEntries(QWidget, Generic[D]):
    """The list of ``what``s (objectName ``name``) in ``drafts``, edited by a page whose
    form holds ``name_edit``. Call :meth:`fill` once the page's form is built."""

    #: The list changed, or an entry's name (the other pages refresh their choices).
    changed = Signal()
    #: Add made a new entry, now selected (the page puts the focus where to start).
    added = Signal()

    def __init__(
        self,
        name: str,
        what: str,
        drafts: list[D],
        *,
        make: Callable[[str], D],
        name_edit: QLineEdit,
        show: Callable[[D | None], None],
        before_remove: Callable[[], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.what = what
        self.drafts = drafts
        self._make = make
        self._show = show
        self._before_remove = before_remove
        self.name_edit = name_edit
        self.list = QListWidget()
        self.list.setObjectName(name)
        self.list.setAccessibleName(f"{what.capitalize()}s")
        # Items laid out before the style sheet's padding applies keep their old height.
        self.list.ensurePolished()
        self.add_button, self.remove_button, buttons = add_remove_buttons(name, what)
        self.add_button.clicked.connect(self.add)
        self.remove_button.clicked.connect(self.remove)
        name_edit.textEdited.connect(self._name_edited)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.setMinimumWidth(200)
        self.setMaximumWidth(260)

    def fill(self) -> None:
        """List the entries and show the first."""
        self.list.currentRowChanged.connect(self.show_current)
        for draft in self.drafts:
            self.list.addItem(draft.name)
        self.list.setCurrentRow(0 if self.drafts else -1)
        self.show_current()

    # -- selection ---------------------------------------------------------------------
    @property
    def current(self) -> D | None:
        row = self.list.currentRow()
        return self.drafts[row] if 0 <= row < len(self.drafts) else None

    def select(self, name: str) -> bool:
        for row, draft in enumerate(self.drafts):
            if draft.name == name:
                self.list.setCurrentRow(row)
                return True
        return False

    def names(self) -> list[str]:
        return [draft.name for draft in self.drafts]

    def name_problem(self, draft: D) -> str | None:
        """Why ``draft``'s name cannot be (empty, padded, taken), or ``None``."""
        return name_problem(draft.name, self.names(), self.what)

    def show_current(self) -> None:
        """Show the selected entry in the page's form (an empty, disabled form: none)."""
        draft = self.current
        self.remove_button.setEnabled(draft is not None)
        self._show(draft)
        if draft is not None:
            set_invalid(self.name_edit, self.name_problem(draft) is not None)

    def _name_edited(self, text: str) -> None:
        draft = self.current
        if draft is None:
            return
        draft.name = text
        item = self.list.currentItem()
        if item is not None:
            item.setText(text or "(unnamed)")
        set_invalid(self.name_edit, self.name_problem(draft) is not None)
        self.changed.emit()

    def rename_current(self, text: str) -> None:
        """The selected entry was renamed by the page (a preset): show the new name."""
        item = self.list.currentItem()
        if item is not None:
            item.setText(text)

    # -- adding and removing -----------------------------------------------------------
    def add(self) -> None:
        """A new entry with a free name (``<what>-1``…), selected."""
        name = free_name(self.what, self.names())
        self.drafts.append(self._make(name))
        self.list.addItem(name)
        self.list.setCurrentRow(self.list.count() - 1)
        self.changed.emit()
        self.added.emit()

    def remove(self) -> bool:
        """Take the selected entry out; ``False`` when nothing is selected."""
        row = self.list.currentRow()
        if not 0 <= row < len(self.drafts):
            return False
        if self._before_remove is not None:
            self._before_remove()
        del self.drafts[row]  # before the list changes: its signals read the drafts
        self.list.takeItem(row)
        self.show_current()
        self.changed.emit()
        return True


def beside(page: QWidget, entries: QWidget, form: QWidget | QLayout) -> None:
    """Lay out a page: its entries on the left, its form taking the rest."""
    layout = QHBoxLayout(page)
    layout.setContentsMargins(12, 12, 12, 12)
    layout.setSpacing(16)
    layout.addWidget(entries)
    if isinstance(form, QWidget):
        layout.addWidget(form, 1)
    else:
        layout.addLayout(form, 1)
