"""The one wiring module of the window: it builds the controllers the main window
delegates to, in the one order they need, hands each the narrow collaborators it uses
(the session, a command runner, a feedback sink, the draft keeper, the widgets it
drives) and connects the session's signals to them.

:class:`~ikgui.ui.window.main_window.MainWindow` only lays out its widgets and
delegates; nothing but this module and the window's own builds or names it (a test
checks the imports)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from ikgui.domain.events import Event, Kind
from ikgui.domain.session.comparison import Comparison
from ikgui.domain.session.session import Session
from ikgui.ui.bridge import SessionBridge
from ikgui.ui.closed_strip import ClosedPresenter, Controls
from ikgui.ui.prompt.panel_controller import PromptParts, WorkingPromptController
from ikgui.ui.unsaved import UnsavedIndicator
from ikgui.ui.window.actions import TextZoom
from ikgui.ui.window.announce import Announcer
from ikgui.ui.window.attaching import ATTACH_COMMAND, DraftAttachments, DropTarget
from ikgui.ui.window.chrome import ChromeParts, ChromePresenter, WindowReading
from ikgui.ui.window.collaborators import Feedback
from ikgui.ui.window.commands import WindowCommands
from ikgui.ui.window.dialogs import DialogParts, WindowDialogs
from ikgui.ui.window.drafts import PromptDrafts
from ikgui.ui.window.keyboard import Panes, WindowKeys
from ikgui.ui.window.main_window import MainWindow
from ikgui.ui.window.new_conversation import NewConversationPresenter
from ikgui.ui.window.policy import PolicyParts, WritablePolicy, policy_for
from ikgui.ui.window.responsive import Layout, Responsive
from ikgui.ui.window.runner import CommandRunner
from ikgui.ui.window.services import WindowServices
from ikgui.ui.window.startup import StartParts, TailFirstStart
from ikgui.ui.window.state import Notes
from ikgui.ui.window.trash import empty_trash
from ikgui.ui.window.watcher import ExternalChanges

#: The window as the composition root knows it (built here).
Window = MainWindow

__all__ = ["Window", "WindowServices", "assemble", "open_window"]


def open_window(services: WindowServices) -> Window:
    """The main window over ``services``, assembled (not started nor shown yet)."""
    window = MainWindow(services)
    assemble(window)
    return window


def assemble(window: MainWindow) -> None:
    """Build ``window``'s controllers and connect them (the order matters: the chrome's
    strip and New conversation row run commands and keep the prompt's draft, the prompt
    panel keeps its own with the draft keeper; the session's signals are connected once
    every controller exists)."""
    session = window.session
    window.feedback_sink = feedback = Feedback(window.show_feedback, window.statusBar())
    window.policy = policy = build_policy(window, feedback)
    window.bridge = SessionBridge(session, parent=window)
    window.runner = runner = CommandRunner(
        session, feedback, window.spawn, window.prompt, policy.refuses
    )
    window.commands = WindowCommands(
        session,
        runner,
        feedback,
        window.sidebar,
        window.scrollback,
        window.toolbar_actions.model_selector,
        window,
        window,
    )
    window.drafts = drafts = PromptDrafts(
        session,
        window.prompt,
        window.services.ui_state,
        lambda: writable(window),
        window.read_only,
        window,
    )
    window.watcher = ExternalChanges(
        session, window.sidebar, window.scrollback, drafts.keeper, feedback, window
    )
    window.prompt_panel = WorkingPromptController(
        PromptParts(window.working, window.scrollback, window.splitter, window.send_button),
        session,
        drafts.keeper,
        runner,
        feedback,
        window.services.ui_state,
        window.read_only,
        window,
    )
    window.unsaved = UnsavedIndicator(session, feedback, window)
    connect_attachments(window)
    window.chrome = build_chrome(window, runner)
    window.dialogs = build_dialogs(window)
    window.scrollback.text_size_changed.connect(window.working.set_text_size)
    window.text_zoom = TextZoom(
        session, window.scrollback, window.services.save_settings, feedback, window
    )
    window.startup = build_start(window, feedback)
    connect(window)
    connect_approvals(window)
    connect_writes(window)
    connect_compare(window)
    window.restore_layout()


def connect_attachments(window: MainWindow) -> None:
    """Files attached to the draft (SPEC §13): the Attach button, drops anywhere on the
    window, pastes into the editor, ``/attach PATH``; kept and shown with the draft."""
    pane, prompt = window.pane, window.prompt
    window.attachments = files = DraftAttachments(
        window.session,
        window.drafts.keeper,
        pane.attachment_chips,
        window.feedback_sink,
        window.spawn,
        window.services,
        window,
    )
    files.refuses = window.policy.refuses
    window.drafts.files_shown = files.shown
    window.runner.line_work = files.line_work
    prompt.take_files = files.take_mime
    prompt.sends_files = lambda: bool(files.files)
    prompt.set_commands(
        [*((c.name, c.description, c.usage) for c in window.session.registry), ATTACH_COMMAND]
    )
    pane.attach_button.clicked.connect(lambda: window.ask_open_paths(files.attach_paths))
    drops = DropTarget(files, window)
    for target in (window, window.scrollback.viewport(), prompt.viewport()):
        target.setAcceptDrops(True)
        target.installEventFilter(drops)
    follow_enabled(prompt, pane.attach_button)
    shown = window.scrollback.files  # (the messages' files: thumbnails, Save As, Open)
    shown.reader, shown.spawn = window.store.read_files, window.spawn
    shown.say = window.feedback_sink.show


def follow_enabled(source: QWidget, follower: QWidget) -> None:
    """``follower`` enabled exactly when ``source`` is (the Attach button follows the
    editor: the demo, a closed branch and the Trash take no files either)."""

    class Follow(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.EnabledChange:
                follower.setEnabled(source.isEnabled())
            return False

    source.installEventFilter(Follow(follower))
    follower.setEnabled(source.isEnabled())


def build_policy(window: MainWindow, feedback: Feedback) -> WritablePolicy:
    """The policy that shows the session's read-only answer, over the widgets it restricts."""
    parts = PolicyParts(
        window.session,
        feedback,
        window.prompt,
        window.working.editor,
        window.toolbar_actions,
        window.send_button,
        watch=lambda: window.watcher.start_polling(),
        check_models=lambda: check_models(window),
    )
    return policy_for(window.session.read_only, parts)


