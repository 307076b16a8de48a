"""The main window (SPEC §10): sidebar, scrollback, prompt editor, working-prompt panel,
toolbar and status bar over one domain session.

Everything the user does goes through the session (slash lines through the command
registry); the :class:`SessionBridge` turns what happened into signals that update the
widgets. Work that waits (sending, model lists) runs as named asyncio tasks on the
qasync loop; dialogs are never ``exec()``-ed inside a coroutine.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QSplitter,
    QToolBar,
    QWidget,
)

from ikgui.domain.errors import IkguiError, ProviderError
from ikgui.domain.events import Event, Kind
from ikgui.domain.sendlock import BusyError
from ikgui.domain.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.ui.bridge import SessionBridge
from ikgui.ui.conversation_pane import ConversationPane
from ikgui.ui.first_paint import FirstPaint
from ikgui.ui.panels import ContextDialog
from ikgui.ui.plain import line as safe_line
from ikgui.ui.plain import make_plain, window_title
from ikgui.ui.sidebar import ConversationSidebar
from ikgui.ui.unsaved import UnsavedIndicator
from ikgui.ui.window_actions import WindowActions
from ikgui.ui.working_prompt import WorkingPromptPanel

if TYPE_CHECKING:
    from ikgui.ui.welcome import WelcomePanel

POLL_MS = 1000
#: Conversations the sidebar reads before the first paint (a screenful; more on scrolling).
FIRST_ROWS = 40
DRAFT_MS = 500


@dataclass
class WindowServices:
    """What the composition root hands the window; the UI never builds providers."""

    session: Session
    keys: Any  # ikgui.keys.KeyStore
    refresh_models: Callable[[str], Awaitable[list[str]]]
    test_connection: Callable[[ProviderSettings, str | None], Awaitable[list[str]]]
    save_settings: Callable[[Settings], None]
    ui_state: QSettings
    problems: list[str] = field(default_factory=list)
    check_timeout: float = 4.0
    on_closed: Callable[[], None] | None = None
    #: Opens the read-only demo (None: no demo from this window).
    open_demo: Callable[[], Any] | None = None
    #: A read-only window (the demo): browse, search, read; nothing is written.
    read_only: bool = False


class MainWindow(QMainWindow):
    def __init__(self, services: WindowServices) -> None:
        super().__init__()
        self.services = services
        self.session = session = services.session
        self.store = session.store
        self.setObjectName("mainWindow")
        self.setWindowTitle("ikgui")
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self._last_seen_event: int | None = None
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(POLL_MS)
        self._poll_timer.timeout.connect(self.poll_external_changes)
        self._draft_timer = QTimer(self)
        self._draft_timer.setSingleShot(True)
        self._draft_timer.setInterval(DRAFT_MS)
        self._draft_timer.timeout.connect(self.save_draft)
        #: What the first paint does not need waits for it (the model check, ...).
        self.first_paint = FirstPaint(self)
        self._build()
        self.scrollback.first_screen_until(self.first_paint)
        self.bridge = SessionBridge(session, parent=self)
        self._connect()
        self.unsaved = UnsavedIndicator(self)
        self._restore_layout()

    # -- building ------------------------------------------------------------------
    def _build(self) -> None:
        toolbar = QToolBar("Conversation", self)
        toolbar.setObjectName("mainToolBar")
        toolbar.setAccessibleName("mainToolBar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(toolbar)
        self.toolbar_actions = WindowActions(toolbar, self.session, self)

        self.sidebar = ConversationSidebar(self.store, self, first_page=FIRST_ROWS)
        self.pane = pane = ConversationPane(self)
        self.scrollback, self.banner = pane.scrollback, pane.banner
        self.centre_stack, self.feedback, self.prompt = pane.stack, pane.feedback, pane.prompt
        self.send_button, self.stop_button = pane.send_button, pane.stop_button
        self.prompt.set_commands((c.name, c.description) for c in self.session.registry)
        self.working = WorkingPromptPanel(self)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
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

    def _connect(self) -> None:
        b, a = self.bridge, self.toolbar_actions
        b.event_appended.connect(self._on_event_appended)
        b.event_updated.connect(self._on_event_updated)
        b.deltas_arrived.connect(self.scrollback.append_text)
        b.conversation_switched.connect(self._on_switched)
        b.conversation_changed.connect(self._on_conversation_changed)
        b.stream_state_changed.connect(self._on_stream_state)
        b.activity.connect(self.sidebar.refresh_conversation)

        a["actionNew"].triggered.connect(lambda: self.run_line("/new"))
        a["actionMark"].triggered.connect(self.mark)
        a["actionRewind"].triggered.connect(lambda: self.run_line("/rewind"))
        a.rewind_menu.triggered.connect(lambda act: self.rewind_to(int(act.data())))
        a["actionFork"].triggered.connect(lambda: self.run_line("/fork"))
        a["actionClear"].triggered.connect(lambda: self.run_line("/clear"))
        a["actionStop"].triggered.connect(self.stop)
        a["actionRename"].triggered.connect(lambda: self.sidebar.start_rename(self.current_id))
        a["actionTags"].triggered.connect(lambda: self.sidebar.edit_tags(self.current_id))
        a["actionExport"].triggered.connect(lambda: self.export(self.current_id))
        a["actionDelete"].triggered.connect(lambda: self.trash(self.current_id))
        a["actionSettings"].triggered.connect(lambda: self.open_settings())
        a.model_selector.activated.connect(
            lambda i: self.run_line(f"/model {a.model_selector.itemData(i)}")
        )

        self.prompt.submitted.connect(self.run_line)
        self.prompt.stop_requested.connect(self.stop)
        self.prompt.textChanged.connect(self._draft_timer.start)
        self.send_button.clicked.connect(self.prompt.submit)
        self.stop_button.clicked.connect(self.stop)
        self.working.edited.connect(self._on_prompt_edited)
        self.working.commit_requested.connect(self.commit_prompt)
        self.working.show_context_requested.connect(self.show_context)
        self.banner.settings_requested.connect(lambda: self.open_settings("providers"))
        self.pane.setup_requested.connect(lambda: self.open_settings("providers"))
        self.pane.demo_requested.connect(self.open_demo)

        s = self.sidebar
        s.conversation_activated.connect(self.open_conversation)
        s.rename_requested.connect(lambda cid, t: self._guard(self.session.rename, cid, t))
        s.tags_requested.connect(lambda cid, tags: self._guard(self.session.set_tags_of, cid, tags))
        s.fork_requested.connect(self.fork_conversation)
        s.export_requested.connect(self.export)
        s.trash_requested.connect(self.trash)
        s.restore_requested.connect(lambda cid: self._guard(self.session.restore, cid))
        s.close_requested.connect(lambda cid: self.run_line(f"/kill {cid}"))

        v = self.scrollback
        v.fork_requested.connect(lambda eid: self._guard(self.session.fork, eid))
        v.edit_resend_requested.connect(self.edit_and_resend)
        v.retry_requested.connect(self.retry)

        find = QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self)
        find.activated.connect(self._focus_search)
        to_prompt = QShortcut(QKeySequence("Ctrl+K"), self)
        to_prompt.activated.connect(self.prompt.setFocus)

    @property
    def welcome(self) -> WelcomePanel:
        return self.pane.welcome

    def _focus_search(self) -> None:
        search = self.sidebar.findChild(QWidget, "conversationSearch")
        if search is not None:
            search.setFocus()

    # -- start-up --------------------------------------------------------------------
    def start(self) -> None:
        """Show the last open conversation and check the model server in the background."""
        last = str(self.services.ui_state.value("last_conversation", "", type=str))
        newest = self.store.last_conversation()
        opened = False
        for candidate in (last, newest.id if newest else None):
            if candidate and self.store.get_conversation(candidate) is not None:
                self.session.open(candidate)
                opened = True
                break
        if not opened:
            self.session.new_conversation(self.session.settings.default_agent)
            self._on_switched()
        for problem in self.services.problems:
            self.banner.show_message(f"config.toml: {problem} (defaults are used)")
        if self.read_only:
            self.prompt.setReadOnly(True)
            self.prompt.setPlaceholderText("This demo is read-only.")
            self.working.editor.setReadOnly(True)
            self.banner.show_message(
                "This is a demo, generated for you and thrown away when you close this "
                "window. It is read-only: browse, search, right-click, show the context."
            )
            self.banner.button.hide()
            return
        self._poll_timer.start()
        self.spawn(self.check_models(), "check-models")

    async def check_models(self) -> None:
        await self.first_paint.wait()
        name = self.session.provider
        try:
            models = await asyncio.wait_for(
                self.services.refresh_models(name), self.services.check_timeout
            )
        except ProviderError as exc:
            self.banner.show_message(
                f"{exc.message} Until a model server answers, ikgui can browse and search "
                "but not send; start one, or set up a provider in Settings."
            )
            self.toolbar_actions.set_models([], self.session.model)
            return
        except TimeoutError:
            self.banner.show_message(
                f"The model server for {name} did not answer within "
                f"{self.services.check_timeout:g} s. Check it is running, or pick "
                "another provider in Settings."
            )
            return
        self.toolbar_actions.set_models(
            models, self.session.model or (models[0] if models else None)
        )

    # -- tasks and feedback ------------------------------------------------------------
    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def show_feedback(self, text: str, error: bool = False) -> None:
        self.pane.show_feedback(text, error)
        if text:
            self.statusBar().showMessage(safe_line(text.splitlines()[0]), 8000)

    @property
    def read_only(self) -> bool:
        return self.services.read_only

    def _refuse_if_read_only(self) -> bool:
        if self.read_only:
            self.show_feedback(
                "The demo is read-only: open your own conversations to try this.", error=True
            )
        return self.read_only

    def open_demo(self) -> None:
        if self.services.open_demo is not None:
            self.demo_window = self.services.open_demo()

    def _guard(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a session call from a click; an error becomes one visible line."""
        if self._refuse_if_read_only():
            return None
        try:
            return fn(*args)
        except IkguiError as exc:
            self.show_feedback(exc.line, error=True)
            return None

    # -- running lines ---------------------------------------------------------------
    def run_line(self, line: str) -> asyncio.Task[Any]:
        """Send a message or run a slash command, as typed in the prompt editor."""
        self.show_feedback("")
        if self._refuse_if_read_only():
            return self.spawn(asyncio.sleep(0), "refused")
        return self.spawn(self._execute(line), f"line:{self.session.conversation.id}")

    def _position(self) -> tuple[str, int | None]:
        shown = self.session.state.scrollback
        return self.current_id, shown[-1].id if shown else None

    async def _execute(self, line: str) -> None:
        before = self._position()
        try:
            output = await self.session.execute(line)
        except ProviderError as exc:
            self.show_feedback(exc.line, error=True)  # also saved as an error event
            return
        except IkguiError as exc:
            self.show_feedback(exc.line, error=True)
            refused = isinstance(exc, BusyError) or self._position() == before
            if not self.prompt.toPlainText() and refused:
                self.prompt.setPlainText(line)  # nothing was recorded: keep the text
            return
        except asyncio.CancelledError:
            self.statusBar().showMessage("Stopped", 4000)
            return
        finally:
            self._refresh_chrome()
        if self.session.quit_requested:
            self.close()
            return
        if not output:
            return
        after = self._position()
        if after[0] != before[0]:  # switched (/new, /load, /fork, /kill): say where to
            self.statusBar().showMessage(safe_line(output.splitlines()[0]), 6000)
        elif after == before:  # nothing was recorded: the output is shown only here
            self.show_feedback(output)

    def mark(self) -> None:
        label = self.ask_text("Mark", "Label for this checkpoint (optional):", "")
        if label is not None:
            self.run_line(f"/mark {label}".rstrip())

    def rewind_to(self, mark_event_id: int) -> None:
        self._guard(self.session.rewind_to, mark_event_id)

    def stop(self) -> None:
        if self.session.stop():
            self.statusBar().showMessage("Stopping…", 2000)

    def commit_prompt(self) -> None:
        self._guard(self.session.commit_prompt)
        self.working.set_edited(self.session.prompt_edited)

    def _on_prompt_edited(self, text: str) -> None:
        self.session.stage_prompt(text)
        self.working.set_edited(self.session.prompt_edited)

    def show_context(self) -> None:
        dialog = ContextDialog(
            self.session.conversation.id,
            self.session.provider,
            self.session.model,
            self.session.context(),
            self,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.context_dialog = dialog

    def edit_and_resend(self, event_id: int, text: str) -> None:
        edited = self.ask_text("Edit and resend", "Send this instead (in a new branch):", text)
        if edited is None or not edited.strip():
            return
        if self._guard(self.session.fork, event_id - 1) is not None:
            self.run_line(edited)

    def retry(self, error_event_id: int) -> None:
        users = [
            e for e in self.session.state.context if e.kind == Kind.USER and e.id < error_event_id
        ]
        if users:
            self.run_line(users[-1].content)

    # -- conversations -----------------------------------------------------------------
    @property
    def current_id(self) -> str:
        return self.session.conversation.id

    def open_conversation(self, conv_id: str, event_id: object = None) -> None:
        self.save_draft()
        if self._guard(self.session.open, conv_id) is None:
            return
        if isinstance(event_id, int):  # a search hit: show the matching message
            self.scrollback.scroll_to_event(event_id)

    def fork_conversation(self, conv_id: str) -> None:
        if conv_id != self.current_id:
            self.open_conversation(conv_id)
        self.run_line("/fork")

    def export(self, conv_id: str) -> None:
        if conv_id != self.current_id:
            self.open_conversation(conv_id)
        path = self.ask_save_path(f"{conv_id}.json")
        if path:
            fmt = "md" if path.suffix.lower() in (".md", ".markdown") else "json"
            self.run_line(f"/export {fmt} {path}")

    def trash(self, conv_id: str) -> None:
        if self._guard(self.session.trash, conv_id) is None:
            return
        self.sidebar.reload()
        if conv_id == self.current_id:
            nxt = self.store.last_conversation()
            if nxt is not None:
                self.session.open(nxt.id)
            else:
                self.session.new_conversation(self.session.settings.default_agent)
        self.statusBar().showMessage(safe_line(f"Moved {conv_id} to the Trash"), 6000)

    # -- dialogs (tests replace these) ------------------------------------------------
    def ask_text(self, title: str, label: str, text: str) -> str | None:
        from PySide6.QtWidgets import QInputDialog

        value, ok = (
            QInputDialog.getMultiLineText(self, title, label, text)
            if "\n" in text
            else QInputDialog.getText(self, title, label, text=text)
        )
        return value if ok else None

    def ask_save_path(self, suggested: str) -> Path | None:
        from PySide6.QtWidgets import QFileDialog

        start = str(self.session.export_dir / suggested)
        name, _ = QFileDialog.getSaveFileName(
            self, "Export conversation", start, "JSON (*.json);;Markdown (*.md)"
        )
        return Path(name) if name else None

    def open_settings(self, page: str = "providers") -> Any:
        from ikgui.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(
            self.session.settings,
            self.services.keys,
            self.services.test_connection,
            self._save_settings,
            self,
            page=page,
            theme=self.session.settings.theme,
        )
        dialog.theme_changed.connect(self._apply_theme)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        self.settings_dialog = dialog
        return dialog

    def _save_settings(self, settings: Settings) -> None:
        self.services.save_settings(settings)
        self.session.settings = settings
        self._refresh_chrome()
        self.banner.hide()
        self.spawn(self.check_models(), "check-models")

    def _apply_theme(self, theme: str) -> None:
        from PySide6.QtWidgets import QApplication

        from ikgui.ui.style import apply_style

        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_style(app, theme)

    # -- reacting to the session -----------------------------------------------------
    def _on_switched(self) -> None:
        conv = self.session.conversation
        self.scrollback.show_events(self.session.state.scrollback)
        self.working.show_prompt(self.session.state.working_prompt)
        self.working.set_edited(False)
        draft = (
            conv.draft
            if self.session.saved
            else str(self.services.ui_state.value("draft_unsaved", "", type=str))
        )
        self.prompt.blockSignals(True)
        self.prompt.setPlainText(draft)
        self.prompt.blockSignals(False)
        if self.session.saved:
            self.sidebar.refresh_conversation(conv.id)  # a new fork: its row appears
        self.sidebar.set_current(conv.id if self.session.saved else None)
        self._last_seen_event = self._own_last_event()
        if self.session.saved:
            self.services.ui_state.setValue("last_conversation", conv.id)
        self._refresh_chrome()

    def _on_event_appended(self, event: Event) -> None:
        shown = self.session.state.scrollback
        if event.kind in (Kind.REWIND, Kind.CLEAR):
            self.scrollback.show_events(shown)
        elif shown and shown[-1].id == event.id:  # the fold showed it (a bad rewind: not)
            self.scrollback.append_event(event)
        self._last_seen_event = event.id
        self._refresh_chrome()

    def _on_event_updated(self, event: Event) -> None:
        self.scrollback.update_event(event)
        self._refresh_chrome()

    def _on_conversation_changed(self, conv_id: str) -> None:
        self.sidebar.refresh_conversation(conv_id)
        if conv_id == self.current_id:
            self.session.refresh_conversation()
            self._refresh_chrome()

    def _on_stream_state(self, conv_id: str, streaming: bool) -> None:
        self.sidebar.set_streaming(conv_id, streaming)
        self._refresh_chrome()

    def _first_run(self) -> bool:
        """Nothing stored yet and nothing on screen: show the welcome instead."""
        session = self.session
        if self.read_only or session.saved or session.state.scrollback:
            return False
        return not self.store.list_conversations(1) and not self.store.list_conversations(
            1, trashed=True
        )

    def _refresh_chrome(self) -> None:
        session, conv = self.session, self.session.conversation
        streaming = session.streaming
        self.pane.show_welcome(self._first_run())
        if not session.prompt_edited:  # the recorded prompt, unless the user is editing
            self.working.show_prompt(session.state.working_prompt)
            self.working.set_edited(False)
        self.toolbar_actions.update()
        self.pane.set_streaming(streaming)
        model = session.model or "default model"
        self.status_model.setText(safe_line(f"{session.provider} · {model}"))
        tokens = conv.tokens_input + conv.tokens_output
        self.status_usage.setText(
            f"{conv.tokens_input:,} in / {conv.tokens_output:,} out · ${conv.cost:.4f}"
            if tokens
            else "no tokens yet"
        )
        self.status_stream.setText("Streaming…" if streaming else "Ready")
        title = conv.title or ("New conversation" if not session.saved else conv.id)
        suffix = " demo (read-only)" if self.read_only else ""
        self.setWindowTitle(f"{window_title(title)} — ikgui{suffix}")
        if self.read_only:
            for action in self.toolbar_actions.actions.values():
                action.setEnabled(action.objectName() in ("actionExport",))
            self.toolbar_actions.model_selector.setEnabled(False)
            self.send_button.setEnabled(False)
        if self.toolbar_actions.current_model() != (session.model or ""):
            self.toolbar_actions.set_models(self.toolbar_actions.model_names(), session.model)

    # -- drafts and other processes ----------------------------------------------------
    def save_draft(self) -> None:
        text = self.prompt.toPlainText()
        if self.session.saved:
            if text != self.session.conversation.draft:
                self._guard(lambda: self.session.update_fields(draft=text))
        else:
            self.services.ui_state.setValue("draft_unsaved", text)

    def _own_last_event(self) -> int | None:
        return self.store.last_event_id(self.current_id) if self.session.saved else None

    def poll_external_changes(self) -> None:
        """Show changes made by ``ikgui run``/``ikgui conv`` in another process."""
        try:
            if not self.sidebar.poll():
                return
            if self.session.saved and not self.session.streaming:
                if self._own_last_event() != self._last_seen_event:
                    self.session.reload()
                else:
                    self.session.refresh_conversation()
                    self._refresh_chrome()
        except IkguiError as exc:
            self.statusBar().showMessage(safe_line(exc.line), 8000)

    # -- layout and shutdown -------------------------------------------------------------
    def _restore_layout(self) -> None:
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
        self._poll_timer.stop()
        with contextlib.suppress(IkguiError):
            self.session.commit_prompt()
        self.save_draft()
        for conv_id in list(self.session.streams):
            self.session.stop(conv_id)
        me = asyncio.current_task()
        pending = [t for t in self._tasks if not t.done() and t is not me]
        for task in pending:
            if not task.get_name().startswith("line:"):
                task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=5)
        await self.unsaved.shutdown()
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
