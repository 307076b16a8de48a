"""Drives the working-prompt panel (issue 11): when it shows, its unsaved edit and the
draft that keeps it across conversations and restarts, Save/Revert, and the history.

An unsaved edit that Clear ended (issue 20, item 7: the domain sets it aside) is kept
as a draft of its own, per conversation and across restarts, behind "Restore unsaved
edit": restored, it is an unsaved edit again; it is never sent by itself. Both drafts
are kept with the conversation in the store by the draft keeper
(:mod:`ikgui.ui.prompt.drafts`, issue 22 item 8), written after a pause in typing.

The panel is shown when it has something to do — the agent drafts prompts (``line`` or
``json`` mode) or the conversation has a working prompt or an unsaved edit — and
collapsed to a slim toggle otherwise. The user's own choice (the toggle, Ctrl+Shift+P)
is remembered by the window and wins until a command opens the panel again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractButton, QSplitter, QWidget

from ikgui.domain.state.prompt_history import PromptVersion
from ikgui.ui.prompt.working_prompt import TOGGLE_SHORTCUT

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.prompt.drafts import DraftKeeper
    from ikgui.ui.prompt.working_prompt import WorkingPromptPanel
    from ikgui.ui.transcript.scrollback import ScrollbackView
    from ikgui.ui.window.collaborators import Feedback, Runner

#: ``ui_state`` key: the user's choice ("shown" / "hidden"; absent: automatic).
CHOICE_KEY = "working_prompt/panel"
SEND_TIP = "Send (Enter)"
SEND_SAVES_TIP = "Send (Enter) — also saves your working-prompt edit: the assistant is told"


@dataclass(frozen=True)
class PromptParts:
    """The widgets the controller drives: the panel, the transcript (its prompt cards),
    the splitter that gives the panel its width, and Send (its tip)."""

    panel: WorkingPromptPanel
    scrollback: ScrollbackView
    splitter: QSplitter
    send_button: QAbstractButton


class WorkingPromptController(QObject):
    def __init__(
        self,
        parts: PromptParts,
        session: Session,
        keeper: DraftKeeper,
        runner: Runner,
        feedback: Feedback,
        ui_state: QSettings,
        read_only: bool,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.parent_widget = parent
        self.panel = panel = parts.panel
        self.scrollback = parts.scrollback
        self.splitter = parts.splitter
        self.send_button = parts.send_button
        self.session = session
        self.runner = runner
        self.feedback = feedback
        self.ui_state = ui_state
        self.read_only = read_only
        self.action = QAction("Working prompt", parent)
        self.action.setObjectName("actionWorkingPrompt")
        self.action.setCheckable(True)
        self.action.setShortcut(QKeySequence(TOGGLE_SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setToolTip(f"Show or hide the working prompt  ({TOGGLE_SHORTCUT})")
        self.action.triggered.connect(self.toggle)
        parent.addAction(self.action)
        panel.edited.connect(self.edited)
        panel.save_requested.connect(self.save)
        panel.revert_requested.connect(self.revert)
        panel.history_requested.connect(self.show_history)
        panel.toggle_requested.connect(self.toggle)
        panel.restore_edit_requested.connect(self.restore_set_aside)
        self.scrollback.prompt_restore_requested.connect(self.restore_text)
        self.scrollback.set_prompt_lookup(
            self.prompt_before,
            lambda: session.state.working_prompt,
            lambda: not panel.collapsed,
        )
        self._width = 300
        #: The user's choice ("shown", "hidden"; "": automatic), read once.
        self._choice = str(ui_state.value(CHOICE_KEY, "", type=str))
        self.keeper = keeper
        #: Whether the open conversation has an edit a Clear ended ("Restore unsaved edit").
        self._set_aside = False

    def prompt_before(self, event_id: int) -> str | None:
        """The working prompt before event ``event_id`` changed it (the cards' "before";
        read from the state of now: it is replaced by each replay)."""
        return self.session.state.prompt_before.get(event_id)

    # -- visibility --------------------------------------------------------------------
    def needed(self) -> bool:
        session = self.session
        return (
            session.prompt_mode in ("line", "json")
            or bool(session.state.working_prompt)
            or session.prompt_edited
            or self._set_aside
        )

    def _set_choice(self, choice: str) -> None:
        """Remember the user's choice ("": automatic) in the window's state."""
        self._choice = choice
        state = self.ui_state
        if choice:
            state.setValue(CHOICE_KEY, choice)
        else:
            state.remove(CHOICE_KEY)

    def apply_visibility(self, needed: bool | None = None) -> None:
        """Show or fold the panel (``needed``: whether it is, when the caller knows
        better than the session, as a preview shown before the replay does)."""
        choice = self._choice
        needed = self.needed() if needed is None else needed
        shown = choice == "shown" or (choice != "hidden" and needed)
        panel = self.panel
        if shown == (not panel.collapsed):
            self.action.setChecked(shown)
            self.scrollback.refresh_prompt_cards()
            return
        splitter = self.splitter
        sizes = splitter.sizes()
        if not shown and len(sizes) == 3 and sizes[2] > 40:
            self._width = sizes[2]
        panel.set_collapsed(not shown)
        self.action.setChecked(shown)
        if shown and len(sizes) == 3:
            splitter.setSizes([sizes[0], max(300, sizes[1] - self._width), self._width])
        self.scrollback.refresh_prompt_cards()  # (cards unfold with the panel shut)

    def toggle(self) -> None:
        """The user's choice: show or hide it (remembered by the window)."""
        shown = self.panel.collapsed
        self._set_choice("shown" if shown else "hidden")
        self.apply_visibility()
        if shown:
            self.panel.editor.setFocus()

    def open(self) -> None:
        """A command set the prompt: show it whatever was chosen before."""
        self._set_choice("shown" if self.panel.collapsed else "")
        self.apply_visibility()

    # -- the edit and its draft ----------------------------------------------------------
    def edited(self, text: str) -> None:
        session = self.session
        session.stage_prompt(text)
        if session.prompt_edited:
            self.keeper.keep("prompt_draft", text)  # written after a pause in typing
        else:
            self._forget_draft()
        self._show_state()

    def save(self) -> None:
        self.runner.guard(self.session.commit_prompt)
        self.refresh()

    def revert(self) -> None:
        session = self.session
        session.revert_prompt()
        self._forget_draft()
        self.panel.show_prompt(session.state.working_prompt)
        self._show_state()

    def conversation_shown(self) -> None:
        """Another conversation is on screen: its recorded prompt, or its draft."""
        session = self.session
        session.revert_prompt()
        draft = self.keeper.of_open("prompt_draft")
        self.panel.show_prompt(session.state.working_prompt)
        if draft is not None and draft != session.state.working_prompt:
            self.panel.show_prompt(draft)
            session.stage_prompt(draft)
        self._set_aside = self.keeper.of_open("prompt_set_aside") is not None
        self.refresh()

    def refresh(self) -> None:
        """After any change: the recorded prompt unless the user is editing it."""
        session = self.session
        edit = session.take_set_aside_prompt()
        if edit is not None:  # a Clear ended it: kept behind "Restore unsaved edit"
            self.keeper.keep("prompt_set_aside", edit)
            self._set_aside = True
        writable = not (session.read_only or self.read_only)  # (its editor is read-only)
        self.panel.restore_edit_button.setVisible(self._set_aside and writable)
        if not session.prompt_edited:
            self.panel.show_prompt(session.state.working_prompt)
            self._forget_draft()
        self._show_state()
        self.apply_visibility()

    def restore_set_aside(self) -> None:
        """ "Restore unsaved edit": the edit a Clear ended is an unsaved edit again."""
        edit = self.keeper.of_open("prompt_set_aside")
        if edit is not None:
            self.keeper.keep("prompt_set_aside", None)
        self._set_aside = False
        if edit is not None:
            self.panel.editor.setPlainText(edit)  # as typed: staged, drafted, shown
            self.panel.editor.setFocus()
        self.refresh()

    def _forget_draft(self) -> None:
        """Drop the open conversation's draft, if it has one (this runs after every
        change: it is written only when there is something to drop)."""
        if self.keeper.of_open("prompt_draft") is not None:
            self.keeper.keep("prompt_draft", None)

    def _show_state(self) -> None:
        edited = self.session.prompt_edited
        self.panel.set_edited(edited)
        self.send_button.setToolTip(SEND_SAVES_TIP if edited else SEND_TIP)

    # -- history -------------------------------------------------------------------------
    def show_history(self) -> None:
        from ikgui.ui.prompt.history_dialog import PromptHistoryDialog

        session = self.session
        dialog = PromptHistoryDialog(
            session.prompt_versions(),
            session.state.working_prompt,
            self.restore,
            self.parent_widget,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        self.history_dialog = dialog

    def restore(self, version: PromptVersion) -> None:
        self.restore_text(version.event_id, version.text)

    def restore_text(self, from_event: int, text: str) -> None:
        """Make ``text`` (set by ``from_event``) the working prompt again, as a new edit."""
        session = self.session
        session.revert_prompt()
        if session.state.working_prompt == text:
            self.feedback.status("That is the working prompt already", 4000)
        else:
            self.runner.guard(session.restore_prompt, text, from_event)
        self.refresh()