def build_dialogs(window: MainWindow) -> WindowDialogs:
    """Settings, the context viewer and the Branches view, over what they read and tell."""
    return WindowDialogs(
        DialogParts(
            window.session,
            window.services,
            window,
            window.model_lists,
            window.scrollback,
            redraw=window.chrome.refresh,
            settings_saved=lambda: settings_saved(window),
            open_conversation=window.open_conversation,
        )
    )


def build_start(window: MainWindow, feedback: Feedback) -> TailFirstStart:
    """The tail-first start, over what shows its preview (told when the session replays)."""
    start = TailFirstStart(
        StartParts(
            window.session,
            window.first_paint,
            window.scrollback,
            window.sidebar,
            window.prompt_panel,
            window.pane,
            window.toolbar_actions,
            window.policy,
            feedback,
            window.services.ui_state,
            (window.status_model, window.status_usage, window.status_stream),
            set_title=window.setWindowTitle,
            show_draft=window.drafts.show_draft,
            mark_seen=window.watcher.mark_seen,
            redraw=window.chrome.refresh,
        )
    )
    window.bridge.state_replayed.connect(start.replayed)
    return start


def connect(window: MainWindow) -> None:
    """The controllers to each other, and the session's facts to the window."""
    bridge, chrome, runner, commands = window.bridge, window.chrome, window.runner, window.commands
    bridge.fact.connect(chrome.on_fact)
    window.model_lists.on_change = chrome.refresh  # (a list arrived)
    window.watcher.on_change = chrome.refresh  # (another process's change taken in)
    window.working.show_context_requested.connect(window.show_context)
    commands.save_draft = window.drafts.save_draft
    commands.show_branches = window.dialogs.show_branches
    runner.after = chrome.refresh
    runner.retire_banner = lambda: chrome.note(lambda notes: notes.retired("server"))
    window.banner.dismissed.connect(chrome.dismiss_banner)
    runner.close = window.close

    bridge.event_appended.connect(window.on_event_appended)
    bridge.transcript_changed.connect(window.scrollback.apply_change)
    bridge.event_updated.connect(window.on_event_updated)
    bridge.deltas_arrived.connect(window.scrollback.append_text)
    bridge.conversation_switched.connect(window.on_switched)
    bridge.conversation_changed.connect(window.on_conversation_changed)
    bridge.stream_state_changed.connect(window.on_stream_state)
    bridge.activity.connect(window.sidebar.refresh_conversation)
    connect_commands(window, commands, runner)
    panes = Panes(
        window,
        window.toolbar_actions,
        window.sidebar,
        chrome.responsive.sidebar_toggle,
        window.centre_stack,
        window.prompt,
        window.working,
        window.scrollback,
    )
    # F6, Ctrl+Shift+M, Ctrl+/, Ctrl+F, Ctrl+K...
    window.keys = WindowKeys(
        panes, window.session, window.text_zoom.actions.values(), window.show_context
    )


