"""The main window (SPEC §10): sidebar, scrollback, prompt editor, working-prompt panel,
toolbar and status bar over one domain session — its layout, and what it delegates to.

The controllers are built and connected by the wiring module
(:mod:`ikgui.ui.window.assembly`), which hands each the narrow collaborators it uses.

What the widgets ask for runs through :class:`WindowCommands` (slash lines through the
command registry); the :class:`SessionBridge` turns what happened into signals that update
the widgets, and :class:`ChromePresenter` redraws the status bar, title and actions.
Drafts and the poll for other processes' changes live in :class:`DraftsAndPolling`, the
read-only demo's rules in one policy object. Work that waits (sending, model lists) runs
as named asyncio tasks on the qasync loop; dialogs are never ``exec()``-ed inside a
coroutine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QToolBar

from ikgui.domain.events import Conversation, Event, Kind
from ikgui.domain.state.transcript import cleared_items
from ikgui.ui.bridge import SessionBridge
from ikgui.ui.bugs import surface
from ikgui.ui.conversation_pane import ConversationPane
from ikgui.ui.first_paint import FirstPaint
from ikgui.ui.plain import make_plain
from ikgui.ui.prompt.panel_controller import WorkingPromptController
from ikgui.ui.prompt.working_prompt import WorkingPromptPanel
from ikgui.ui.sidebar.panel import ConversationSidebar
from ikgui.ui.unsaved import UnsavedIndicator
from ikgui.ui.window.actions import TextZoom, WindowActions
from ikgui.ui.window.attaching import DraftAttachments
from ikgui.ui.window.chrome import ChromePresenter
from ikgui.ui.window.collaborators import Feedback
from ikgui.ui.window.commands import WindowCommands
from ikgui.ui.window.dialogs import WindowDialogs
from ikgui.ui.window.drafts import PromptDrafts
from ikgui.ui.window.keyboard import WindowKeys
from ikgui.ui.window.model_lists import ModelLists
from ikgui.ui.window.policy import WritablePolicy
from ikgui.ui.window.runner import CommandRunner
from ikgui.ui.window.services import WindowServices
from ikgui.ui.window.splitter import MainSplitter
from ikgui.ui.window.startup import TailFirstStart
from ikgui.ui.window.watcher import ExternalChanges

if TYPE_CHECKING:
    from ikgui.ui.welcome import WelcomePanel

#: Conversations the sidebar reads before the first paint (a screenful; more on scrolling).
FIRST_ROWS = 40


class MainWindow(QMainWindow):
    #: The last demo window opened (set when shown).
    demo_window: Any
    #: The controllers (built and connected by :func:`ikgui.ui.window.assembly.assemble`).
    policy: WritablePolicy
    feedback_sink: Feedback
    bridge: SessionBridge
    runner: CommandRunner
    commands: WindowCommands
    chrome: ChromePresenter
    drafts: PromptDrafts
    watcher: ExternalChanges
    prompt_panel: WorkingPromptController
    dialogs: WindowDialogs
    text_zoom: TextZoom
    startup: TailFirstStart
    keys: WindowKeys
    unsaved: UnsavedIndicator
    attachments: DraftAttachments

    def __init__(self, services: WindowServices) -> None:
        super().__init__()
        self.services = services
        self.session = session = services.session
        self.store = session.store
        self.setObjectName("mainWindow")
        self.setWindowTitle("ikgui")
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        #: What the first paint does not need waits for it (the model check, ...).
        self.first_paint = FirstPaint(self)
        self._build()
        self.scrollback.first_screen_until(self.first_paint)
        self.scrollback.fill_in_steps = True
        self.scrollback.group_loader = lambda group: cleared_items(self.store, group)
        self.first_paint.then(self.sidebar.release_pages)

    # -- building ------------------------------------------------------------------
    def _build(self) -> None:
        toolbar = QToolBar("Conversation", self)
        toolbar.setObjectName("mainToolBar")
        toolbar.setAccessibleName("Conversation actions")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(toolbar)
        self.toolbar_actions = WindowActions(toolbar, self.session, self)

        self.sidebar = ConversationSidebar(self.store, self, first_page=FIRST_ROWS)
        self.pane = pane = ConversationPane(self)
        self.scrollback, self.banner = pane.scrollback, pane.banner
        self.centre_stack, self.feedback, self.prompt = pane.stack, pane.feedback, pane.prompt
        self.send_button, self.stop_button = pane.send_button, pane.stop_button
        self.prompt.set_commands((c.name, c.description, c.usage) for c in self.session.registry)
        self.model_lists = ModelLists(
            self.session,
            self.toolbar_actions.model_selector,
            self.spawn,
            self.services.refresh_models,
            self.services.check_timeout,
            lambda: self.chrome.note(lambda notes: notes.retired("server")),
        )
        self.working = WorkingPromptPanel(self)

        self.splitter = MainSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(pane)
        self.splitter.addWidget(self.working)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([300, 760, 280])
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)

        self.status_model = make_plain(QLabel())  # provider and model names: never HTML
        self.status_model.setObjectName("statusModel")
        self.status_usage = make_plain(QLabel())
        self.status_usage.setObjectName("statusUsage")
        self.status_stream = make_plain(QLabel("Ready"))
        self.status_stream.setObjectName("statusStream")
        bar = self.statusBar()
        bar.addPermanentWidget(self.status_model)
        bar.addPermanentWidget(self.status_usage)
        bar.addPermanentWidget(self.status_stream)
        self.resize(1340, 820)

    @property
    def welcome(self) -> WelcomePanel:
        return self.pane.welcome

    # The last Settings dialog, context viewer and Branches view opened (``None``: none).
    @property
    def settings_dialog(self) -> Any:
        return self.dialogs.settings_dialog

    @property
    def context_dialog(self) -> Any:
        return self.dialogs.context_dialog

    @property
    def branches_view(self) -> Any:
        return self.dialogs.branches_view

    # -- start-up --------------------------------------------------------------------
    def start(self) -> None:
        """Show the last open conversation and check the model server in the background."""
        last = str(self.services.ui_state.value("last_conversation", "", type=str))
        newest = self.store.last_conversation()
        opened = False
        for candidate in (last, newest.id if newest else None):
            if candidate and self.store.get_conversation(candidate) is not None:
                self.startup.open(candidate)  # its tail now, replayed after the first paint
                opened = True
                break
        if not opened:
            self.session.new_conversation(self.session.settings.default_agent)
            self.on_switched()
        self.policy.start()
        self.chrome.redraw(frozenset({"banner"}))  # (config.toml's problems, a read-only store)

    async def check_models(self) -> None:
        """Ask every provider for its models (the selector lists them); the open
        conversation's provider failing says so in a banner."""
        await self.first_paint.wait()
        await self.model_lists.ask_all()
        banner = self.model_lists.banners.get(self.session.provider)
        if banner is not None:  # (the window state says which banner matters most)
            self.chrome.note(lambda notes: notes.heard(banner))

    # -- tasks and feedback ------------------------------------------------------------
    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(surface)  # its exception is a bug: the bug path's
        return task

    def show_feedback(self, text: str, error: bool = False) -> None:
        """The line under the transcript (said there only: the status bar keeps its short
        state, issue 10 item 7)."""
        self.pane.show_feedback(text, error)

    @property
    def read_only(self) -> bool:
        return self.policy.read_only

    def open_demo(self) -> None:
        if self.services.open_demo is not None:
            self.demo_window = self.services.open_demo()

    @property
    def current_id(self) -> str:
        return self.session.conversation.id

    # -- what the user does (see CommandRunner, WindowCommands) ------------------------
    def run_line(self, line: str) -> asyncio.Task[Any]:
        """Send a message or run a slash command, as typed in the prompt editor."""
        return self.runner.run_line(line)

    def rewind_to(self, mark_event_id: int) -> None:
        self.commands.rewind_to(mark_event_id)

    def stop(self) -> None:
        self.commands.stop()

    def open_conversation(self, conv_id: str, event_id: object = None) -> None:
        self.commands.open_conversation(conv_id, event_id)

    def open_settings(self, page: str = "providers") -> Any:
        return self.dialogs.open_settings(page)

    def show_context(self) -> None:
        self.dialogs.show_context()

    # -- questions (tests replace these) ------------------------------------------------
    def ask_text(self, title: str, label: str, text: str, then: Callable[[str], object]) -> None:
        """Ask for a line; ``then(value)`` on OK (window-modal: nothing waits meanwhile)."""
        from ikgui.ui.questions import ask_text

        ask_text(self, title, label, text, then)

    def ask_save_path(self, suggested: str, then: Callable[[Path], object]) -> None:
        """Where to save ``suggested`` (a file name), starting in the Documents folder;
        ``then(path)`` once chosen (window-modal: nothing waits meanwhile)."""
        from ikgui.ui.questions import ask_save_path
        from ikgui.ui.window.export_file import documents

        filters = "JSON (*.json);;Markdown (*.md)"
        ask_save_path(self, "Export conversation", documents() / suggested, filters, then)

    def ask_open_paths(self, then: Callable[[list[str]], object]) -> None:
        """Which files to attach (the Attach button); ``then(paths)`` once chosen."""
        from ikgui.ui.questions import ask_open_paths

        filters = (
            "Images, PDFs and text files (*.png *.jpg *.jpeg *.gif *.webp *.pdf *.txt *.md"
            " *.csv *.json *.py *.js *.ts *.html *.css *.xml *.yaml *.yml *.toml);;"
            "All files (*)"
        )
        ask_open_paths(self, "Attach files", Path.home(), filters, then)

    # -- reacting to the session (connected by the wiring module) ----------------------
    def on_switched(self) -> None:
        if self.startup.show():
            return  # a preview until the session replays (see TailFirstStart)
        session = self.session
        conv = session.conversation
        self.scrollback.show_events(session.state.transcript)
        self.prompt_panel.conversation_shown()
        self.drafts.show_draft()
        if session.saved:
            self.sidebar.refresh_conversation(conv.id)  # a new fork: its row appears
        self.sidebar.set_current(conv.id if session.saved else None)
        self.watcher.mark_seen()
        if session.saved:
            self.services.ui_state.setValue("last_conversation", conv.id)
        self.chrome.follow()

    def on_event_appended(self, event: Event) -> None:
        self.watcher.last_seen_event = event.id
        if event.kind == Kind.PROMPT_EDIT and self.working.collapsed and not self.scrollback.quiet:
            self.prompt_panel.open()  # /prompt TEXT shows what it set (here, not elsewhere)
        self.chrome.follow()

    def on_event_updated(self, event: Event) -> None:
        self.scrollback.update_event(event)
        self.chrome.follow()

    def on_conversation_changed(self, conv_id: str, known: Conversation | None) -> None:
        self.sidebar.refresh_conversation(conv_id, known)
        if conv_id == self.current_id:  # (the session took the change already)
            self.chrome.follow()

    def on_stream_state(self, conv_id: str, streaming: bool) -> None:
        self.sidebar.set_streaming(conv_id, streaming)
        self.chrome.follow()
        if not streaming and conv_id == self.current_id:
            self.model_lists.reply_ended()

    def on_state_replaced(self) -> None:
        """Saved at last (or replayed after another sender): show the state with real ids."""
        session = self.session
        self.scrollback.show_events(session.state.transcript)
        self.watcher.mark_seen()
        if session.saved and not session.writes.touches(session.conversation.id):
            self.sidebar.refresh_conversation(session.conversation.id)
            self.sidebar.set_current(session.conversation.id)
        self.chrome.follow()
        self.unsaved.state_replaced()

    # -- layout and shutdown -------------------------------------------------------------
    def restore_layout(self) -> None:
        state = self.services.ui_state
        geometry = state.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:  # first start: a comfortable size that fits a small laptop screen too
            screen = self.screen().availableGeometry()
            self.resize(min(1340, int(screen.width() * 0.9)), min(820, int(screen.height() * 0.9)))
        splitter = state.value("splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)
        history = state.value("history", [], type=list)
        self.prompt.history = [str(h) for h in history] if isinstance(history, list) else []

    def _save_layout(self) -> None:
        state = self.services.ui_state
        state.setValue("geometry", self.saveGeometry())
        state.setValue("splitter", self.splitter.saveState())
        state.setValue("history", self.prompt.history[-200:])
        state.sync()

    async def shutdown(self) -> None:
        """Stop streams (keeping what arrived), save drafts and layout, close the store."""
        if self._closed:
            return
        self._closed = True
        self.watcher.stop_polling()
        self.drafts.save_draft()  # (an unsaved prompt edit is kept as a draft too)
        for conv_id in list(self.session.streams):
            self.session.stop(conv_id)
        if self.session.comparison is not None:
            self.session.comparison.stop()  # models compared: each keeps what arrived
        me = asyncio.current_task()
        pending = [t for t in self._tasks if not t.done() and t is not me]
        for task in pending:
            if not task.get_name().startswith("line:"):
                task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=5)
        await self.unsaved.shutdown()
        if self.services.close_providers is not None:
            await self.services.close_providers()
        self._save_layout()
        if self.services.on_closed is not None:
            self.services.on_closed()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:
            event.accept()
            return
        event.ignore()
        if not self.unsaved.may_close():
            return
        self.spawn(self._close_after_shutdown(), "shutdown")

    async def _close_after_shutdown(self) -> None:
        await self.shutdown()
        self.close()
