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

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import IkguiError
from ikgui.domain.session.tail_first import Preview, ends_alike, preview
from ikgui.domain.state.usage import usage_text
from ikgui.ui.plain import line as safe_line
from ikgui.ui.plain import window_title

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from ikgui.domain.session.session import Session
    from ikgui.ui.conversation_pane import ConversationPane
    from ikgui.ui.first_paint import FirstPaint
    from ikgui.ui.prompt.panel_controller import WorkingPromptController
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.transcript.scrollback import ScrollbackView
    from ikgui.ui.window.actions import WindowActions
    from ikgui.ui.window.collaborators import Feedback
    from ikgui.ui.window.policy import WritablePolicy

#: Events read for the first paint: more than its first screenful, so that the view is
#: full even when some are short.
TAIL_EVENTS = 40


@dataclass(frozen=True)
class StartParts:
    """What the start shows the preview with (the wiring module hands it over)."""

    session: Session
    first_paint: FirstPaint
    scrollback: ScrollbackView
    sidebar: ConversationSidebar
    prompt_panel: WorkingPromptController
    pane: ConversationPane
    actions: WindowActions
    policy: WritablePolicy
    feedback: Feedback
    #: The window's state kept between starts (``last_conversation``).
    ui_state: Any
    #: The status bar's model, usage and stream lines.
    status: tuple[QLabel, QLabel, QLabel]
    set_title: Callable[[str], None]
    show_draft: Callable[[], None]
    #: What another process writes from now on is taken in.
    mark_seen: Callable[[], None]
    #: Redraw the chrome from the session's state.
    redraw: Callable[[], None]


class TailFirstStart:
    """Opens the window's first conversation on a preview (see the module docstring).
    Connect :meth:`replayed` to the session's ``StateReplaced``."""

    def __init__(self, parts: StartParts) -> None:
        self.parts = parts
        #: The preview on screen while the session has not replayed its conversation.
        self.preview: Preview | None = None

    @property
    def previewing(self) -> bool:
        """Whether the window shows a preview still (the session has not replayed)."""
        return self.preview is not None and not self.parts.session.current.replayed

    def open(self, conv_id: str) -> None:
        """Open ``conv_id``: on a preview now if that is safe, else replayed now."""
        session = self.parts.session
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
        self.parts.first_paint.then(self.replay)

    def show(self) -> bool:
        """The conversation came on screen: show the preview if it is the one on screen
        and not replayed yet (``False``: the window shows the session's state)."""
        parts, shown = self.parts, self.preview
        if shown is None:
            return False
        conv = parts.session.conversation
        if conv.id != shown.conversation.id or parts.session.current.replayed:
            self.preview = None  # moved on, or replayed already: never shown again
            return False
        parts.scrollback.show_events(shown.transcript)
        parts.show_draft()
        parts.sidebar.set_current(conv.id)
        parts.mark_seen()  # (what another process writes next is taken in)
        parts.ui_state.setValue("last_conversation", conv.id)
        self._chrome()
        return True

    def replay(self) -> None:
        """Replay the conversation in full now (after the first paint), if nothing has."""
        session = self.parts.session
        if not self.previewing:
            self.preview = None
            return
        try:
            session.state  # noqa: B018  (the session replays it, and says so)
        except IkguiError as exc:  # it could be read a moment ago: say so, stay safe
            self.preview = None
            session.new_conversation(session.settings.default_agent)
            self.parts.feedback.show(f"The last conversation could not be read: {exc.line}", True)

    def replayed(self) -> None:
        """The session replayed the conversation: keep what the preview showed if the
        replay ends the same, and draw what the preview could not."""
        parts, shown = self.parts, self.preview
        if shown is None:
            return
        self.preview = None
        state = parts.session.state
        same = ends_alike(shown, state)
        if not (same and parts.scrollback.hold_earlier(state.transcript)):
            parts.scrollback.show_events(state.transcript)
        parts.prompt_panel.conversation_shown()
        parts.mark_seen()
        parts.redraw()

    def _chrome(self) -> None:
        """What the first paint needs of the chrome, from the conversation's row (the
        model a ``/model`` chose comes with the replay)."""
        parts = self.parts
        session, conv, policy = parts.session, parts.session.conversation, parts.policy
        title = conv.title or conv.id
        parts.set_title(f"{window_title(title)}{policy.title_suffix} — ikgui")
        named = conv.title or "Untitled conversation"
        parts.pane.title_header.set_title(named, not policy.read_only)
        parts.pane.show_welcome(False)
        model = conv.model or session.settings.default_model or ""
        provider = conv.provider or session.settings.default_provider
        status_model, status_usage, status_stream = parts.status
        status_model.setText(safe_line(f"{provider} · {model}"))
        status_usage.setText(usage_text(conv, session.settings, conv.model))
        status_stream.setText("Ready")
        # What needs the replay cannot act before it: nothing streams, marks are unknown.
        for name in ("actionStop", "actionRewind"):
            parts.actions[name].setEnabled(False)
        policy.restrict()
        # The working prompt is the replay's: the panel shows as for an empty one.
        parts.prompt_panel.apply_visibility(session.prompt_mode in ("line", "json"))
