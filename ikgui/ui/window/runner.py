"""The window's command runner: what the user asked for, run against the session.

Lines typed in the prompt editor are parsed by the session's command registry, while
actions, menus and dialogs run commands with values (``session.run(name, **arguments)``),
never composed slash lines; a stored message is sent again as text (``session.resend``),
never parsed. An error becomes one visible line (the feedback sink), never a traceback.
Work that waits runs as a named task (the spawner). It knows nothing of the window
beyond the collaborators it is handed by the wiring module."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import IkguiError, ProviderError
from ikgui.domain.events import Kind
from ikgui.domain.session.sendlock import BusyError
from ikgui.ui.plain import line as safe_line

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.prompt.editor import PromptEditor
    from ikgui.ui.window.collaborators import Feedback, Spawner


class CommandRunner:
    def __init__(
        self,
        session: Session,
        feedback: Feedback,
        spawn: Spawner,
        prompt: PromptEditor,
        refuses: Callable[[], bool],
    ) -> None:
        self.session = session
        self.feedback = feedback
        self.spawn = spawn
        #: The prompt editor: a typed line that recorded nothing is put back in it.
        self.prompt = prompt
        #: Whether a click that would write is refused (and the user told so): the demo.
        self.refuses = refuses
        #: Runs after each command (the chrome redraws what changed).
        self.after: Callable[[], None] = lambda: None
        #: Takes down the start-up banner about the model server (a card says it now).
        self.retire_banner: Callable[[], None] = lambda: None
        #: Closes the window (``/quit``).
        self.close: Callable[[], object] = lambda: None
        #: The work of a typed line that concerns attached files (``/attach PATH``, a
        #: message with files); ``None``: the session runs the line as it is.
        self.line_work: Callable[[str], Callable[[], Awaitable[str]] | None] = lambda line: None

    def guard(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a session call from a click; an error becomes one visible line."""
        if self.refuses():
            return None
        try:
            return fn(*args)
        except IkguiError as exc:
            self.feedback.show(exc.line, error=True)
            return None

    def run_line(self, line: str) -> asyncio.Task[Any]:
        """Send a message or run a slash command, as typed in the prompt editor."""
        work = self.line_work(line) or (lambda: self.session.execute(line))
        return self._spawn(work, typed=line)

    def run(self, name: str, /, **arguments: Any) -> asyncio.Task[Any]:
        """Run the command ``name`` with values (a toolbar action, a menu, a dialog)."""
        return self._spawn(lambda: self.session.run(name, **arguments))

    def resend(self, text: str) -> asyncio.Task[Any]:
        """Send a stored message's text again as it is (Retry, "edit and resend")."""
        return self._spawn(lambda: self._sent(text))

    async def _sent(self, text: str) -> str:
        await self.session.resend(text)
        return ""

    def edit_and_resend(self, event_id: int, text: str) -> asyncio.Task[Any]:
        """ "Edit and resend": a new branch just before the message ``event_id``, where
        ``text`` is sent with the files the message carried."""
        return self._spawn(lambda: self._edited(event_id, text))

    async def _edited(self, event_id: int, text: str) -> str:
        await self.session.edit_and_resend(event_id, text)
        return ""

    def retry(self, event_id: int) -> asyncio.Task[Any]:
        """Retry a reply or an error: the last exchange is answered again in place (the
        failed attempt stays, collapsed), an earlier one in a new branch; the message is
        never sent twice nor parsed again (``Session.retry``)."""
        return self._spawn(lambda: self._retried(event_id))

    async def _retried(self, event_id: int) -> str:
        await self.session.retry(event_id)
        return ""

    def _spawn(
        self, work: Callable[[], Awaitable[str]], typed: str | None = None
    ) -> asyncio.Task[Any]:
        self.feedback.show("")
        if self.refuses():
            return self.spawn(asyncio.sleep(0), "refused")
        return self.spawn(self._perform(work, typed), f"line:{self.session.conversation.id}")

    def _position(self) -> tuple[str, int | None]:
        shown = self.session.state.scrollback
        return self.session.conversation.id, shown[-1].id if shown else None

    async def _perform(self, work: Callable[[], Awaitable[str]], typed: str | None) -> None:
        """Run ``work``; ``typed`` is the prompt editor's text, put back if nothing was
        recorded (an error, a refusal)."""
        before = self._position()
        try:
            output = await work()
        except ProviderError as exc:
            self._failed(exc, before)
            return
        except IkguiError as exc:
            self.feedback.show(exc.line, error=True)
            refused = isinstance(exc, BusyError) or self._position() == before
            if typed is not None and not self.prompt.toPlainText() and refused:
                self.prompt.setPlainText(typed)  # nothing was recorded: keep the text
            return
        except asyncio.CancelledError:
            self.feedback.status("Stopped", 4000)
            return
        finally:
            self.after()
        if self.session.quit_requested:
            self.close()
            return
        if not output:
            return
        after = self._position()
        if after[0] != before[0]:  # switched (/new, /load, /fork, /kill): say where to
            self.feedback.status(safe_line(output.splitlines()[0]), 6000)
        elif after == before:  # nothing was recorded: the output is shown only here
            self.feedback.show(output)

    def _failed(self, exc: ProviderError, before: tuple[str, int | None]) -> None:
        """A provider failure is said once, in the window's words: by its error card when
        one was recorded (the start-up banner about the server steps aside, the status
        bar only says "Failed"), else (a command that asked a server) by the feedback line."""
        self.retire_banner()
        shown = self.session.state.scrollback
        carded = self._position() != before and shown and shown[-1].kind == Kind.ERROR
        if not carded:
            self.feedback.show(exc.window_text, error=True)
