"""What a window may do: write (the user's own window) or only read (the demo).

One policy object answers at each place the two differ: whether a click that would write
is refused, what :meth:`MainWindow.start` starts, and what the chrome disables."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow

DEMO_BANNER = (
    "This is a demo, generated for you and thrown away when you close this "
    "window. It is read-only: browse, search, right-click, show the context."
)
DEMO_REFUSAL = "The demo is read-only: open your own conversations to try this."


class WritablePolicy:
    """The user's own window: everything goes."""

    read_only = False
    title_suffix = ""

    def refuses(self, window: MainWindow) -> bool:
        """Whether a click that would write is refused (and the user told so)."""
        return False

    def start(self, window: MainWindow) -> None:
        """Watch other processes' changes and check the model server."""
        window.watcher.start_polling()
        window.spawn(window.check_models(), "check-models")

    def restrict(self, window: MainWindow) -> None:
        """Disable what this window may not do (after the chrome enabled what can act)."""


class ReadOnlyPolicy(WritablePolicy):
    """The demo: browse, search, read; nothing is written and no server is asked."""

    read_only = True
    #: Before the app's name: Qt adds the display name ("ikgui") to a title that does not
    #: end with it, and "… — ikgui demo (read-only)" was shown "… — ikgui" again.
    title_suffix = " (read-only demo)"

    def refuses(self, window: MainWindow) -> bool:
        window.show_feedback(DEMO_REFUSAL, error=True)
        return True

    def start(self, window: MainWindow) -> None:
        window.prompt.setReadOnly(True)
        window.prompt.setPlaceholderText("This demo is read-only.")
        window.working.editor.setReadOnly(True)
        window.banner.show_message(DEMO_BANNER)
        window.banner.button.hide()

    def restrict(self, window: MainWindow) -> None:
        actions = window.toolbar_actions
        for action in actions.actions.values():
            action.setEnabled(action.objectName() in ("actionExport",))
        actions.model_selector.setEnabled(False)
        window.send_button.setEnabled(False)


def policy_for(read_only: bool) -> WritablePolicy:
    return ReadOnlyPolicy() if read_only else WritablePolicy()
