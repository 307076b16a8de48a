"""The window's chrome: the welcome or the transcript, the working prompt when it is not
being edited, which actions can act, the status bar, the window title, the banner above
the transcript and the changes waiting to be written.

They are drawn from one value, :class:`~ikgui.ui.window.state.WindowState`: after each
fact the next value is reduced (only the parts the fact can change are read again) and
compared with the last, and only the areas whose part differs are redrawn. The chrome
gets the widgets it draws and the presenters of the areas it refreshes
(:class:`ChromeParts`), not the window. What the window learns for its banner beside the
session (a model server that did not answer, a banner dismissed) goes through
:meth:`ChromePresenter.note`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel

from ikgui.domain.errors import IkguiError
from ikgui.domain.session.session import Session
from ikgui.domain.state.catalog import ModelGroup, model_groups
from ikgui.domain.state.facts import Fact
from ikgui.ui.plain import window_title
from ikgui.ui.window.state import (
    EVERYTHING,
    Banner,
    Notes,
    WindowState,
    Writes,
    banner_of,
    changed,
    compute,
    touched,
    writes_of,
)

if TYPE_CHECKING:
    from ikgui.domain.ports import Store
    from ikgui.ui.closed_strip import ClosedPresenter
    from ikgui.ui.conversation_pane import ConversationPane
    from ikgui.ui.prompt.panel_controller import WorkingPromptController
    from ikgui.ui.window.actions import WindowActions
    from ikgui.ui.window.announce import Announcer
    from ikgui.ui.window.model_lists import ModelLists
    from ikgui.ui.window.new_conversation import NewConversationPresenter
    from ikgui.ui.window.policy import WritablePolicy
    from ikgui.ui.window.responsive import Responsive

#: The parts the controls below the transcript and the toolbar's enablement depend on
#: (drawn together, in order: streaming enables Send, the policy and the closed strip
#: then disable what they must).
_CONTROLS = frozenset({"streaming", "commands", "strip", "read_only", "models"})


class WindowReading:
    """What the window state reads (:class:`~ikgui.ui.window.state.Reading`): the
    session, the window's policy, the model lists and the New conversation row."""

    def __init__(
        self,
        session: Session,
        policy: WritablePolicy,
        model_lists: ModelLists,
        new: NewConversationPresenter,
        notes: Notes,
    ) -> None:
        self.session = session
        self.policy = policy
        self.model_lists = model_lists
        self.new = new
        #: Whether a tool call waits for a decision on screen (set by the window).
        self.approvals: Callable[[], bool] = lambda: False
        #: What the window knows for its banner (changed through the chrome's ``note``).
        self.noted = notes

    @property
    def demo(self) -> bool:
        return self.policy.read_only

    @property
    def title_suffix(self) -> str:
        return self.policy.title_suffix

    def first_run(self) -> bool:
        store: Store = self.session.store
        try:
            return not store.list_conversations(1) and not store.list_conversations(1, trashed=True)
        except IkguiError:  # a server away or silent: the window keeps what it shows
            return False

    def models(self) -> tuple[str | None, tuple[ModelGroup, ...]]:
        lists, session = self.model_lists, self.session
        groups = model_groups(
            session.settings.providers, lists.listings, session.provider, session.model
        )
        return lists.shown_model(), tuple(groups)

    def typed(self) -> bool:
        return self.new.typed()

    def waiting_for_approval(self) -> bool:
        return self.approvals()

    def notes(self) -> Notes:
        return self.noted


@dataclass(frozen=True)
class ChromeParts:
    """What the chrome draws, and the presenters of the areas it refreshes."""

    pane: ConversationPane
    actions: WindowActions
    prompt_panel: WorkingPromptController
    model_lists: ModelLists
    status_model: QLabel
    status_usage: QLabel
    status_stream: QLabel
    #: Sets the window's title.
    set_title: Callable[[str], None]
    #: Disables what the window's policy forbids (the demo's rules).
    restrict: Callable[[], None]
    closed: ClosedPresenter
    new: NewConversationPresenter
    announcer: Announcer
    responsive: Responsive
    #: Shows the changes waiting to be written (the status bar's indicator).
    show_writes: Callable[[Writes], None]