def connect_approvals(window: MainWindow) -> None:
    """Tool calls are asked about on cards at their items in the transcript (SPEC §12):
    the tool loop's approver, announced, and "Waiting for your approval" in the status bar."""
    approvals, chrome = window.pane.approvals, window.chrome
    approvals.current = lambda: window.current_id
    approvals.say = lambda text, card: chrome.announcer.say(text, card, urgent=True)
    chrome.reading.approvals = lambda: bool(approvals.waiting(window.current_id))
    approvals.changed.connect(chrome.refresh)
    window.bridge.conversation_switched.connect(lambda *_: approvals.refresh())
    window.scrollback.set_interrupted(lambda event: unanswered(window.session, event))
    tools = window.session.tools
    if tools is not None:
        tools.approver = approvals.ask
        tools.questioner = approvals.answer  # a server's question: a form (tool_form.py)


def unanswered(session: Session, call: Event) -> bool:
    """Whether ``call`` has no result and no loop running that could still give it one
    (ikgui was stopped or closed first: it is never run again by itself)."""
    if session.streaming:
        return False
    call_id = str(call.data.get("id"))
    return not any(
        e.kind == Kind.TOOL_RESULT and str(e.data.get("tool_call_id")) == call_id
        for e in session.state.scrollback
    )


def connect_compare(window: MainWindow) -> None:
    """Models compared side by side (SPEC §14): the toolbar's Compare asks which models
    the next message goes to; a comparison shows its columns in the centre while its
    conversation is open; "Continue with this one" opens that answer's branch."""
    session, pane = window.session, window.pane
    hidden: set[int] = set()  # comparisons whose columns the user put away
    wired: list[object] = []

    def started(comparison: Comparison) -> None:
        view = pane.compare_view
        if not wired:  # (the view is built on first use)
            view.closed.connect(lambda: hidden.add(id(session.comparison)))
            wired.append(view)
        view.priced = lambda model: model in session.settings.prices
        view.show_comparison(comparison)
        pane.show_compare(True)
        window.sidebar.refresh_conversation(comparison.parent_id)  # its new branches
        window.sidebar.show_forks(comparison.parent_id)
        window.chrome.refresh()  # Stop, not Send: the conversation compared from is busy

    def switched() -> None:
        comparison = session.comparison
        here = comparison is not None and comparison.parent_id == window.current_id
        pane.show_compare(here and id(comparison) not in hidden)

    def keep(branch_id: str) -> None:
        if session.comparison is not None:
            hidden.add(id(session.comparison))
        pane.show_compare(False)
        window.commands.open_conversation(branch_id)

    session.comparison_watchers.append(started)
    window.bridge.conversation_switched.connect(switched)
    pane.continue_requested.connect(keep)
    window.toolbar_actions["actionCompare"].triggered.connect(lambda: pick_models(window))


