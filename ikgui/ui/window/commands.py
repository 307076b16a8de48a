"""What the window's widgets ask for: the toolbar's actions, the sidebar's and the
transcript's context menus, the prompt and the working-prompt panel, connected to the
commands they run through the command runner (:mod:`ikgui.ui.window.runner`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.errors import IkguiError
from ikgui.ui.plain import line as safe_line
from ikgui.ui.window.export_file import file_name
from ikgui.ui.window.selection_commands import SelectionCommands
from ikgui.ui.window.trash import empty_trash

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow
    from ikgui.ui.window.runner import CommandRunner


class WindowCommands:
    def __init__(self, window: MainWindow, runner: CommandRunner) -> None:
        self.window = window
        self.session = window.session
        self.runner = runner
        self.selection = SelectionCommands(self)  # several rows; tags across conversations

    def connect(self) -> None:
        """Connect the toolbar, the prompt, the sidebar and the transcript to commands."""
        w, a, s = self.window, self.window.toolbar_actions, self.session
        runner = self.runner
        a["actionNew"].triggered.connect(lambda: runner.run("new", agent=s.settings.default_agent))
        a.new_menu.triggered.connect(lambda act: runner.run("new", agent=act.data() or None))
        a["actionMark"].triggered.connect(self.mark)
        a["actionRewind"].triggered.connect(lambda: runner.run("rewind"))
        a.rewind_menu.triggered.connect(lambda act: self.rewind_to(int(act.data())))
        a["actionFork"].triggered.connect(lambda: runner.run("fork"))
        a["actionBranches"].triggered.connect(lambda: w.dialogs.show_branches())
        a["actionClear"].triggered.connect(lambda: runner.run("clear"))
        a["actionStop"].triggered.connect(self.stop)
        a["actionRename"].triggered.connect(lambda: w.sidebar.start_rename(w.current_id))
        a["actionTags"].triggered.connect(lambda: self.selection.edit_tags(w.current_id))
        a["actionExport"].triggered.connect(lambda: self.export(w.current_id))
        a["actionDelete"].triggered.connect(lambda: self.selection.trash(w.current_id))
        a["actionSettings"].triggered.connect(lambda: w.open_settings())
        a.model_selector.activated.connect(self.choose_model)

        w.prompt.submitted.connect(runner.run_line)
        w.prompt.stop_requested.connect(self.stop)
        w.send_button.clicked.connect(w.prompt.submit)
        w.stop_button.clicked.connect(self.stop)
        w.banner.settings_requested.connect(lambda: w.open_settings("providers"))
        w.pane.setup_requested.connect(lambda: w.open_settings("providers"))
        w.pane.demo_requested.connect(w.open_demo)
        w.pane.title_header.rename_requested.connect(
            lambda title: runner.guard(s.rename, w.current_id, title)
        )

        bar = w.sidebar
        bar.conversation_activated.connect(self.open_conversation)
        bar.rename_requested.connect(lambda cid, t: runner.guard(s.rename, cid, t))
        bar.tags_requested.connect(self.retag)
        bar.fork_requested.connect(self.fork_conversation)
        bar.export_requested.connect(self.export)
        bar.trash_requested.connect(self.trash)
        bar.restore_requested.connect(lambda ids: runner.run("restore", conversations=list(ids)))
        bar.empty_trash_requested.connect(lambda: empty_trash(s, runner, bar, w.feedback_sink))
        bar.close_requested.connect(lambda cid: runner.run("kill", ref=cid))
        self.selection.connect()
        bar.reopen_requested.connect(lambda cid: runner.run("reopen", ref=cid))

        v = w.scrollback
        v.fork_requested.connect(lambda eid: runner.guard(s.fork, eid))
        v.edit_resend_requested.connect(self.edit_and_resend)
        v.retry_requested.connect(runner.retry)
        v.settings_requested.connect(lambda page: w.open_settings(page or "providers"))
        v.conversation_link.connect(self.follow_link)
        v.set_titles(self.title_of)

    def title_of(self, conv_id: str) -> str | None:
        """A conversation's title for a notice (``None``: gone, or the store cannot say,
        e.g. closed after the window shut down: the notice shows the id)."""
        try:
            conv = self.session.store.get_conversation(conv_id)
        except IkguiError:
            return None
        return conv.title if conv is not None else None

    def choose_model(self, row: int) -> None:
        """The model selector's choice: this conversation moves to that provider and
        model (``/model provider/model``, run with values)."""
        choice = self.window.toolbar_actions.model_selector.choice(row)
        if choice is None:
            return
        provider, model = choice
        if (provider, model) != (self.session.provider, self.session.model):
            self.runner.run("model", name=model, provider=provider)

    def mark(self) -> None:
        label = self.window.ask_text("Mark", "Label for this checkpoint (optional):", "")
        if label is not None:
            self.runner.run("mark", label=label.strip() or None)

    def rewind_to(self, mark_event_id: int) -> None:
        self.runner.run("rewind", mark=mark_event_id)

    def stop(self) -> None:
        if self.session.stop():
            self.window.statusBar().showMessage("Stopping…", 2000)

    def edit_and_resend(self, event_id: int, edited: str) -> None:
        """The transcript's inline editor sent ``edited`` for the message ``event_id``:
        fork just before that message and send the text (as text, never parsed)."""
        if not edited.strip():
            return
        if self.runner.guard(self.session.fork, event_id - 1) is not None:
            self.runner.resend(edited)

    def retag(self, conv_id: str, tags: list[str]) -> None:
        """The tag editor's OK: apply what the user added and removed to the tags as
        stored now, atomically, so a tag another program added meanwhile is kept."""
        before = self.window.sidebar.tags_shown.pop(conv_id, None)
        if before is None:  # not from the tag editor: replace what is stored
            stored = self.window.store.get_conversation(conv_id)
            before = stored.tags if stored else ()
        after = {tag.strip().lstrip("#").lower() for tag in tags}
        changes = [f"+{t}" for t in sorted(after - set(before))]
        changes += [f"-{t}" for t in sorted(set(before) - after)]
        if changes:
            self.runner.guard(self.session.retag_of, conv_id, changes)

    # -- conversations -----------------------------------------------------------------
    def open_conversation(self, conv_id: str, event_id: object = None) -> None:
        self.window.drafts.save_draft()
        if self.runner.guard(self.session.open, conv_id) is None:
            return
        if isinstance(event_id, int):  # a search hit: show it (its group expanded)
            self.window.scrollback.scroll_to_event(event_id)

    def follow_link(self, scheme: str, conv_id: str) -> None:
        """A fork or close notice's link: open that conversation, or its Branches view."""
        from ikgui.ui.transcript.branch_notices import BRANCHES_SCHEME

        if scheme == BRANCHES_SCHEME:
            self.window.dialogs.show_branches(conv_id)
        else:
            self.open_conversation(conv_id)

    def fork_conversation(self, conv_id: str) -> None:
        if conv_id != self.window.current_id:
            self.open_conversation(conv_id)
        self.runner.run("fork")

    def export(self, conv_id: str) -> None:
        if conv_id != self.window.current_id:
            self.open_conversation(conv_id)
        conv = self.window.store.get_conversation(conv_id)
        path = self.window.ask_save_path(file_name(conv.title or "" if conv else "", conv_id))
        if path:
            fmt = "md" if path.suffix.lower() in (".md", ".markdown") else "json"
            self.runner.run("export", fmt=fmt, path=path)

    def trash(self, conv_id: str) -> None:
        window, session = self.window, self.session
        if self.runner.guard(session.trash, conv_id) is None:
            return
        window.sidebar.reload()
        if conv_id == window.current_id:
            nxt = window.store.last_conversation()
            if nxt is not None:
                session.open(nxt.id)
            else:
                session.new_conversation(session.settings.default_agent)
        window.statusBar().showMessage(safe_line(f"Moved {conv_id} to the Trash"), 6000)
