"""The Trash view's Empty Trash, carried out (issue 12, item 8): the bar asked and the
user confirmed; the Trash is removed for good in one transaction, as ``ikgui conv
clean`` does (a conversation whose forks outside the Trash still inherit from it is
kept, and the user is told why)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.ui.plain import line as safe_line

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.sidebar.panel import ConversationSidebar
    from ikgui.ui.window.collaborators import Feedback, Runner


def empty_trash(
    session: Session, runner: Runner, sidebar: ConversationSidebar, feedback: Feedback
) -> None:
    result = runner.guard(session.library.clean)
    if result is None:
        return
    removed, refusals = result
    sidebar.reload()
    noun = "conversation" if len(removed) == 1 else "conversations"
    text = f"Deleted {len(removed)} {noun} for good"
    if refusals:
        feedback.show("\n".join([text + ".", *refusals]), error=True)
    else:
        feedback.status(safe_line(text), 6000)