def pick_models(window: MainWindow) -> None:
    """The toolbar's Compare: the models of every configured provider, to check."""
    from ikgui.domain.state.catalog import model_groups
    from ikgui.ui.comparison import ComparePicker

    session = window.session
    groups = model_groups(
        session.settings.providers, window.model_lists.listings, session.provider, session.model
    )
    chosen = session.compare_next
    here = {f"{session.provider}/{session.model}"} if session.model else set()
    checked = {c.label for c in chosen} if chosen else here
    picker = ComparePicker(groups, checked, window)
    picker.chosen.connect(lambda models: window.runner.run("compare", models=models))
    picker.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    picker.open()


def connect_writes(window: MainWindow) -> None:
    """The changes waiting to be written: the indicator, its retries, the replay after."""
    bridge, unsaved, chrome = window.bridge, window.unsaved, window.chrome
    bridge.writes_changed.connect(chrome.follow)  # (the chrome draws the indicator)
    unsaved.redraw = lambda: chrome.redraw(frozenset({"writes"}))
    window.watcher.retry_writes = unsaved.retry_now
    bridge.state_replaced.connect(window.on_state_replaced)
    bridge.send_waiting.connect(unsaved.send_waiting)


def build_chrome(window: MainWindow, runner: CommandRunner) -> ChromePresenter:
    """The chrome over the window's widgets, with the presenters of its areas."""
    session, read_only = window.session, window.read_only
    controls = Controls(
        window.prompt,
        window.working.editor,
        window.send_button,
        window.toolbar_actions.model_selector,
    )
    strip = window.pane.closed_strip
    new = NewConversationPresenter(
        session,
        window.sidebar,
        window.scrollback.viewport(),
        window.prompt,
        window.services.ui_state,
        runner,
        window.drafts.save_draft,
        read_only,
    )
    parts = ChromeParts(
        pane=window.pane,
        actions=window.toolbar_actions,
        prompt_panel=window.prompt_panel,
        model_lists=window.model_lists,
        status_model=window.status_model,
        status_usage=window.status_usage,
        status_stream=window.status_stream,
        set_title=lambda title: window.setWindowTitle(title),
        restrict=window.policy.restrict,
        closed=ClosedPresenter(strip, session, controls, runner, read_only),
        new=new,
        announcer=Announcer(session, window.scrollback, window.status_stream),
        show_writes=window.unsaved.show_writes,
        responsive=Responsive(
            Layout(
                window,
                window.toolbar_actions,
                window.sidebar,
                window.splitter,
                window.working,
                window.prompt,
            )
        ),
    )
    notes = Notes(problems=tuple(window.services.problems))
    reading = WindowReading(session, window.policy, window.model_lists, new, notes)
    return ChromePresenter(parts, reading)


