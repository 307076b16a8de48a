"""The window's chrome: the welcome or the transcript, the working prompt when it is not
being edited, which actions can act, the status bar and the window title — all drawn
from the session after each change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.errors import IkguiError
from ikgui.domain.events import Kind
from ikgui.domain.state.usage import usage_text
from ikgui.ui.closed_strip import ClosedPresenter
from ikgui.ui.plain import line as safe_line
from ikgui.ui.plain import window_title
from ikgui.ui.window.announce import Announcer
from ikgui.ui.window.model_box import NO_MODEL
from ikgui.ui.window.new_conversation import NewConversationPresenter
from ikgui.ui.window.responsive import Responsive

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow


class ChromePresenter:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.closed = ClosedPresenter(window, window.pane.closed_strip)
        self.new = NewConversationPresenter(window)
        self.announcer = Announcer(window, window.status_stream)
        self.responsive = Responsive(window)
        for label, name in (
            (window.status_model, "Provider and model"),
            (window.status_usage, "Tokens and cost"),
            (window.status_stream, "Reply status"),
        ):
            label.setAccessibleName(name)

    def first_run(self) -> bool:
        """Nothing stored yet and nothing on screen: show the welcome instead."""
        window = self.window
        session, store = window.session, window.store
        if window.policy.read_only or session.saved or session.state.scrollback:
            return False
        try:
            return not store.list_conversations(1) and not store.list_conversations(1, trashed=True)
        except IkguiError:  # a server away or silent: the window keeps what it shows
            return False

    def refresh(self) -> None:
        window = self.window
        session, conv = window.session, window.session.conversation
        streaming = session.streaming
        window.pane.show_welcome(self.first_run())
        window.prompt_panel.refresh()
        actions = window.toolbar_actions
        actions.update()
        window.pane.set_streaming(streaming)
        model = window.model_lists.shown_model() or NO_MODEL  # as the selector says it
        window.status_model.setText(safe_line(f"{session.provider} · {model}"))
        window.status_usage.setText(usage_text(conv, session.settings, session.model))
        shown = session.state.scrollback
        failed = bool(shown) and shown[-1].kind == Kind.ERROR  # its card says why
        window.status_stream.setText("Streaming…" if streaming else "Failed" if failed else "Ready")
        title = conv.title or ("New conversation" if not session.saved else conv.id)
        window.setWindowTitle(f"{window_title(title)}{window.policy.title_suffix} — ikgui")
        named = conv.title or ("Untitled conversation" if session.saved else "New conversation")
        renamable = session.saved and not window.policy.read_only
        window.pane.title_header.set_title(named, renamable)
        window.policy.restrict(window)
        window.model_lists.show()  # this conversation's provider and model
        self.closed.refresh()
        self.new.refresh()
        self.announcer.refresh()
        self.responsive.fit()
