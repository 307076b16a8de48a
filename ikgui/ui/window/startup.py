"""The window opens the last conversation from the end of its log: the first paint shows
a preview read with one short query (:func:`ikgui.domain.session.tail_first.preview`),
and the whole conversation is replayed right after that paint.

The session opens the conversation with its replay deferred, so its state is only ever
the full replay: whatever reads it first — this module after the first paint, or a send,
a command, the context dialog before that — replays it, and the session says so
(``StateReplaced(deferred=True)``). Nothing else has to remember anything. Then the
transcript is redrawn only if it does not end as the preview showed (another process
wrote meanwhile); otherwise it keeps its items and just learns of the earlier ones.

Until then the chrome is drawn from the conversation's row alone (title, provider and
model): reading the session's state for it would replay before the paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.errors import IkguiError
from ikgui.domain.session.tail_first import Preview, ends_alike, preview
from ikgui.domain.state.usage import usage_text
from ikgui.ui.plain import line as safe_line
from ikgui.ui.plain import window_title

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow

#: Events read for the first paint: more than its first screenful, so that the view is
#: full even when some are short.
TAIL_EVENTS = 40


class TailFirstStart:
    """Opens the window's first conversation on a preview (see the module docstring)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        #: The preview on screen while the session has not replayed its conversation.
        self.preview: Preview | None = None
        window.bridge.state_replayed.connect(self._replayed)

    @property
    def previewing(self) -> bool:
        """Whether the window shows a preview still (the session has not replayed)."""
        return self.preview is not None and not self.window.session.current.replayed

    def open(self, conv_id: str) -> None:
        """Open ``conv_id``: on a preview now if that is safe, else replayed now."""
        session = self.window.session
        shown = (
            None
            if session.writes.touches(conv_id)
            else preview(session.store, conv_id, TAIL_EVENTS)
        )
        if shown is None:
            session.open(conv_id)
            return
        self.preview = shown
        session.current.open(conv_id, replay_later=True)  # (the window shows the preview)
        self.window.first_paint.then(self.replay)

    def show(self) -> bool:
        """The conversation came on screen: show the preview if it is the one on screen
        and not replayed yet (``False``: the window shows the session's state)."""
        window, shown = self.window, self.preview
        if shown is None:
            return False
        conv = window.session.conversation
        if conv.id != shown.conversation.id or window.session.current.replayed:
            self.preview = None  # moved on, or replayed already: never shown again
            return False
        window.scrollback.show_events(shown.transcript)
        window.drafts.show_draft()
        window.sidebar.set_current(conv.id)
        window.watcher.mark_seen()  # (what another process writes next is taken in)
        window.services.ui_state.setValue("last_conversation", conv.id)
        self._chrome()
        return True

    def replay(self) -> None:
        """Replay the conversation in full now (after the first paint), if nothing has."""
        window = self.window
        if not self.previewing:
            self.preview = None
            return
        try:
            window.session.state  # noqa: B018  (the session replays it, and says so)
        except IkguiError as exc:  # it could be read a moment ago: say so, stay safe
            self.preview = None
            window.session.new_conversation(window.session.settings.default_agent)
            window.show_feedback(f"The last conversation could not be read: {exc.line}", True)

    def _replayed(self) -> None:
        """The session replayed the conversation: keep what the preview showed if the
        replay ends the same, and draw what the preview could not."""
        window, shown = self.window, self.preview
        if shown is None:
            return
        self.preview = None
        state = window.session.state
        same = ends_alike(shown, state)
        if not (same and window.scrollback.hold_earlier(state.transcript)):
            window.scrollback.show_events(state.transcript)
        window.prompt_panel.conversation_shown()
        window.watcher.mark_seen()
        window.chrome.refresh()

    def _chrome(self) -> None:
        """What the first paint needs of the chrome, from the conversation's row (the
        model a ``/model`` chose comes with the replay)."""
        window = self.window
        session, conv = window.session, window.session.conversation
        title = conv.title or conv.id
        window.setWindowTitle(f"{window_title(title)}{window.policy.title_suffix} — ikgui")
        named = conv.title or "Untitled conversation"
        window.pane.title_header.set_title(named, not window.policy.read_only)
        window.pane.show_welcome(False)
        model = conv.model or session.settings.default_model or ""
        provider = conv.provider or session.settings.default_provider
        window.status_model.setText(safe_line(f"{provider} · {model}"))
        window.status_usage.setText(usage_text(conv, session.settings, conv.model))
        window.status_stream.setText("Ready")
        # What needs the replay cannot act before it: nothing streams, marks are unknown.
        for name in ("actionStop", "actionRewind"):
            window.toolbar_actions[name].setEnabled(False)
        window.policy.restrict(window)
        # The working prompt is the replay's: the panel shows as for an empty one.
        window.prompt_panel.apply_visibility(session.prompt_mode in ("line", "json"))
