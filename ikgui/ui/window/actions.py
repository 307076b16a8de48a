"""The toolbar's actions (SPEC §10): each dispatches the same command as its slash form
and is enabled only when it can act; Rewind carries a menu of the live marks."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMenu, QToolBar, QToolButton, QWidget

from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings, stepped_text_size
from ikgui.ui.icons import set_icon
from ikgui.ui.plain import action_text, tooltip
from ikgui.ui.window.model_box import ModelBox
from ikgui.ui.window.state import CommandState
from ikgui.ui.window.tool_menu import ToolMenu

if TYPE_CHECKING:
    from ikgui.ui.transcript.scrollback import ScrollbackView
    from ikgui.ui.window.collaborators import Feedback


@dataclass(frozen=True)
class ActionSpec:
    name: str  # objectName, e.g. "actionMark"
    text: str
    icon: str
    shortcut: str | None
    tip: str
    command: str | None = None  # the registry command it runs; its rule enables it


#: The window's own action (it opens a dialog; no command runs).
SETTINGS = ActionSpec(
    "actionSettings", "Settings", "settings", "Ctrl+,", "Providers, keys, agents, prices and theme"
)
#: A separator follows these commands' actions.
_GROUP_ENDS = frozenset({"clear", "stop", "trash"})
#: What a screen reader says for a toolbar button whose label is terse (issue 13); the
#: others say their label, and every one its tip as the description.
SPOKEN = {
    "actionNew": "New conversation",
    "actionMark": "Mark this point",
    "actionRewind": "Rewind to a mark",
    "actionClear": "Clear the context",
    "actionTags": "Edit tags",
    "actionDelete": "Move to the Trash",
    "actionStop": "Stop the reply",
}


def toolbar_specs(session: Session) -> list[ActionSpec]:
    """The toolbar's actions: the registry's entries in its order, then Settings. One
    source for the toolbar, the slash completer and ``/help``, so they cannot disagree."""
    specs = []
    for command in session.registry.actions():
        action = command.action
        assert action is not None  # (``actions()`` lists only commands that have one)
        specs.append(
            ActionSpec(
                action.object_name,
                action.label,
                action.icon,
                action.shortcut,
                action.tooltip,
                command.name,
            )
        )
    return [*specs, SETTINGS]


#: Actions shown as an icon beside the model box rather than among the others (their
#: labels would not fit a 1366-pixel-wide window's toolbar).
BESIDE_MODELS = ("actionCompare",)


class WindowActions:
    """Builds the toolbar and keeps each action's enabled state true to the session."""

    def __init__(self, toolbar: QToolBar, session: Session, parent: QWidget) -> None:
        self.session = session
        self.toolbar = toolbar
        self.actions: dict[str, QAction] = {}
        specs = toolbar_specs(session)
        self.specs = {spec.name: spec for spec in specs}
        for spec in specs:
            action = QAction(spec.text, parent)
            action.setObjectName(spec.name)
            set_icon(action, spec.icon)
            action.setToolTip(spec.tip + (f"  ({spec.shortcut})" if spec.shortcut else ""))
            action.setStatusTip(spec.tip)
            if spec.shortcut:
                action.setShortcut(QKeySequence(spec.shortcut))
            self.actions[spec.name] = action
            if spec.name in BESIDE_MODELS:
                continue  # (an icon beside the model box: see below)
            toolbar.addAction(action)
            if spec.command in _GROUP_ENDS:
                toolbar.addSeparator()
        self._marks_shown: tuple[tuple[int, str | None], ...] | None = None
        self.new_menu = QMenu(parent)
        self.new_menu.setObjectName("newMenu")
        self.new_menu.aboutToShow.connect(self.fill_new_menu)
        self._with_menu(toolbar, "actionNew", self.new_menu)
        self.fill_new_menu()
        self.rewind_menu = QMenu(parent)
        self.rewind_menu.setObjectName("rewindMenu")
        self._with_menu(toolbar, "actionRewind", self.rewind_menu)
        for spec in specs:
            widget = toolbar.widgetForAction(self.actions[spec.name])
            if widget is not None:  # the object name stays the action's, for tests
                widget.setAccessibleName(SPOKEN.get(spec.name, spec.text))
                widget.setAccessibleDescription(spec.tip)
        self.model_selector = ModelBox(parent)
        self.model_selector.setObjectName("modelSelector")
        self.model_selector.setAccessibleName("Model")
        tip = "This conversation's provider and model; choose one to move it (/model)"
        self.model_selector.setAccessibleDescription(tip)
        self.model_selector.setToolTip(tip)
        self.model_selector.setMinimumContentsLength(13)
        self.model_selector.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        spacer = QWidget(parent)
        spacer.setSizePolicy(
            spacer.sizePolicy().horizontalPolicy().Expanding, spacer.sizePolicy().verticalPolicy()
        )
        toolbar.addWidget(spacer)
        self.tools = ToolMenu(toolbar, parent)
        label = QLabel("Model", parent)  # a label, so the box is never an unnamed blank
        label.setObjectName("modelLabel")
        label.setBuddy(self.model_selector)
        label.setContentsMargins(0, 0, 6, 0)
        self.model_label = toolbar.addWidget(label)  # (its action: hidden when compact)
        toolbar.addWidget(self.model_selector)
        for name in BESIDE_MODELS:  # about models: beside their box, an icon at any width
            toolbar.addWidget(self._icon_button(name, parent))

    def _icon_button(self, name: str, parent: QWidget) -> QToolButton:
        """The action ``name`` as an icon (its label and tip said to screen readers)."""
        button = QToolButton(parent)
        button.setDefaultAction(self.actions[name])
        button.setObjectName(name)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        button.setAutoRaise(True)
        button.setAccessibleName(self.specs[name].text)
        button.setAccessibleDescription(self.specs[name].tip)
        return button

    def _with_menu(self, toolbar: QToolBar, name: str, menu: QMenu) -> None:
        """Give an action a menu; a plain click still triggers the action itself."""
        self.actions[name].setMenu(menu)
        button = toolbar.widgetForAction(self.actions[name])
        if isinstance(button, QToolButton):
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)

    def fill_new_menu(self) -> None:
        """New ▸ one item per configured agent (read when the menu opens: Settings may
        have added one), and a plain chat; each item's data is the agent (``""``: none)."""
        menu = self.new_menu
        menu.clear()
        plain = menu.addAction("Chat (no agent)")
        plain.setObjectName("newChat")
        plain.setData("")
        agents = sorted(self.session.settings.agents)
        if agents:
            menu.addSeparator()
        for name in agents:
            item = menu.addAction(action_text(name))  # a config name: shown, not parsed
            item.setToolTip(tooltip(f"A new conversation with the agent {name}"))
            item.setObjectName(f"newWith:{name}")
            item.setData(name)

    def __getitem__(self, name: str) -> QAction:
        return self.actions[name]

    def update(self) -> None:
        """Enable each action exactly when it can act; rebuild the Rewind menu (the
        window's chrome does this from its state, redrawing what changed only)."""
        session = self.session
        for name, spec in self.specs.items():
            if spec.command:
                self.actions[name].setEnabled(session.can_run(spec.command))
        self.show_marks(tuple((m.event_id, m.label) for m in session.state.marks))

    def show_commands(self, commands: Iterable[CommandState]) -> None:
        """Enable or disable each of ``commands``' actions as it says."""
        for command in commands:
            action = self.actions.get(command.action)
            if action is not None:
                action.setEnabled(command.enabled)

    def show_marks(self, marks: tuple[tuple[int, str | None], ...]) -> None:
        """The Rewind menu: one item per live mark, newest first."""
        if marks == self._marks_shown:
            return  # a long conversation can hold hundreds of marks: rebuild on change only
        self._marks_shown = marks
        self.rewind_menu.clear()
        for event_id, label in reversed(marks):
            label = label if label is not None else f"Unlabeled mark #{event_id}"
            item = self.rewind_menu.addAction(action_text(label))  # a label is user text
            item.setToolTip(tooltip(label))  # not the text, which Qt would read as HTML
            item.setData(event_id)
            item.setObjectName(f"rewindTo{event_id}")

    def current_model(self) -> str:
        """The selected model's name (as the server spells it), or ``""``."""
        data = self.model_selector.currentData()
        return data if isinstance(data, str) else ""


