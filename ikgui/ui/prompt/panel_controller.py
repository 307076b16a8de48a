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

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from ikgui.domain.state.prompt_history import PromptVersion
from ikgui.ui.prompt.working_prompt import TOGGLE_SHORTCUT

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow

#: ``ui_state`` key: the user's choice ("shown" / "hidden"; absent: automatic).
CHOICE_KEY = "working_prompt/panel"
SEND_TIP = "Send (Enter)"
SEND_SAVES_TIP = "Send (Enter) — also saves your working-prompt edit: the assistant is told"


class WorkingPromptController(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        panel = window.working
        self.action = QAction("Working prompt", window)
        self.action.setObjectName("actionWorkingPrompt")
        self.action.setCheckable(True)
        self.action.setShortcut(QKeySequence(TOGGLE_SHORTCUT))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setToolTip(f"Show or hide the working prompt  ({TOGGLE_SHORTCUT})")
        self.action.triggered.connect(self.toggle)
        window.addAction(self.action)
        panel.edited.connect(self.edited)
        panel.save_requested.connect(self.save)
        panel.revert_requested.connect(self.revert)
        panel.history_requested.connect(self.show_history)
        panel.toggle_requested.connect(self.toggle)
        panel.restore_edit_requested.connect(self.restore_set_aside)
        panel.show_context_requested.connect(window.show_context)
        window.scrollback.prompt_restore_requested.connect(self.restore_text)
        window.scrollback.set_prompt_lookup(
            self.prompt_before,
            lambda: window.session.state.working_prompt,
            lambda: not window.working.collapsed,
        )
        self._width = 300
        #: The user's choice ("shown", "hidden"; "": automatic), read once.
        self._choice = str(window.services.ui_state.value(CHOICE_KEY, "", type=str))
        self.keeper = window.drafts.keeper
        #: Whether the open conversation has an edit a Clear ended ("Restore unsaved edit").
        self._set_aside = False

    def prompt_before(self, event_id: int) -> str | None:
        """The working prompt before event ``event_id`` changed it (the cards' "before";
        read from the state of now: it is replaced by each replay)."""
        return self.window.session.state.prompt_before.get(event_id)

    # -- visibility --------------------------------------------------------------------
    def needed(self) -> bool:
        session = self.window.session
        return (
            session.prompt_mode in ("line", "json")
            or bool(session.state.working_prompt)
            or session.prompt_edited
            or self._set_aside
        )

    def _set_choice(self, choice: str) -> None:
        """Remember the user's choice ("": automatic) in the window's state."""
        self._choice = choice
        state = self.window.services.ui_state
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
        panel = self.window.working
        if shown == (not panel.collapsed):
            self.action.setChecked(shown)
            self.window.scrollback.refresh_prompt_cards()
            return
        splitter = self.window.splitter
        sizes = splitter.sizes()
        if not shown and len(sizes) == 3 and sizes[2] > 40:
            self._width = sizes[2]
        panel.set_collapsed(not shown)
        self.action.setChecked(shown)
        if shown and len(sizes) == 3:
            splitter.setSizes([sizes[0], max(300, sizes[1] - self._width), self._width])
        self.window.scrollback.refresh_prompt_cards()  # (cards unfold with the panel shut)

    def toggle(self) -> None:
        """The user's choice: show or hide it (remembered by the window)."""
        shown = self.window.working.collapsed
        self._set_choice("shown" if shown else "hidden")
        self.apply_visibility()
        if shown:
            self.window.working.editor.setFocus()

    def open(self) -> None:
        """A command set the prompt: show it whatever was chosen before."""
        self._set_choice("shown" if self.window.working.collapsed else "")
        self.apply_visibility()

    # -- the edit and its draft ----------------------------------------------------------
    def edited(self, text: str) -> None:
        session = self.window.session
        session.stage_prompt(text)
        if session.prompt_edited:
            self.keeper.keep("prompt_draft", text)  # written after a pause in typing
        else:
            self._forget_draft()
        self._show_state()

    def save(self) -> None:
        self.window.commands.guard(self.window.session.commit_prompt)
        self.refresh()

    def revert(self) -> None:
        session = self.window.session
        session.revert_prompt()
        self._forget_draft()
        self.window.working.show_prompt(session.state.working_prompt)
        self._show_state()

    def conversation_shown(self) -> None:
        """Another conversation is on screen: its recorded prompt, or its draft."""
        window = self.window
        session = window.session
        session.revert_prompt()
        draft = self.keeper.of_open("prompt_draft")
        window.working.show_prompt(session.state.working_prompt)
        if draft is not None and draft != session.state.working_prompt:
            window.working.show_prompt(draft)
            session.stage_prompt(draft)
        self._set_aside = self.keeper.of_open("prompt_set_aside") is not None
        self.refresh()

    def refresh(self) -> None:
        """After any change: the recorded prompt unless the user is editing it."""
        window = self.window
        session = window.session
        edit = session.take_set_aside_prompt()
        if edit is not None:  # a Clear ended it: kept behind "Restore unsaved edit"
            self.keeper.keep("prompt_set_aside", edit)
            self._set_aside = True
        writable = not (session.read_only or window.read_only)  # (its editor is read-only)
        window.working.restore_edit_button.setVisible(self._set_aside and writable)
        if not session.prompt_edited:
            window.working.show_prompt(session.state.working_prompt)
            self._forget_draft()
        self._show_state()
        self.apply_visibility()

    def restore_set_aside(self) -> None:
        """ "Restore unsaved edit": the edit a Clear ended is an unsaved edit again."""
        window = self.window
        edit = self.keeper.of_open("prompt_set_aside")
        if edit is not None:
            self.keeper.keep("prompt_set_aside", None)
        self._set_aside = False
        if edit is not None:
            window.working.editor.setPlainText(edit)  # as typed: staged, drafted, shown
            window.working.editor.setFocus()
        self.refresh()

    def _forget_draft(self) -> None:
        """Drop the open conversation's draft, if it has one (this runs after every
        change: it is written only when there is something to drop)."""
        if self.keeper.of_open("prompt_draft") is not None:
            self.keeper.keep("prompt_draft", None)

    def _show_state(self) -> None:
        edited = self.window.session.prompt_edited
        self.window.working.set_edited(edited)
        self.window.send_button.setToolTip(SEND_SAVES_TIP if edited else SEND_TIP)

    # -- history -------------------------------------------------------------------------
    def show_history(self) -> None:
        from ikgui.ui.prompt.history_dialog import PromptHistoryDialog

        window = self.window
        session = window.session
        dialog = PromptHistoryDialog(
            session.prompt_versions(), session.state.working_prompt, self.restore, window
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        self.history_dialog = dialog

    def restore(self, version: PromptVersion) -> None:
        self.restore_text(version.event_id, version.text)

    def restore_text(self, from_event: int, text: str) -> None:
        """Make ``text`` (set by ``from_event``) the working prompt again, as a new edit."""
        session = self.window.session
        session.revert_prompt()
        if session.state.working_prompt == text:
            self.window.statusBar().showMessage("That is the working prompt already", 4000)
        else:
            self.window.commands.guard(session.restore_prompt, text, from_event)
        self.refresh()