class ChromePresenter:
    def __init__(self, parts: ChromeParts, reading: WindowReading) -> None:
        self.parts = parts
        self.closed = parts.closed
        self.new = parts.new
        self.announcer = parts.announcer
        self.responsive = parts.responsive
        self.reading = reading
        #: What the chrome shows now (``None``: not drawn yet).
        self.state: WindowState | None = None
        #: The parts the facts since the last redraw can have changed.
        self._touched: set[str] = set()
        #: The areas the last redraw drew (tests count them).
        self.drawn: tuple[str, ...] = ()
        #: Drawing now; parts asked for meanwhile (a presenter learnt something) wait.
        self._drawing = False
        self._again: set[str] = set()
        for label, name in (
            (parts.status_model, "Provider and model"),
            (parts.status_usage, "Tokens and cost"),
            (parts.status_stream, "Reply status"),
        ):
            label.setAccessibleName(name)

    def on_fact(self, fact: Fact) -> None:
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

    def note(self, change: Callable[[Notes], Notes]) -> None:
        """The window learnt something for its banner: redraw the banner alone (before
        the first state — a preview on screen —, only the banner is drawn)."""
        notes = change(self.reading.noted)
        if notes != self.reading.noted:
            self.reading.noted = notes
            self.redraw(frozenset({"banner"}))

    def dismiss_banner(self) -> None:
        """The user closed the banner: it stays closed (until its topic says more)."""
        shown = self.state.banner if self.state is not None else banner_of(self.reading)
        if shown is not None:
            self.note(lambda notes: notes.dismissed(shown.topic))

    def redraw(self, parts: frozenset[str]) -> None:
        """Read ``parts`` again and redraw what changed (before the first state — a
        preview on screen —: only the banner and the writes waiting, which read nothing
        of the conversation)."""
        if self.state is None:
            if "banner" in parts:
                self._draw_banner(banner_of(self.reading))
            if "writes" in parts:
                self.parts.show_writes(writes_of(self.reading))
            return
        self._redraw(parts)

    def _draw_banner(self, banner: Banner | None) -> None:
        widget = self.parts.pane.banner
        if banner is None:
            widget.hide()
            return
        widget.show_message(banner.text)
        widget.button.setVisible(banner.settings)

    def _redraw(self, parts: frozenset[str]) -> None:
        if self._drawing:  # (e.g. the model selector, drawn, retires the server's banner)
            self._again |= parts
            return
        old = self.state
        new = compute(old, parts, self.reading)
        self.state = new
        self._drawing = True
        try:
            self.drawn = self._draw(old, new)
        finally:
            self._drawing = False
        self.responsive.fit()  # (the working prompt may have opened: cheap when not narrow)
        if self._again:
            again, self._again = frozenset(self._again), set()
            self._redraw(again)

    def _draw(self, old: WindowState | None, new: WindowState) -> tuple[str, ...]:
        w = self.parts
        parts = changed(old, new)
        drawn: list[str] = []
        if "welcome" in parts:
            w.pane.show_welcome(new.welcome)
            drawn.append("welcome")
        if parts & {"prompt", "conversation_id"}:
            w.prompt_panel.refresh()
            drawn.append("prompt")
        actions = w.actions
        if "commands" in parts:
            before = {c.action: c for c in old.commands} if old is not None else {}
            actions.show_commands(c for c in new.commands if before.get(c.action) != c)
            drawn.append("commands")
        if "marks" in parts:
            actions.show_marks(new.marks)
            drawn.append("marks")
        if parts & _CONTROLS:
            w.pane.set_streaming(new.streaming)
            drawn.append("controls")
        if "status" in parts:
            status = new.status
            for label, text in (
                (w.status_model, status.model),
                (w.status_usage, status.usage),
                (w.status_stream, status.stream),
            ):
                if label.text() != text:
                    label.setText(text)
            drawn.append("status")
        if "title" in parts:
            w.set_title(window_title(new.title.window))
            w.pane.title_header.set_title(new.title.header, new.title.renamable)
            drawn.append("title")
        if parts & _CONTROLS:
            w.restrict()
        if "tools" in parts:
            actions.tools.show(new.tools)
            drawn.append("tools")
        if "models" in parts:
            w.model_lists.show()  # this conversation's provider and model
            drawn.append("models")
        if parts & _CONTROLS:
            self.closed.refresh()
        if parts & {"new_row", "welcome"}:
            self.new.refresh()
            drawn.append("new_row")
        if parts & {"newest", "streaming", "conversation_id"}:
            self.announcer.refresh()
        if "banner" in parts:
            self._draw_banner(new.banner)
            drawn.append("banner")
        if "writes" in parts:
            w.show_writes(new.writes)
            drawn.append("writes")
        return tuple(drawn)
