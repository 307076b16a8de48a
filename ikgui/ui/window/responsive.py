"""The window at any size (issue 13, item 3): below :data:`NARROW` logical pixels the
toolbar goes icon-only (the model selector stays, narrower), the sidebar collapses to a
"Conversations" toggle at the toolbar's start and the working prompt keeps to a slim
column, so the transcript keeps at least :data:`MIN_TRANSCRIPT` pixels at 800×600.

There the toggle shows the sidebar over the transcript, at the window's left edge, as
ChatGPT's does (issue 20, item 14): beside it, with the working prompt open, the
transcript was squeezed to ~295 px and the prompt's placeholder cut. Choosing a
conversation, Escape, or moving the keyboard or a click elsewhere in the window puts it
away.

Whether the toolbar's labels fit is decided against their width in the roomy layout,
measured afresh (the toolbar briefly set to labels, unpainted) whenever it may have
changed: when the window is shown, and after a font, style (theme) or toolbar change —
not only on the next resize."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QApplication, QMainWindow, QToolButton, QWidget

from ikgui.ui.icons import set_icon
from ikgui.ui.window.splitter import least_width

if TYPE_CHECKING:
    from ikgui.ui.prompt.editor import PromptEditor
    from ikgui.ui.prompt.working_prompt import WorkingPromptPanel
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.window.actions import WindowActions
    from ikgui.ui.window.splitter import MainSplitter

#: Narrower than this (logical pixels), the window uses its compact layout.
NARROW = 1100
#: The transcript's least width in the compact layout.
MIN_TRANSCRIPT = 480
#: The side panels' widths in the compact layout (when shown).
COMPACT_SIDEBAR = 240
COMPACT_WORKING = 230
#: The sidebar's width when it lies over the transcript (a narrow window).
OVERLAY_SIDEBAR = 300
#: The model selector's width in characters: roomy, compact.
MODEL_CHARS = (13, 8)
TEXT = Qt.ToolButtonStyle.ToolButtonTextBesideIcon
ICONS = Qt.ToolButtonStyle.ToolButtonIconOnly
#: The toolbar's events after which its labels' width is measured again.
_RESTYLED = frozenset(
    {
        QEvent.Type.FontChange,
        QEvent.Type.StyleChange,
        QEvent.Type.ActionAdded,
        QEvent.Type.ActionRemoved,
        QEvent.Type.ActionChanged,
    }
)


@dataclass(frozen=True)
class Layout:
    """What the window's layout at any size moves: the window's frame, its toolbar's
    actions, the sidebar, the splitter, the working prompt and the prompt editor."""

    frame: QMainWindow
    actions: WindowActions
    sidebar: ConversationSidebar
    splitter: MainSplitter
    working: WorkingPromptPanel
    prompt: PromptEditor


class Responsive(QObject):
    def __init__(self, parts: Layout) -> None:
        super().__init__(parts.frame)
        self.parts = parts
        window = parts.frame
        self.narrow = False
        #: The toolbar's width with its labels in the roomy layout (``None``: measure it).
        self._text_width: int | None = None
        #: What of the toolbar's actions takes room (their visibility and texts).
        self._shown: tuple[tuple[bool, str], ...] = ()
        #: Fits the toolbar again once a font or style change has reached every button.
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(0)
        self._refit.timeout.connect(lambda: self.apply(self.parts.frame.width()))
        toolbar = self.parts.actions.toolbar
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
        #: Holds the sidebar's place in the splitter while it lies over the transcript.
        self._place = QWidget()
        self._place.setObjectName("sidebarPlace")
        self._place.hide()
        parts.sidebar.conversation_activated.connect(lambda *_: self._put_away())
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_moved)
        window.installEventFilter(self)
        parts.sidebar.installEventFilter(self)  # (Escape puts it away)
        parts.splitter.installEventFilter(self)
        toolbar.installEventFilter(self)
        self.apply(window.width())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.parts.frame and kind == QEvent.Type.Resize:
            assert isinstance(event, QResizeEvent)
            self.apply(event.size().width())
        elif watched is self.parts.frame and kind == QEvent.Type.Show:
            self._text_width = None  # polished now: right from the first paint
            self.apply(self.parts.frame.width())
        elif watched is self.parts.splitter and kind in (QEvent.Type.Resize, QEvent.Type.Move):
            self._place_overlay()
        elif watched is self.parts.sidebar and kind == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Escape and not self.docked():
                self.sidebar_toggle.setChecked(False)  # (what is typed in its search stays)
                return True
        elif kind in _RESTYLED and watched is self.parts.actions.toolbar:
            shown = self._actions_shown()
            if kind != QEvent.Type.ActionChanged or shown != self._shown:
                self._shown = shown
                self._text_width = None
                self._refit.start()
        return False

    def _actions_shown(self) -> tuple[tuple[bool, str], ...]:
        actions = self.parts.actions.toolbar.actions()
        return tuple((action.isVisible(), action.text()) for action in actions)

    def apply(self, width: int) -> None:
        """Switch layouts when ``width`` crosses :data:`NARROW`; keep the compact one fit."""
        narrow = width < NARROW
        if narrow != self.narrow:
            self.narrow = narrow
            self._text_width = None
            self.parts.actions.model_selector.setMinimumContentsLength(MODEL_CHARS[narrow])
            self.parts.actions.model_label.setVisible(not narrow)  # the box says "Model"
            self.sidebar_toggle.setVisible(narrow)
            self.sidebar_toggle.blockSignals(True)
            self.sidebar_toggle.setChecked(not narrow)
            self.sidebar_toggle.blockSignals(False)
            if narrow:
                self._overlay()
            else:
                self._dock()
        self._fit_toolbar(width)
        self.fit()

    def _fit_toolbar(self, width: int) -> None:
        """Labels beside the icons when they all fit; icons only otherwise (nothing goes
        behind Qt's overflow button)."""
        toolbar = self.parts.actions.toolbar
        if self.narrow:  # (the labelled width is the roomy layout's: not measured here)
            toolbar.setToolButtonStyle(ICONS)
            return
        if toolbar.toolButtonStyle() == TEXT or self._text_width is None:
            self._text_width = self._labelled_width()
        toolbar.setToolButtonStyle(ICONS if width < self._text_width else TEXT)

    def _labelled_width(self) -> int:
        """The toolbar's width with its labels showing (set so for a moment if need be,
        without painting)."""
        toolbar = self.parts.actions.toolbar
        layout = toolbar.layout()
        if layout is not None:  # its cached size would be the old style's
            layout.invalidate()
        if toolbar.toolButtonStyle() == TEXT:
            return toolbar.sizeHint().width()
        toolbar.setUpdatesEnabled(False)
        try:
            toolbar.setToolButtonStyle(TEXT)
            return toolbar.sizeHint().width()
        finally:
            toolbar.setToolButtonStyle(ICONS)
            toolbar.setUpdatesEnabled(True)

    def fit(self) -> None:
        """In the compact layout, give the side panels their slim widths and the rest to
        the transcript (called after each change: the working prompt may have opened)."""
        if not self.narrow:
            return
        splitter = self.parts.splitter
        sizes = splitter.sizes()
        if len(sizes) != 3:
            return
        side = COMPACT_SIDEBAR if self.docked() and self.parts.sidebar.isVisible() else 0
        working = sizes[2] if self.parts.working.collapsed else COMPACT_WORKING
        if sizes[0] <= side and sizes[2] <= working:
            return
        total = sum(sizes)
        splitter.setSizes([side, max(0, total - side - working), working])

    # -- the sidebar over the transcript -------------------------------------------------
    def docked(self) -> bool:
        """Whether the sidebar is in the splitter (not lying over the transcript)."""
        return self.parts.splitter.indexOf(self.parts.sidebar) >= 0

    def _overlay(self) -> None:
        """Take the sidebar out of the splitter (hidden): shown, it lies over the rest."""
        window, sidebar = self.parts, self.parts.sidebar
        if self.docked():
            window.splitter.replaceWidget(0, self._place)  # (its parent is now None)
            self._place.hide()
            sidebar.setParent(window.frame)  # (hidden by setParent)
            sidebar.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
            _restyle(sidebar, True)
        sidebar.hide()

    def _dock(self) -> None:
        """The sidebar back in the splitter, shown."""
        window, sidebar = self.parts, self.parts.sidebar
        if not self.docked():
            sidebar.hide()
            _restyle(sidebar, False)
            window.splitter.replaceWidget(0, sidebar)
            self._place.setParent(None)
            self._place.hide()
        sidebar.show()

    def _place_overlay(self) -> None:
        sidebar, splitter = self.parts.sidebar, self.parts.splitter
        if self.docked():
            return
        area = splitter.geometry()  # (the central widget, in the window's coordinates)
        width = min(max(OVERLAY_SIDEBAR, least_width(sidebar)), area.width())
        sidebar.setGeometry(area.x(), area.y(), width, area.height())

    def _put_away(self) -> None:
        """A conversation was chosen: the sidebar over the transcript steps aside."""
        if not self.docked() and self.parts.sidebar.isVisible():
            self.sidebar_toggle.setChecked(False)

    def _focus_moved(self, _old: QWidget | None, new: QWidget | None) -> None:
        sidebar = self.parts.sidebar
        if new is None or self.docked() or not sidebar.isVisible():
            return
        if (
            new.window() is self.parts.frame
            and new is not sidebar
            and not sidebar.isAncestorOf(new)
        ):
            self.sidebar_toggle.setChecked(False)

    def _show_sidebar(self, shown: bool) -> None:
        sidebar = self.parts.sidebar
        focus = QApplication.focusWidget()
        had_keys = focus is not None and sidebar.isAncestorOf(focus)
        if shown and not self.docked():
            self._place_overlay()
            sidebar.raise_()
        sidebar.setVisible(shown)
        self.fit()
        if shown:
            sidebar.setFocus()
        elif had_keys:
            self.parts.prompt.setFocus()


def _restyle(widget: QWidget, overlay: bool) -> None:
    """The style sheet's ``[overlay="true"]`` rule on or off (a background and an edge)."""
    widget.setProperty("overlay", overlay)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
