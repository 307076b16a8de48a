"""What the window's widgets ask for, run against the session: the toolbar's actions, the
sidebar's and the transcript's context menus, the prompt and the working-prompt panel.

Everything goes through the session's command registry: lines typed in the prompt
editor are parsed there, while actions, menus and dialogs run commands with values
(``session.run(name, **arguments)``), never composed slash lines; a stored message is
sent again as text (``session.resend``), never parsed. An error becomes one visible
line, never a traceback. Work that waits runs as a named task
on the window (:meth:`MainWindow.spawn`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import IkguiError, ProviderError
from ikgui.domain.events import Kind
from ikgui.domain.session.sendlock import BusyError
from ikgui.ui.plain import line as safe_line
from ikgui.ui.window.export_file import export_format, file_name
from ikgui.ui.window.selection_commands import SelectionCommands
from ikgui.ui.window.trash import empty_trash

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow


class WindowCommands:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.session = window.session
        self.selection = SelectionCommands(self)  # several rows; tags across conversations

    def connect(self) -> None:
        """Connect the toolbar, the prompt, the sidebar and the transcript to commands."""
        w, a, s = self.window, self.window.toolbar_actions, self.session
        a["actionNew"].triggered.connect(lambda: self.run("new", agent=s.settings.default_agent))
        a.new_menu.triggered.connect(lambda act: self.run("new", agent=act.data() or None))
        a["actionMark"].triggered.connect(self.mark)
        a["actionRewind"].triggered.connect(lambda: self.run("rewind"))
        a.rewind_menu.triggered.connect(lambda act: self.rewind_to(int(act.data())))
        a["actionFork"].triggered.connect(lambda: self.run("fork"))
        a["actionBranches"].triggered.connect(lambda: w.dialogs.show_branches())
        a["actionClear"].triggered.connect(lambda: self.run("clear"))
        a["actionStop"].triggered.connect(self.stop)
        a["actionRename"].triggered.connect(lambda: w.sidebar.start_rename(w.current_id))
        a["actionTags"].triggered.connect(lambda: self.selection.edit_tags(w.current_id))
        a["actionExport"].triggered.connect(lambda: self.export(w.current_id))
        a["actionDelete"].triggered.connect(lambda: self.selection.trash(w.current_id))
        a["actionSettings"].triggered.connect(lambda: w.open_settings())
        a.model_selector.activated.connect(self.choose_model)

        w.prompt.submitted.connect(self.run_line)
        w.prompt.stop_requested.connect(self.stop)
        w.send_button.clicked.connect(w.prompt.submit)
        w.stop_button.clicked.connect(self.stop)
        w.banner.settings_requested.connect(lambda: w.open_settings("providers"))
        w.pane.setup_requested.connect(lambda: w.open_settings("providers"))
        w.pane.demo_requested.connect(w.open_demo)
        w.pane.title_header.rename_requested.connect(
            lambda title: self.guard(s.rename, w.current_id, title)
        )

        bar = w.sidebar
        bar.conversation_activated.connect(self.open_conversation)
        bar.rename_requested.connect(lambda cid, t: self.guard(s.rename, cid, t))
        bar.tags_requested.connect(self.retag)
        bar.fork_requested.connect(self.fork_conversation)
        bar.export_requested.connect(self.export)
        bar.trash_requested.connect(self.trash)
        bar.restore_requested.connect(lambda ids: self.run("restore", conversations=list(ids)))
        bar.empty_trash_requested.connect(lambda: empty_trash(w))
        bar.close_requested.connect(lambda cid: self.run("kill", ref=cid))
        self.selection.connect()
        bar.reopen_requested.connect(lambda cid: self.run("reopen", ref=cid))

        v = w.scrollback
        v.fork_requested.connect(lambda eid: self.guard(s.fork, eid))
        v.edit_resend_requested.connect(self.edit_and_resend)
        v.retry_requested.connect(self.retry)
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

    def guard(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a session call from a click; an error becomes one visible line."""
        if self.window.policy.refuses(self.window):
            return None
        try:
            return fn(*args)
        except IkguiError as exc:
            self.window.show_feedback(exc.line, error=True)
            return None

    # -- running lines and commands ----------------------------------------------------
    def run_line(self, line: str) -> asyncio.Task[Any]:
        """Send a message or run a slash command, as typed in the prompt editor."""
        return self._spawn(lambda: self.session.execute(line), typed=line)

    def run(self, name: str, /, **arguments: Any) -> asyncio.Task[Any]:
        """Run the command ``name`` with values (a toolbar action, a menu, a dialog)."""
        return self._spawn(lambda: self.session.run(name, **arguments))

    def resend(self, text: str) -> asyncio.Task[Any]:
        """Send a stored message's text again as it is (Retry, "edit and resend")."""
        return self._spawn(lambda: self._sent(text))

    async def _sent(self, text: str) -> str:
        await self.session.resend(text)
        return ""

    def _spawn(
        self, work: Callable[[], Awaitable[str]], typed: str | None = None
    ) -> asyncio.Task[Any]:
        window = self.window
        window.show_feedback("")
        if window.policy.refuses(window):
            return window.spawn(asyncio.sleep(0), "refused")
        return window.spawn(self._perform(work, typed), f"line:{self.session.conversation.id}")

    def _position(self) -> tuple[str, int | None]:
        shown = self.session.state.scrollback
        return self.window.current_id, shown[-1].id if shown else None

    async def _perform(self, work: Callable[[], Awaitable[str]], typed: str | None) -> None:
        """Run ``work``; ``typed`` is the prompt editor's text, put back if nothing was
        recorded (an error, a refusal)."""
        window = self.window
        before = self._position()
        try:
            output = await work()
        except ProviderError as exc:
            self._failed(exc, before)
            return
        except IkguiError as exc:
            window.show_feedback(exc.line, error=True)
            refused = isinstance(exc, BusyError) or self._position() == before
            if typed is not None and not window.prompt.toPlainText() and refused:
                window.prompt.setPlainText(typed)  # nothing was recorded: keep the text
            return
        except asyncio.CancelledError:
            window.statusBar().showMessage("Stopped", 4000)
            return
        finally:
            window.chrome.refresh()
        if self.session.quit_requested:
            window.close()
            return
        if not output:
            return
        after = self._position()
        if after[0] != before[0]:  # switched (/new, /load, /fork, /kill): say where to
            window.statusBar().showMessage(safe_line(output.splitlines()[0]), 6000)
        elif after == before:  # nothing was recorded: the output is shown only here
            window.show_feedback(output)

    def _failed(self, exc: ProviderError, before: tuple[str, int | None]) -> None:
        """A provider failure is said once, in the window's words: by its error card when
        one was recorded (the start-up banner about the server steps aside, the status
        bar only says "Failed"), else (a command that asked a server) by the feedback line."""
        self.window.pane.retire_banner("server")
        shown = self.session.state.scrollback
        carded = self._position() != before and shown and shown[-1].kind == Kind.ERROR
        if not carded:
            self.window.show_feedback(exc.window_text, error=True)

    def choose_model(self, row: int) -> None:
        """The model selector's choice: this conversation moves to that provider and
        model (``/model provider/model``, run with values)."""
        choice = self.window.toolbar_actions.model_selector.choice(row)
        if choice is None:
            return
        provider, model = choice
        if (provider, model) != (self.session.provider, self.session.model):
            self.run("model", name=model, provider=provider)

    def mark(self) -> None:
        self.window.ask_text(
            "Mark",
            "Label for this checkpoint (optional):",
            "",
            lambda label: self.run("mark", label=label.strip() or None),
        )

    def rewind_to(self, mark_event_id: int) -> None:
        self.run("rewind", mark=mark_event_id)

    def stop(self) -> None:
        if self.session.stop():
            self.window.statusBar().showMessage("Stopping…", 2000)

    def edit_and_resend(self, event_id: int, edited: str) -> None:
        """The transcript's inline editor sent ``edited`` for the message ``event_id``:
        fork just before that message and send the text (as text, never parsed)."""
        if not edited.strip():
            return
        if self.guard(self.session.fork, event_id - 1) is not None:
            self.resend(edited)

    def retry(self, event_id: int) -> asyncio.Task[Any]:
        """Retry a reply or an error: the last exchange is answered again in place (the
        failed attempt stays, collapsed), an earlier one in a new branch; the message is
        never sent twice nor parsed again (``Session.retry``)."""
        return self._spawn(lambda: self._retried(event_id))

    async def _retried(self, event_id: int) -> str:
        await self.session.retry(event_id)
        return ""

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
            self.guard(self.session.retag_of, conv_id, changes)

    # -- conversations -----------------------------------------------------------------
    def open_conversation(self, conv_id: str, event_id: object = None) -> None:
        self.window.drafts.save_draft()
        if self.guard(self.session.open, conv_id) is None:
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
        self.run("fork")

    def export(self, conv_id: str) -> None:
        if conv_id != self.window.current_id:
            self.open_conversation(conv_id)
        conv = self.window.store.get_conversation(conv_id)
        self.window.ask_save_path(
            file_name(conv.title or "" if conv else "", conv_id),
            lambda path: self.run("export", fmt=export_format(path), path=path),
        )

    def trash(self, conv_id: str) -> None:
        window, session = self.window, self.session
        if self.guard(session.trash, conv_id) is None:
            return
        window.sidebar.reload()
        if conv_id == window.current_id:
            nxt = window.store.last_conversation()
            if nxt is not None:
                session.open(nxt.id)
            else:
                session.new_conversation(session.settings.default_agent)
        window.statusBar().showMessage(safe_line(f"Moved {conv_id} to the Trash"), 6000)
