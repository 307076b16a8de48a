"""The working prompt's unsaved edit (SPEC §7, issue 11): typing stages it, Save or the
next send records it as one ``prompt_edit`` notice, Revert drops it; a change of
whitespace only is no edit. Mixed into
:class:`~ikgui.domain.session.open_conversation.OpenConversation`.

``/clear`` ends an unsaved edit too (issue 20, item 7): the next send must not record
into the fresh context an edit of a prompt the clear emptied. The edit is set aside
(``set_aside_prompt``), never sent by itself, for the window to offer it back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ikgui.domain.events import Event, Kind
from ikgui.domain.state.prompt_history import same_prompt
from ikgui.domain.state.replay import ReplayState
from ikgui.domain.state.working_prompt import edit_notice


class PromptEditing:
    state: ReplayState
    _staged_prompt: str | None
    #: The unsaved edit the last ``/clear`` ended (``None``: none), until taken.
    set_aside_prompt: str | None = None

    if TYPE_CHECKING:  # OpenConversation's

        def append(
            self, kind: str, content: str = "", data: dict[str, Any] | None = None
        ) -> Event: ...

    def stage_prompt(self, text: str) -> None:
        """Remember an uncommitted edit of the working prompt (the editor's content)."""
        self._staged_prompt = text

    @property
    def staged_prompt(self) -> str | None:
        """The uncommitted edit (``None``: none, or only whitespace changed)."""
        staged = self._staged_prompt
        if staged is None or same_prompt(staged, self.state.working_prompt):
            return None
        return staged

    @property
    def prompt_edited(self) -> bool:
        return self.staged_prompt is not None

    def revert_prompt(self) -> None:
        """Drop the uncommitted edit."""
        self._staged_prompt = None

    def set_aside(self, edit: str | None) -> None:
        """End the uncommitted edit ``edit`` (what ``staged_prompt`` was) without
        recording it: kept in ``set_aside_prompt`` for the user to restore."""
        self._staged_prompt = None
        if edit is not None:
            self.set_aside_prompt = edit

    def take_set_aside(self) -> str | None:
        """The edit set aside by the last ``/clear`` (once: it is forgotten here)."""
        edit, self.set_aside_prompt = self.set_aside_prompt, None
        return edit

    def commit_prompt(self, data: dict[str, Any] | None = None) -> Event | None:
        """Record the staged edit as one notice, if it differs from the recorded prompt
        by more than whitespace."""
        staged = self.staged_prompt
        self._staged_prompt = None
        if staged is None:
            return None
        return self.append(
            Kind.PROMPT_EDIT, edit_notice(staged), {**(data or {}), "prompt": staged}
        )

    def edit_prompt(self, text: str, data: dict[str, Any] | None = None) -> Event | None:
        self.stage_prompt(text)
        return self.commit_prompt(data)