#: The text size actions: object name, text, shortcuts, steps (0: back to 100 %).
_TEXT_SIZE = (
    ("actionTextLarger", "Larger text", ("Ctrl+=", "Ctrl++"), 1),
    ("actionTextSmaller", "Smaller text", ("Ctrl+-",), -1),
    ("actionTextNormal", "Normal text size", ("Ctrl+0",), 0),
)


class TextZoom:
    """The transcript's text size: shown at the configured size, changed by Ctrl+=,
    Ctrl+- and Ctrl+0 (window-wide shortcuts) and saved to config.toml at once."""

    def __init__(
        self,
        session: Session,
        scrollback: ScrollbackView,
        save_settings: Callable[[Settings], None],
        feedback: Feedback,
        owner: QWidget,
    ) -> None:
        self.session = session
        self.scrollback = scrollback
        self.save_settings = save_settings
        self.feedback = feedback
        self.actions: dict[str, QAction] = {}
        for name, text, keys, steps in _TEXT_SIZE:
            action = QAction(text, owner)
            action.setObjectName(name)
            action.setShortcuts([QKeySequence(key) for key in keys])
            action.triggered.connect(lambda _=False, steps=steps: self.step(steps))
            owner.addAction(action)
            self.actions[name] = action
        scrollback.set_text_size(session.settings.text_size)

    def step(self, steps: int) -> None:
        """Larger (``steps`` > 0), smaller, or back to the default (0); saved."""
        settings = self.session.settings
        size = stepped_text_size(settings.text_size, steps)
        self.scrollback.set_text_size(size)
        if size == settings.text_size:
            return
        try:
            self.save_settings(replace(settings, text_size=size))
        except Exception as exc:  # a read-only folder: the size holds until closing
            self.feedback.show(f"Could not save the text size: {exc}", error=True)
