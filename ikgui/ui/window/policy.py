"""How a window shows the session's read-only answer (``Session.read_only``, enforced by
the domain: :mod:`ikgui.domain.session.read_only`): the user's own window, the demo, or
a store opened read-only (whose banner says why: ``MainWindow._show_store_state``).

One policy object answers at each place they differ: whether a click that would write
is refused (saying the domain's reason), what :meth:`MainWindow.start` starts, and what
the chrome disables. A closed or trashed conversation shows its strip instead
(:mod:`ikgui.ui.closed_strip`): only that conversation takes no input."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.domain.session.read_only import ReadOnly, Reason

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow

DEMO_BANNER = (
    "This is a demo, generated for you and thrown away when you close this "
    "window. It is read-only: browse, search, right-click, show the context."
)


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
        return _refused(window)

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


class ReadOnlyStorePolicy(WritablePolicy):
    """A store opened read-only: browse, search, export; other processes' changes show."""

    read_only = True
    title_suffix = " (read-only)"
    placeholder = "Your conversations are open read-only."

    def refuses(self, window: MainWindow) -> bool:
        return _refused(window)

    def start(self, window: MainWindow) -> None:
        super().start(window)
        window.prompt.setReadOnly(True)
        window.prompt.setPlaceholderText(self.placeholder)
        window.working.editor.setReadOnly(True)

    def restrict(self, window: MainWindow) -> None:
        window.toolbar_actions.model_selector.setEnabled(False)
        window.send_button.setEnabled(False)


def _refused(window: MainWindow) -> bool:
    """Say why the session writes nothing, if it does not (the domain would refuse it)."""
    answer = window.session.read_only
    if answer is None or not answer.whole:
        return False
    window.show_feedback(answer.message, error=True)
    return True


def policy_for(answer: ReadOnly | None) -> WritablePolicy:
    """The policy that shows the session's answer (a closed or trashed conversation: the
    user's own window, with its strip)."""
    if answer is not None and answer.reason is Reason.DEMO:
        return ReadOnlyPolicy()
    if answer is not None and answer.reason is Reason.STORE:
        return ReadOnlyStorePolicy()
    return WritablePolicy()
