"""The toolbar's actions (SPEC §10): each dispatches the same command as its slash form
and is enabled only when it can act; Rewind carries a menu of the live marks."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QMenu, QToolBar, QToolButton, QWidget

from ikgui.domain.session import Session
from ikgui.ui.icons import set_icon
from ikgui.ui.plain import action_text, line, tooltip


@dataclass(frozen=True)
class ActionSpec:
    name: str  # objectName, e.g. "actionMark"
    text: str
    icon: str
    shortcut: str | None
    tip: str
    command: str | None = None  # the registry command whose "enabled when" applies


SPECS = [
    ActionSpec("actionNew", "New", "new", "Ctrl+N", "Start a new conversation (/new)", "new"),
    ActionSpec(
        "actionMark",
        "Mark",
        "mark",
        "Ctrl+M",
        "Checkpoint the context here (/mark [label])",
        "mark",
    ),
    ActionSpec(
        "actionRewind",
        "Rewind",
        "rewind",
        "Ctrl+Shift+R",
        "Roll the context back to the newest mark, or pick one (/rewind)",
        "rewind",
    ),
    ActionSpec(
        "actionFork",
        "Fork",
        "fork",
        "Ctrl+B",
        "Branch this conversation into a child (/fork)",
        "fork",
    ),
    ActionSpec(
        "actionClear",
        "Clear",
        "clear",
        "Ctrl+L",
        "Clear the context; the log keeps everything (/clear)",
        "clear",
    ),
    ActionSpec("actionStop", "Stop", "stop", "Ctrl+.", "Stop the reply (Escape)"),
    ActionSpec("actionRename", "Rename", "rename", "F2", "Rename this conversation"),
    ActionSpec("actionTags", "Tags", "tags", "Ctrl+T", "Edit this conversation's tags"),
    ActionSpec(
        "actionExport",
        "Export",
        "export",
        "Ctrl+E",
        "Export as JSON (lossless) or Markdown (/export)",
    ),
    ActionSpec("actionDelete", "Delete", "delete", None, "Move this conversation to the Trash"),
    ActionSpec(
        "actionSettings",
        "Settings",
        "settings",
        "Ctrl+,",
        "Providers, keys, agents, prices and theme",
    ),
]


class WindowActions:
    """Builds the toolbar and keeps each action's enabled state true to the session."""

    def __init__(self, toolbar: QToolBar, session: Session, parent: QWidget) -> None:
        self.session = session
        self.toolbar = toolbar
        self.actions: dict[str, QAction] = {}
        self.specs = {spec.name: spec for spec in SPECS}
        for spec in SPECS:
            action = QAction(spec.text, parent)
            action.setObjectName(spec.name)
            set_icon(action, spec.icon)
            action.setToolTip(spec.tip + (f"  ({spec.shortcut})" if spec.shortcut else ""))
            action.setStatusTip(spec.tip)
            if spec.shortcut:
                action.setShortcut(QKeySequence(spec.shortcut))
            self.actions[spec.name] = action
            toolbar.addAction(action)
            if spec.name in ("actionClear", "actionStop", "actionDelete"):
                toolbar.addSeparator()
        self._marks_shown: tuple[tuple[int, str | None], ...] | None = None
        self.rewind_menu = QMenu(parent)
        self.rewind_menu.setObjectName("rewindMenu")
        self.actions["actionRewind"].setMenu(self.rewind_menu)
        button = toolbar.widgetForAction(self.actions["actionRewind"])
        if isinstance(button, QToolButton):
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
            button.setAccessibleName("actionRewind")
        for spec in SPECS:
            widget = toolbar.widgetForAction(self.actions[spec.name])
            if widget is not None:
                widget.setAccessibleName(spec.name)
        self.model_selector = QComboBox(parent)
        self.model_selector.setObjectName("modelSelector")
        self.model_selector.setAccessibleName("modelSelector")
        self.model_selector.setToolTip("The model for this conversation (/model)")
        self.model_selector.setMinimumContentsLength(18)
        self.model_selector.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        spacer = QWidget(parent)
        spacer.setSizePolicy(
            spacer.sizePolicy().horizontalPolicy().Expanding, spacer.sizePolicy().verticalPolicy()
        )
        toolbar.addWidget(spacer)
        toolbar.addWidget(self.model_selector)

    def __getitem__(self, name: str) -> QAction:
        return self.actions[name]

    def update(self) -> None:
        """Enable each action exactly when it can act; rebuild the Rewind menu."""
        session = self.session
        registry = session.registry
        for name, spec in self.specs.items():
            if spec.command:
                command = registry.get(spec.command)
                enabled = bool(command and command.enabled(session))
                if name in ("actionFork", "actionClear"):
                    enabled = enabled and session.saved
                self.actions[name].setEnabled(enabled)
        saved = session.saved
        for name in ("actionRename", "actionTags", "actionExport", "actionDelete"):
            self.actions[name].setEnabled(saved)
        self.actions["actionStop"].setEnabled(session.streaming)
        marks = tuple((m.event_id, m.label) for m in session.state.marks)
        if marks == self._marks_shown:
            return  # a long conversation can hold hundreds of marks: rebuild on change only
        self._marks_shown = marks
        self.rewind_menu.clear()
        for mark in reversed(session.state.marks):
            label = mark.label if mark.label is not None else f"Unlabeled mark #{mark.event_id}"
            item = self.rewind_menu.addAction(action_text(label))  # a label is user text
            item.setToolTip(tooltip(label))  # not the text, which Qt would read as HTML
            item.setData(mark.event_id)
            item.setObjectName(f"rewindTo{mark.event_id}")

    def model_names(self) -> list[str]:
        """The model names listed (as the server spells them)."""
        selector = self.model_selector
        return [str(selector.itemData(i)) for i in range(selector.count())]

    def current_model(self) -> str:
        """The selected model's name (as the server spells it), or ``""``."""
        data = self.model_selector.currentData()
        return data if isinstance(data, str) else ""

    def set_models(self, models: list[str], current: str | None) -> None:
        """List ``models`` (names from the server: shown with their bidi controls and
        control characters visible; the item data keeps the exact name)."""
        selector = self.model_selector
        selector.blockSignals(True)
        selector.clear()
        names = list(models)
        if current and current not in names:
            names.insert(0, current)
        for name in names:
            selector.addItem(line(name), name)
        if current:
            selector.setCurrentIndex(selector.findData(current))
        selector.setEnabled(bool(names))
        selector.blockSignals(False)
