"""The toolbar's Tools button (SPEC §12): the configured tool servers, each checked when
this conversation offers it; a click switches it with ``/tools on|off NAME``, so it is
recorded and replayed like the typed command. Drawn from the window state's ``tools``."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolBar, QToolButton, QWidget

from ikgui.ui.plain import action_text, tooltip
from ikgui.ui.window.state import ToolSwitches

TIP = "The tool servers this conversation offers the model; choose one to switch it (/tools)"


class ToolMenu:
    """The button and its menu; :meth:`show` draws a :class:`ToolSwitches`."""

    def __init__(self, toolbar: QToolBar, parent: QWidget) -> None:
        self.button = QToolButton(parent)
        self.button.setObjectName("toolsButton")
        self.button.setText("Tools")
        self.button.setAccessibleName("Tool servers")
        self.button.setAccessibleDescription(TIP)
        self.button.setToolTip(TIP)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(parent)
        self.menu.setObjectName("toolsMenu")
        self.button.setMenu(self.menu)
        self.settings = QAction("Settings → Tools…", parent)
        self.settings.setObjectName("toolsSettings")
        self.action = toolbar.addWidget(self.button)  # (its action hides the button)
        self.gap = toolbar.addSeparator()  # (apart from the model's label)
        for action in (self.action, self.gap):
            action.setVisible(False)
        self.shown: ToolSwitches | None = None

    def show(self, switches: ToolSwitches) -> None:
        if switches == self.shown:
            return
        self.shown = switches
        for action in (self.action, self.gap):
            action.setVisible(bool(switches.servers))
        self.button.setText(switches.text)
        self.button.setEnabled(switches.switchable)
        self.menu.clear()
        for server in switches.servers:
            item = self.menu.addAction(action_text(server.name))  # a config name: shown
            item.setObjectName(f"tools:{server.name}")
            item.setCheckable(True)
            item.setChecked(server.offered)
            item.setEnabled(server.enabled)
            item.setData(server.name)
            said = "offered" if server.offered else "not offered"
            why = "" if server.enabled else " (turned off in Settings)"
            item.setToolTip(tooltip(f"{server.name}: {said} in this conversation{why}"))
        self.menu.addSeparator()
        self.menu.addAction(self.settings)

    def server_of(self, action: QAction) -> str | None:
        """The server a menu item switches (``None``: Settings → Tools…)."""
        data = action.data()
        return data if isinstance(data, str) and action is not self.settings else None
