"""How a window shows the session's read-only answer (``Session.read_only``, enforced by
the domain: :mod:`ikgui.domain.session.read_only`): the user's own window, the demo, or
a store opened read-only (their banners are the window state's:
:func:`ikgui.ui.window.state.banner_of`).

One policy object answers at each place they differ: whether a click that would write
is refused (saying the domain's reason), what :meth:`MainWindow.start` starts, and what
the chrome disables. A closed or trashed conversation shows its strip instead
(:mod:`ikgui.ui.closed_strip`): only that conversation takes no input."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ikgui.domain.session.read_only import ReadOnly, Reason

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractButton, QPlainTextEdit

    from ikgui.domain.session.session import Session
    from ikgui.ui.window.actions import WindowActions
    from ikgui.ui.window.collaborators import Feedback


@dataclass(frozen=True)
class PolicyParts:
    """What a policy reads, says and restricts (the wiring module hands it over)."""

    session: Session
    feedback: Feedback
    prompt: QPlainTextEdit
    working_editor: QPlainTextEdit
    actions: WindowActions
    send_button: QAbstractButton
    #: Watch other processes' changes.
    watch: Callable[[], None]
    #: Ask the model server for its models (in the background).
    check_models: Callable[[], None]


class WritablePolicy:
    """The user's own window: everything goes."""

    read_only = False
    title_suffix = ""

    def __init__(self, parts: PolicyParts) -> None:
        self.parts = parts

    def refuses(self) -> bool:
        """Whether a click that would write is refused (and the user told so)."""
        return False

    def start(self) -> None:
        """Watch other processes' changes and check the model server."""
        self.parts.watch()
        self.parts.check_models()

    def restrict(self) -> None:
        """Disable what this window may not do (after the chrome enabled what can act)."""

    def _refused(self) -> bool:
        """Say why the session writes nothing, if it does not (the domain would refuse it)."""
        answer = self.parts.session.read_only
        if answer is None or not answer.whole:
            return False
        self.parts.feedback.show(answer.message, error=True)
        return True


class ReadOnlyPolicy(WritablePolicy):
    """The demo: browse, search, read; nothing is written and no server is asked."""

    read_only = True
    #: Before the app's name: Qt adds the display name ("ikgui") to a title that does not
    #: end with it, and "… — ikgui demo (read-only)" was shown "… — ikgui" again.
    title_suffix = " (read-only demo)"

    def refuses(self) -> bool:
        return self._refused()

    def start(self) -> None:
        parts = self.parts
        parts.prompt.setReadOnly(True)
        parts.prompt.setPlaceholderText("This demo is read-only.")
        parts.working_editor.setReadOnly(True)  # (its banner is the window state's)

    def restrict(self) -> None:
        actions = self.parts.actions
        for action in actions.actions.values():
            action.setEnabled(action.objectName() in ("actionExport",))
        actions.model_selector.setEnabled(False)
        self.parts.send_button.setEnabled(False)


class ReadOnlyStorePolicy(WritablePolicy):
    """A store opened read-only: browse, search, export; other processes' changes show."""

    read_only = True
    title_suffix = " (read-only)"
    placeholder = "Your conversations are open read-only."

    def refuses(self) -> bool:
        return self._refused()

    def start(self) -> None:
        super().start()
        parts = self.parts
        parts.prompt.setReadOnly(True)
        parts.prompt.setPlaceholderText(self.placeholder)
        parts.working_editor.setReadOnly(True)

    def restrict(self) -> None:
        self.parts.actions.model_selector.setEnabled(False)
        self.parts.send_button.setEnabled(False)


def policy_for(answer: ReadOnly | None, parts: PolicyParts) -> WritablePolicy:
    """The policy that shows the session's answer (a closed or trashed conversation: the
    user's own window, with its strip)."""
    if answer is not None and answer.reason is Reason.DEMO:
        return ReadOnlyPolicy(parts)
    if answer is not None and answer.reason is Reason.STORE:
        return ReadOnlyStorePolicy(parts)
    return WritablePolicy(parts)
