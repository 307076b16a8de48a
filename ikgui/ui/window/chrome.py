"""The window's chrome: the welcome or the transcript, the working prompt when it is not
being edited, which actions can act, the status bar and the window title.

They are drawn from one value, :class:`~ikgui.ui.window.state.WindowState`: after each
fact the next value is reduced (only the parts the fact can change are read again) and
compared with the last, and only the areas whose part differs are redrawn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.session.session import Session
from ikgui.domain.state.catalog import ModelGroup, model_groups
from ikgui.domain.state.facts import Fact
from ikgui.ui.closed_strip import ClosedPresenter, Controls
from ikgui.ui.plain import window_title
from ikgui.ui.window.announce import Announcer
from ikgui.ui.window.collaborators import Runner
from ikgui.ui.window.new_conversation import NewConversationPresenter
from ikgui.ui.window.responsive import Responsive
from ikgui.ui.window.state import EVERYTHING, WindowState, changed, compute, touched

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow

#: The parts the controls below the transcript and the toolbar's enablement depend on
#: (drawn together, in order: streaming enables Send, the policy and the closed strip
#: then disable what they must).
_CONTROLS = frozenset({"streaming", "commands", "strip", "read_only", "models"})


class WindowReading:
    """What the window state reads from this window (:class:`~ikgui.ui.window.state.Reading`)."""

    def __init__(self, window: MainWindow, new: NewConversationPresenter) -> None:
        self.window = window
        self.new = new

    @property
    def session(self) -> Session:
        return self.window.session

    @property
    def demo(self) -> bool:
        return self.window.policy.read_only

    @property
    def title_suffix(self) -> str:
        return self.window.policy.title_suffix

    def first_run(self) -> bool:
        store = self.window.store
        return not store.list_conversations(1) and not store.list_conversations(1, trashed=True)

    def models(self) -> tuple[str | None, tuple[ModelGroup, ...]]:
        lists, session = self.window.model_lists, self.window.session
        groups = model_groups(
            session.settings.providers, lists.listings, session.provider, session.model
        )
        return lists.shown_model(), tuple(groups)

    def typed(self) -> bool:
        return self.new.typed()


class ChromePresenter:
    def __init__(self, window: MainWindow, controls: Controls, runner: Runner) -> None:
        self.window = window
        strip = window.pane.closed_strip
        self.closed = ClosedPresenter(strip, window.session, controls, runner, window.read_only)
        self.new = NewConversationPresenter(
            window.session,
            window.sidebar,
            window.scrollback.viewport(),
            window.prompt,
            window.services.ui_state,
            runner,
            window.drafts.save_draft,
            window.read_only,
        )
        self.announcer = Announcer(window.session, window.scrollback, window.status_stream)
        self.responsive = Responsive(window)
        self.reading = WindowReading(window, self.new)
        #: What the chrome shows now (``None``: not drawn yet).
        self.state: WindowState | None = None
        #: The parts the facts since the last redraw can have changed.
        self._touched: set[str] = set()
        #: The areas the last redraw drew (tests count them).
        self.drawn: tuple[str, ...] = ()
        window.bridge.fact.connect(self._on_fact)
        for label, name in (
            (window.status_model, "Provider and model"),
            (window.status_usage, "Tokens and cost"),
            (window.status_stream, "Reply status"),
        ):
            label.setAccessibleName(name)

    def _on_fact(self, fact: Fact) -> None:
        on_screen = self.state.conversation_id if self.state is not None else ""
        self._touched |= touched(fact, on_screen)

    def follow(self) -> None:
        """Redraw what the facts since the last redraw changed."""
        parts, self._touched = frozenset(self._touched), set()
        self._redraw(parts)

    def refresh(self) -> None:
        """Read every part again (after a change the window made itself, or one no fact
        announced) and redraw what changed."""
        self._touched = set()
        self._redraw(EVERYTHING)

    def _redraw(self, parts: frozenset[str]) -> None:
        old = self.state
        new = compute(old, parts, self.reading)
        self.state = new
        self.drawn = self._draw(old, new)
        self.responsive.fit()  # (the working prompt may have opened: cheap when not narrow)

    def _draw(self, old: WindowState | None, new: WindowState) -> tuple[str, ...]:
        window = self.window
        parts = changed(old, new)
        drawn: list[str] = []
        if "welcome" in parts:
            window.pane.show_welcome(new.welcome)
            drawn.append("welcome")
        if parts & {"prompt", "conversation_id"}:
            window.prompt_panel.refresh()
            drawn.append("prompt")
        actions = window.toolbar_actions
        if "commands" in parts:
            before = {c.action: c for c in old.commands} if old is not None else {}
            actions.show_commands(c for c in new.commands if before.get(c.action) != c)
            drawn.append("commands")
        if "marks" in parts:
            actions.show_marks(new.marks)
            drawn.append("marks")
        if parts & _CONTROLS:
            window.pane.set_streaming(new.streaming)
            drawn.append("controls")
        if "status" in parts:
            status = new.status
            for label, text in (
                (window.status_model, status.model),
                (window.status_usage, status.usage),
                (window.status_stream, status.stream),
            ):
                if label.text() != text:
                    label.setText(text)
            drawn.append("status")
        if "title" in parts:
            window.setWindowTitle(window_title(new.title.window))
            window.pane.title_header.set_title(new.title.header, new.title.renamable)
            drawn.append("title")
        if parts & _CONTROLS:
            window.policy.restrict(window)
        if "models" in parts:
            window.model_lists.show()  # this conversation's provider and model
            drawn.append("models")
        if parts & _CONTROLS:
            self.closed.refresh()
        if parts & {"new_row", "welcome"}:
            self.new.refresh()
            drawn.append("new_row")
        if parts & {"newest", "streaming", "conversation_id"}:
            self.announcer.refresh()
        return tuple(drawn)
