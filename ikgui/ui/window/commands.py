"""What the window's widgets ask for beyond a plain command: a mark's label, a model
chosen in the selector, a conversation opened, exported, forked or moved to the Trash,
tags edited, a link followed. Each runs through the command runner
(:mod:`ikgui.ui.window.runner`); the wiring module connects the widgets to them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QWidget

from ikgui.domain.errors import IkguiError
from ikgui.domain.library import folders
from ikgui.ui.plain import line as safe_line
from ikgui.ui.window.export_file import export_format, file_name
from ikgui.ui.window.selection_commands import SelectionCommands

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.transcript.scrollback import ScrollbackView
    from ikgui.ui.window.collaborators import Feedback
    from ikgui.ui.window.model_box import ModelBox
    from ikgui.ui.window.runner import CommandRunner


class Questions(Protocol):
    """What the commands ask the user (tests answer instead)."""

    def ask_text(
        self, title: str, label: str, text: str, then: Callable[[str], object]
    ) -> None: ...

    def ask_save_path(self, suggested: str, then: Callable[[Path], object]) -> None: ...


class WindowCommands:
    def __init__(
        self,
        session: Session,
        runner: CommandRunner,
        feedback: Feedback,
        sidebar: ConversationSidebar,
        scrollback: ScrollbackView,
        selector: ModelBox,
        questions: Questions,
        owner: QWidget,
    ) -> None:
        self.session = session
        self.runner = runner
        self.feedback = feedback
        self.sidebar = sidebar
        self.scrollback = scrollback
        self.selector = selector
        self.questions = questions
        #: The parent of the dialogs the commands open.
        self.owner = owner
        #: Keeps the prompt's draft before another conversation is opened.
        self.save_draft: Callable[[], None] = lambda: None
        #: Shows a conversation's Branches view.
        self.show_branches: Callable[[str], object] = lambda conv_id: None
        self.selection = SelectionCommands(self)  # several rows; tags across conversations

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
        choice = self.selector.choice(row)
        if choice is None:
            return
        provider, model = choice
        if (provider, model) != (self.session.provider, self.session.model):
            self.runner.run("model", name=model, provider=provider)

    def mark(self) -> None:
        self.questions.ask_text(
            "Mark",
            "Label for this checkpoint (optional):",
            "",
            lambda label: self.runner.run("mark", label=label.strip() or None),
        )

    def rewind_to(self, mark_event_id: int) -> None:
        self.runner.run("rewind", mark=mark_event_id)

    def stop(self) -> None:
        if self.session.stop():
            self.feedback.status("Stopping…", 2000)

    def edit_and_resend(self, event_id: int, edited: str) -> None:
        """The transcript's inline editor sent ``edited`` for the message ``event_id``:
        fork just before that message and send the text (as text, never parsed)."""
        if edited.strip():  # (the message's files go with it: SPEC §13)
            self.runner.edit_and_resend(event_id, edited)

    def retag(self, conv_id: str, tags: list[str]) -> None:
        """The tag editor's OK: apply what the user added and removed to the tags as
        stored now, atomically, so a tag another program added meanwhile is kept."""
        before = self.sidebar.tags_shown.pop(conv_id, None)
        if before is None:  # not from the tag editor: replace what is stored
            stored = self.session.store.get_conversation(conv_id)
            before = stored.tags if stored else ()
        after = {tag.strip().lstrip("#").lower() for tag in tags}
        changes = [f"+{t}" for t in sorted(after - set(before))]
        changes += [f"-{t}" for t in sorted(set(before) - after)]
        if changes:
            self.runner.guard(self.session.retag_of, conv_id, changes)

    # -- conversations -----------------------------------------------------------------
    def open_conversation(self, conv_id: str, event_id: object = None) -> None:
        self.save_draft()
        if self.runner.guard(self.session.open, conv_id) is None:
            return
        if isinstance(event_id, int):  # a search hit: show it (its group expanded)
            # In a retried reply's attempt not shown: that attempt is chosen first.
            self.runner.guard(self.session.show_alternative_of, event_id)
            self.scrollback.scroll_to_event(event_id)

    def follow_link(self, scheme: str, conv_id: str) -> None:
        """A fork or close notice's link: open that conversation, or its Branches view."""
        from ikgui.ui.transcript.branch_notices import BRANCHES_SCHEME

        if scheme == BRANCHES_SCHEME:
            self.show_branches(conv_id)
        else:
            self.open_conversation(conv_id)

    def fork_conversation(self, conv_id: str) -> None:
        if conv_id != self.session.conversation.id:
            self.open_conversation(conv_id)
        self.runner.run("fork")

    def export(self, conv_id: str) -> None:
        if conv_id != self.session.conversation.id:
            self.open_conversation(conv_id)
        conv = self.session.store.get_conversation(conv_id)
        self.questions.ask_save_path(
            file_name(conv.title or "" if conv else "", conv_id),
            lambda path: self.runner.run("export", fmt=export_format(path), path=path),
        )

    def new_in_folder(self) -> None:
        """New (Ctrl+N): in the folder chosen in the sidebar, if any (tagged with it,
        with its project's agent, provider and model: SPEC §15); else a plain one."""
        folder = self.sidebar.chosen_folder
        agent: str | None = self.session.settings.default_agent
        if folder:
            project = self.runner.guard(folders.project_in, self.session.store, folder)
            if project is not None and project.agent:
                agent = None  # the project's agent, not the default one
        self.runner.run("new", agent=agent, project=folder or None)

    def trash(self, conv_id: str) -> None:
        session = self.session
        if self.runner.guard(session.trash, conv_id) is None:
            return
        self.sidebar.reload()
        if conv_id == session.conversation.id:
            nxt = session.store.last_conversation()
            if nxt is not None:
                session.open(nxt.id)
            else:
                session.new_conversation(session.settings.default_agent)
        self.feedback.status(safe_line(f"Moved {conv_id} to the Trash"), 6000)
