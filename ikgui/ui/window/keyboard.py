"""The window by keyboard (issue 13, item 1): the window's own shortcuts, pane cycling and
the toolbar in the Tab order.

F6 / Shift+F6 cycle the panes (sidebar, transcript, prompt, working prompt); Ctrl+Shift+M
puts the keyboard on the model selector, Ctrl+Shift+C shows the context, Alt+Shift+R
opens the Rewind menu (the arrows walk its marks), Alt+Shift+N the New menu, Ctrl+/ or F1
the "Keyboard shortcuts" dialog; Ctrl+F searches, Ctrl+K goes to the prompt. Alt+Up and
Alt+Down in the prompt editor put the keyboard on the transcript's messages. Toolbar
buttons take Tab focus, so Tab reaches every action.

:data:`WINDOW_KEYS` is the one list these shortcuts are bound from and the dialog lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QMenu, QStackedWidget, QToolButton, QWidget

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.prompt.editor import PromptEditor
    from ikgui.ui.prompt.working_prompt import WorkingPromptPanel
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.transcript.scrollback import ScrollbackView
    from ikgui.ui.window.actions import WindowActions


@dataclass(frozen=True)
class WindowKey:
    """A window-wide shortcut: its keys, what it does (as the dialog says it), its name."""

    name: str
    keys: tuple[str, ...]
    text: str


WINDOW_KEYS = (
    WindowKey("nextPane", ("F6",), "Next pane (sidebar, transcript, prompt, working prompt)"),
    WindowKey("previousPane", ("Shift+F6",), "Previous pane"),
    WindowKey("modelSelector", ("Ctrl+Shift+M",), "Choose the model"),
    WindowKey("showContext", ("Ctrl+Shift+C",), "Show context: what the model receives next"),
    WindowKey("rewindMenu", ("Alt+Shift+R",), "Rewind to a mark (pick one with the arrows)"),
    WindowKey("newMenu", ("Alt+Shift+N",), "New conversation with an agent (pick one)"),
    WindowKey("search", ("Ctrl+F",), "Search conversations"),
    WindowKey("prompt", ("Ctrl+K",), "Go to the prompt"),
    WindowKey("shortcuts", ("Ctrl+/", "F1"), "Keyboard shortcuts"),
)


@dataclass(frozen=True)
class Panes:
    """What the keys move between and open: the window's frame, its toolbar's actions,
    the sidebar (and its toggle in a narrow window), the centre, the prompt editor, the
    working prompt and the transcript."""

    frame: QWidget
    actions: WindowActions
    sidebar: ConversationSidebar
    sidebar_toggle: QAction
    centre_stack: QStackedWidget
    prompt: PromptEditor
    working: WorkingPromptPanel
    scrollback: ScrollbackView


class WindowKeys:
    """Binds :data:`WINDOW_KEYS` on the window and makes the toolbar reachable by Tab."""

    def __init__(
        self,
        panes: Panes,
        session: Session,
        zoom: Iterable[QAction],
        show_context: Callable[[], object],
    ) -> None:
        self.panes_ = panes
        self.session = session
        #: The text size actions (the shortcuts dialog lists their keys).
        self.zoom = list(zoom)
        window = panes.frame
        self.shortcuts: dict[str, list[QShortcut]] = {}
        does: dict[str, Callable[[], object]] = {
            "nextPane": lambda: self.cycle(1),
            "previousPane": lambda: self.cycle(-1),
            "modelSelector": self.focus_model,
            "showContext": show_context,
            "rewindMenu": lambda: self.open_menu("actionRewind"),
            "newMenu": lambda: self.open_menu("actionNew"),
            "search": self.search,
            "prompt": panes.prompt.setFocus,
            "shortcuts": self.show_shortcuts,
        }
        for key in WINDOW_KEYS:
            bound = self.shortcuts[key.name] = []
            for keys in key.keys:
                shortcut = QShortcut(QKeySequence(keys), window)
                shortcut.setObjectName(f"shortcut:{key.name}")
                shortcut.activated.connect(does[key.name])
                bound.append(shortcut)
        panes.prompt.transcript_requested.connect(panes.scrollback.keys.step)
        toolbar = panes.actions.toolbar
        for action in toolbar.actions():
            button = toolbar.widgetForAction(action)
            if isinstance(button, QToolButton):
                button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.dialog: QWidget | None = None

    # -- panes --------------------------------------------------------------------------
    def panes(self) -> list[tuple[QWidget, QWidget]]:
        """Where F6 goes, in order, the ones shown now: ``(pane, what takes the keys)``.
        A part put away is no stop (issue 20, item 17): the working prompt collapsed to
        its toggle (Ctrl+Shift+P opens it), the sidebar hidden in a narrow window."""
        w = self.panes_
        centre = w.centre_stack.currentWidget() or w.centre_stack
        candidates = [
            (w.sidebar, w.sidebar.view),
            (w.centre_stack, centre),
            (w.prompt, w.prompt),
        ]
        if not w.working.collapsed:
            candidates.append((w.working, w.working.editor))
        found = [(p, _takes_focus(t)) for p, t in candidates if t.isVisible() and t.isEnabled()]
        return [(p, t) for p, t in found if t is not None]

    def cycle(self, step: int) -> None:
        """The keyboard to the next (``step`` 1) or previous (-1) pane."""
        panes = self.panes()
        if not panes:
            return
        focus = QApplication.focusWidget()
        current = -1 if step > 0 else 0  # the toolbar, Send...: from the first pane
        for index, (pane, _) in enumerate(panes):
            if focus is not None and (focus is pane or pane.isAncestorOf(focus)):
                current = index
        panes[(current + step) % len(panes)][1].setFocus(Qt.FocusReason.ShortcutFocusReason)

    def search(self) -> None:
        """Ctrl+F: the sidebar's search box (a narrow window shows the sidebar first)."""
        toggle = self.panes_.sidebar_toggle
        if not self.panes_.sidebar.isVisible() and toggle.isVisible():
            toggle.setChecked(True)
        self.panes_.sidebar.focus_search()

    # -- the toolbar's parts ------------------------------------------------------------
    def focus_model(self) -> QMenu | None:
        """The keyboard to the model selector; while a narrow toolbar hides it, its
        models as a menu (the arrows pick one, as in the selector)."""
        selector = self.panes_.actions.model_selector
        if selector.isVisible():
            selector.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return None
        if not selector.isEnabled() or selector.count() == 0:
            return None
        menu = QMenu(self.panes_.frame)
        menu.setObjectName("modelMenu")
        menu.aboutToHide.connect(menu.deleteLater)
        for index in range(selector.count()):  # (the item text is made safe: one line)
            item = menu.addAction(selector.itemText(index).replace("&", "&&"))
            if selector.choice(index) is None:  # a provider's heading, or a note under it
                item.setEnabled(False)
                font = selector.itemData(index, Qt.ItemDataRole.FontRole)
                if isinstance(font, QFont):
                    item.setFont(font)
                continue
            item.setCheckable(True)
            item.setChecked(index == selector.currentIndex())
            item.triggered.connect(lambda _=False, i=index: self._pick_model(i))
        toolbar = self.panes_.actions.toolbar
        menu.popup(toolbar.mapToGlobal(QPoint(toolbar.width() - menu.sizeHint().width(), 0)))
        current = selector.currentIndex()
        if current < 0:  # no model chosen yet: the first one listed
            current = next((i for i in range(selector.count()) if selector.choice(i)), 0)
        menu.setActiveAction(menu.actions()[current])
        return menu

    def _pick_model(self, index: int) -> None:
        selector = self.panes_.actions.model_selector
        selector.setCurrentIndex(index)
        selector.activated.emit(index)

    def open_menu(self, action_name: str) -> QMenu | None:
        """Pop up an action's menu under its button, its first entry active."""
        actions = self.panes_.actions
        action = actions[action_name]
        menu = action.menu()
        if not isinstance(menu, QMenu) or not action.isEnabled():
            return None
        if action_name == "actionNew":
            actions.fill_new_menu()
        if menu.isEmpty():
            return None
        button = actions.toolbar.widgetForAction(action)
        anchor = button if button is not None and button.isVisible() else actions.toolbar
        menu.popup(anchor.mapToGlobal(QPoint(0, anchor.height())))
        first = next((a for a in menu.actions() if not a.isSeparator()), None)
        if first is not None:
            menu.setActiveAction(first)
        return menu

    def show_shortcuts(self) -> QWidget:
        from ikgui.ui.window.shortcuts_dialog import ShortcutsDialog

        if self.dialog is None:
            self.dialog = ShortcutsDialog(self.session, self.zoom, self.panes_.frame)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog


def _takes_focus(widget: QWidget) -> QWidget | None:
    """``widget``, or (the welcome panel takes no focus itself) its first control."""
    tab = Qt.FocusPolicy.TabFocus
    if widget.focusPolicy() & tab == tab:
        return widget
    controls = (w for w in widget.findChildren(QWidget) if w.focusPolicy() & tab == tab)
    return next((w for w in controls if w.isVisible() and w.isEnabled()), None)
