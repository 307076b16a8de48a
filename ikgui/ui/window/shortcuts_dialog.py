"""The "Keyboard shortcuts" dialog (Ctrl+/ or F1): every key the window answers to.

Generated, not written out: the toolbar's part comes from the command registry (the
same :func:`toolbar_specs` the toolbar and ``/help`` read), the window's own keys from
:data:`ikgui.ui.window.keyboard.WINDOW_KEYS` and the live text-size actions; only the
keys widgets handle themselves (the prompt's Enter, the transcript's arrows) are listed
here, beside the code that binds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ikgui.ui.prompt.working_prompt import TOGGLE_SHORTCUT
from ikgui.ui.window.actions import toolbar_specs
from ikgui.ui.window.keyboard import WINDOW_KEYS

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session

#: Keys the widgets handle themselves: (section, keys, what they do).
WIDGET_KEYS = (
    ("Prompt", "Enter", "Send the message, or run the / command"),
    ("Prompt", "Shift+Enter", "A new line"),
    ("Prompt", "Up, Down", "Earlier messages you sent"),
    ("Prompt", "Alt+Up, Alt+Down", "Put the keyboard on the transcript's messages"),
    ("Prompt", "Escape", "Stop the reply"),
    ("Transcript", "Up, Down", "The previous or next message"),
    ("Transcript", "Enter, Menu, Shift+F10", "The message's actions: Copy, Edit, Retry, Fork"),
    ("Transcript", "Tab", "The focused message's buttons"),
    ("Transcript", "Escape", "Let go of the message"),
    ("Sidebar", "F2", "Rename the conversation"),
    ("Sidebar", "Ctrl+P", "Pin or unpin"),
    ("Working prompt", TOGGLE_SHORTCUT, "Show or hide the working prompt"),
    ("Working prompt", "Ctrl+S", "Save the edit and tell the assistant"),
    ("Working prompt", "Ctrl+Tab", "Insert a tab (Tab moves on)"),
)


def _keys(keys: Iterable[str]) -> str:
    """Keys as the platform writes them ("Ctrl+M"; "⌘M" on macOS)."""
    return ", ".join(
        QKeySequence(k).toString(QKeySequence.SequenceFormat.NativeText) or k for k in keys
    )


def shortcut_rows(session: Session, zoom: Iterable[QAction]) -> list[tuple[str, str, str]]:
    """``(section, keys, what)`` for every shortcut, in the dialog's order (``zoom``:
    the live text-size actions)."""
    rows = [
        ("Toolbar", _keys([spec.shortcut]), f"{spec.text}: {spec.tip}")
        for spec in toolbar_specs(session)
        if spec.shortcut
    ]
    rows += [("Window", _keys(key.keys), key.text) for key in WINDOW_KEYS]
    for action in zoom:
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        rows.append(("Window", ", ".join(keys), action.text()))
    rows += [(section, keys, what) for section, keys, what in WIDGET_KEYS]
    return rows


class ShortcutsDialog(QDialog):
    """A list of the keys by section (objectName ``shortcutsDialog``)."""

    def __init__(self, session: Session, zoom: Iterable[QAction], owner: QWidget) -> None:
        super().__init__(owner)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.setAccessibleName("Keyboard shortcuts")
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("shortcutsList")
        self.tree.setAccessibleName("Shortcuts")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Keys", "Action"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        sections: dict[str, QTreeWidgetItem] = {}
        for section, keys, what in shortcut_rows(session, zoom):
            parent = sections.get(section)
            if parent is None:
                parent = sections[section] = QTreeWidgetItem(self.tree, [section])
                font = parent.font(0)
                font.setBold(True)
                parent.setFont(0, font)
                parent.setFirstColumnSpanned(True)
            QTreeWidgetItem(parent, [keys, what])  # plain text: never read as HTML
        self.tree.expandAll()
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(780, 600)
        self.tree.setFocus()

    def listed(self) -> list[tuple[str, str]]:
        """``(keys, what)`` of every row shown (tests)."""
        rows = []
        for i in range(self.tree.topLevelItemCount()):
            section = self.tree.topLevelItem(i)
            children = [section.child(j) for j in range(section.childCount())] if section else []
            rows += [(c.text(0), c.text(1)) for c in children if c is not None]
        return rows
