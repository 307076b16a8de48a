"""The window opens the last conversation from the end of its log: what the first paint
shows is read with one short query (:class:`ikgui.domain.session.tail_first.TailFirst`), and the
whole conversation is replayed right after that paint.

Until then the session's state is the tail's, which is not the conversation's context:
whatever the window runs on the session first finishes the replay (the two doors of
:class:`~ikgui.ui.window.commands.WindowCommands`, the context dialog, the shutdown), so
nothing is sent, changed or shown on the tail's state. After the replay the transcript
is redrawn only if it does not end as shown (another process wrote meanwhile);
otherwise it keeps its items and just learns of the earlier ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.errors import IkguiError
from ikgui.domain.session.tail_first import TailFirst

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow

#: Events read for the first paint: more than its first screenful, so that the view is
#: full even when some are short.
TAIL_EVENTS = 40


class TailFirstStart:
    """Opens the window's first conversation tail first (see the module docstring)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.tail_first = TailFirst(window.session.current, TAIL_EVENTS)

    def open(self, conv_id: str) -> None:
        """Open ``conv_id``: on its tail now if that is safe, else replayed now."""
        if not self.tail_first.open(conv_id):
            self.window.session.open(conv_id)
            return
        self.window.first_paint.then(self.finish)

    @property
    def pending(self) -> bool:
        return self.tail_first.pending

    def finish(self) -> None:
        """Replay the conversation in full now (nothing if done already)."""
        window = self.window
        try:
            same = self.tail_first.finish()
        except IkguiError as exc:  # it could be read a moment ago: say so, stay safe
            window.session.new_conversation(window.session.settings.default_agent)
            window.show_feedback(f"The last conversation could not be read: {exc.line}", True)
            return
        if same is None:
            return
        state = window.session.state
        if not (same and window.scrollback.hold_earlier(state.transcript)):
            window.scrollback.show_events(state.transcript)
        window.watcher.mark_seen()
        window.chrome.refresh()