def connect_commands(window: MainWindow, commands: WindowCommands, runner: CommandRunner) -> None:
    """Connect the toolbar, the prompt, the sidebar and the transcript to commands."""
    w, a, s, c = window, window.toolbar_actions, window.session, commands
    a["actionNew"].triggered.connect(c.new_in_folder)
    a.new_menu.triggered.connect(lambda act: runner.run("new", agent=act.data() or None))
    a["actionMark"].triggered.connect(c.mark)
    a["actionRewind"].triggered.connect(lambda: runner.run("rewind"))
    a.rewind_menu.triggered.connect(lambda act: c.rewind_to(int(act.data())))
    a["actionFork"].triggered.connect(lambda: runner.run("fork"))
    a["actionBranches"].triggered.connect(lambda: w.dialogs.show_branches())
    a["actionClear"].triggered.connect(lambda: runner.run("clear"))
    a["actionStop"].triggered.connect(c.stop)
    a["actionRename"].triggered.connect(lambda: w.sidebar.start_rename(w.current_id))
    a["actionTags"].triggered.connect(lambda: c.selection.edit_tags(w.current_id))
    a["actionExport"].triggered.connect(lambda: c.export(w.current_id))
    a["actionDelete"].triggered.connect(lambda: c.selection.trash(w.current_id))
    a["actionSettings"].triggered.connect(lambda: w.open_settings())
    a.model_selector.activated.connect(c.choose_model)
    a.tools.menu.triggered.connect(lambda act: switch_tools(w, runner, act))

    w.prompt.submitted.connect(runner.run_line)
    w.prompt.stop_requested.connect(c.stop)
    w.send_button.clicked.connect(w.prompt.submit)
    w.stop_button.clicked.connect(c.stop)
    w.banner.settings_requested.connect(lambda: w.open_settings("providers"))
    w.pane.setup_requested.connect(lambda: w.open_settings("providers"))
    w.pane.demo_requested.connect(w.open_demo)
    w.pane.title_header.rename_requested.connect(
        lambda title: runner.guard(s.rename, w.current_id, title)
    )

    bar = w.sidebar
    bar.conversation_activated.connect(c.open_conversation)
    bar.rename_requested.connect(lambda cid, t: runner.guard(s.rename, cid, t))
    bar.tags_requested.connect(c.retag)
    bar.fork_requested.connect(c.fork_conversation)
    bar.export_requested.connect(c.export)
    bar.trash_requested.connect(c.trash)
    bar.restore_requested.connect(lambda ids: runner.run("restore", conversations=list(ids)))
    bar.empty_trash_requested.connect(lambda: empty_trash(s, runner, bar, w.feedback_sink))
    bar.close_requested.connect(lambda cid: runner.run("kill", ref=cid))
    c.selection.connect()
    c.selection.read_file = lambda path: w.services.read_file(path, s.settings.attachment_mb)
    bar.reopen_requested.connect(lambda cid: runner.run("reopen", ref=cid))

    v = w.scrollback
    v.fork_requested.connect(lambda eid: runner.guard(s.fork, eid))
    v.edit_resend_requested.connect(c.edit_and_resend)
    v.retry_requested.connect(runner.retry)
    v.alternatives_source = s.alternatives
    v.alternative_requested.connect(lambda alts, i: runner.guard(s.switch_alternative, alts, i))
    v.settings_requested.connect(lambda page: w.open_settings(page or "providers"))
    v.conversation_link.connect(c.follow_link)
    v.set_titles(c.title_of)


def switch_tools(window: MainWindow, runner: CommandRunner, item: QAction) -> None:
    """A Tools menu item: ``/tools on|off NAME`` (the check follows once it is recorded:
    the window state redraws it), or Settings → Tools."""
    menu = window.toolbar_actions.tools
    server = menu.server_of(item)
    if server is None:
        window.open_settings("tools")
        return
    wanted = item.isChecked()  # (Qt has toggled it already)
    item.setChecked(not wanted)
    runner.run("tools", action="on" if wanted else "off", name=server)


def check_models(window: MainWindow) -> None:
    """Ask the model servers for their models, in the background."""
    window.spawn(window.check_models(), "check-models")


def settings_saved(window: MainWindow) -> None:
    """New settings: the start-up banners step aside and the servers are asked again."""
    window.chrome.note(Notes.settings_saved)
    check_models(window)


def writable(window: MainWindow) -> bool:
    """Whether drafts are written (not in the demo, nor to a store opened read-only)."""
    return not (window.read_only or getattr(window.store, "read_only", None))
