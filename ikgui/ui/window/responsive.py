"""The window at any size (issue 13, item 3): below :data:`NARROW` logical pixels the
toolbar goes icon-only (the model selector stays, narrower), the sidebar collapses to a
"Conversations" toggle at the toolbar's start and the working prompt keeps to a slim
column, so the transcript keeps at least :data:`MIN_TRANSCRIPT` pixels at 800×600."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import QToolButton

from ikgui.ui.icons import set_icon

if TYPE_CHECKING:
    from ikgui.ui.main_window import MainWindow

#: Narrower than this (logical pixels), the window uses its compact layout.
NARROW = 1100
#: The transcript's least width in the compact layout.
MIN_TRANSCRIPT = 480
#: The side panels' widths in the compact layout (when shown).
COMPACT_SIDEBAR = 240
COMPACT_WORKING = 230
#: The model selector's width in characters: roomy, compact.
MODEL_CHARS = (13, 8)
TEXT = Qt.ToolButtonStyle.ToolButtonTextBesideIcon
ICONS = Qt.ToolButtonStyle.ToolButtonIconOnly


class Responsive(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.narrow = False
        #: The toolbar's width with its labels (measured while they show).
        self._text_width = 0
        toolbar = window.toolbar_actions.toolbar
        self.sidebar_toggle = QAction("Conversations", window)
        self.sidebar_toggle.setObjectName("sidebarToggle")
        self.sidebar_toggle.setCheckable(True)
        self.sidebar_toggle.setToolTip("Show or hide the list of conversations")
        set_icon(self.sidebar_toggle, "sidebar")
        first = toolbar.actions()[0] if toolbar.actions() else None
        toolbar.insertAction(first, self.sidebar_toggle)  # type: ignore[arg-type]
        button = toolbar.widgetForAction(self.sidebar_toggle)
        if button is not None:
            button.setAccessibleName("Show conversations")
            button.setAccessibleDescription("Show or hide the list of conversations")
        self.sidebar_toggle.setVisible(False)
        more = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
        if more is not None:  # Qt's own overflow button (should it ever show)
            more.setAccessibleName("More actions")
        self.sidebar_toggle.toggled.connect(self._show_sidebar)
        window.installEventFilter(self)
        self.apply(window.width())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Resize:
            assert isinstance(event, QResizeEvent)
            self.apply(event.size().width())
        return False

    def apply(self, width: int) -> None:
        """Switch layouts when ``width`` crosses :data:`NARROW`; keep the compact one fit."""
        narrow = width < NARROW
        if narrow != self.narrow:
            self.narrow = narrow
            window = self.window
            window.toolbar_actions.model_selector.setMinimumContentsLength(MODEL_CHARS[narrow])
            window.toolbar_actions.model_label.setVisible(not narrow)  # the box says "Model"
            self.sidebar_toggle.setVisible(narrow)
            self.sidebar_toggle.blockSignals(True)
            self.sidebar_toggle.setChecked(not narrow)
            self.sidebar_toggle.blockSignals(False)
            window.sidebar.setVisible(not narrow)
        self._fit_toolbar(width)
        self.fit()

    def _fit_toolbar(self, width: int) -> None:
        """Labels beside the icons when they all fit; icons only otherwise (nothing goes
        behind Qt's overflow button)."""
        toolbar = self.window.toolbar_actions.toolbar
        if toolbar.toolButtonStyle() == TEXT:
            self._text_width = toolbar.sizeHint().width()
        toolbar.setToolButtonStyle(ICONS if self.narrow or width < self._text_width else TEXT)

    def fit(self) -> None:
        """In the compact layout, give the side panels their slim widths and the rest to
        the transcript (called after each change: the working prompt may have opened)."""
        if not self.narrow:
            return
        splitter = self.window.splitter
        sizes = splitter.sizes()
        if len(sizes) != 3:
            return
        side = COMPACT_SIDEBAR if self.window.sidebar.isVisible() else 0
        working = sizes[2] if self.window.working.collapsed else COMPACT_WORKING
        if sizes[0] <= side and sizes[2] <= working:
            return
        total = sum(sizes)
        splitter.setSizes([side, max(0, total - side - working), working])

    def _show_sidebar(self, shown: bool) -> None:
        self.window.sidebar.setVisible(shown)
        self.fit()
        if shown:
            self.window.sidebar.setFocus()
