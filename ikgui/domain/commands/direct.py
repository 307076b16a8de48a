"""The built-in commands run with values only (toolbar, menus, dialogs: no slash
form), and each command's "can it act now?" rule."""

from __future__ import annotations

from ikgui.domain.commands.registry import CommandResult
from ikgui.domain.session.session import Session


def tags_line(tags: tuple[str, ...] | list[str]) -> str:
    return "Tags: " + (", ".join(tags) if tags else "(none)")


def send(session: Session, text: str) -> CommandResult:
    """Send ``text`` as it is (never parsed: Retry, "edit and resend")."""
    return CommandResult(store=False, send=text)


def stop(session: Session, conversation: str | None = None) -> CommandResult:
    session.stop(conversation)
    return CommandResult(store=False)


def rename(session: Session, conversation: str, title: str) -> CommandResult:
    conv = session.library.rename(conversation, title)
    return CommandResult(f"Title: {conv.title or '(none)'}", store=False)


def set_tags(session: Session, conversation: str, tags: list[str]) -> CommandResult:
    conv = session.library.set_tags(conversation, list(tags))
    return CommandResult(tags_line(conv.tags), store=False)


def trash(session: Session, conversation: str) -> CommandResult:
    conv = session.library.trash(conversation)
    return CommandResult(f"Moved to the Trash: {conv.id}", store=False)


def restore(
    session: Session, conversations: list[str] | None = None, conversation: str | None = None
) -> CommandResult:
    """Restore a selection from the Trash (``conversations``), or one (``conversation``)."""
    ids = list(conversations or ()) + ([conversation] if conversation else [])
    restored = session.library.restore_all(ids)
    if len(restored) == 1:
        return CommandResult(f"Restored {restored[0].id}", store=False)
    return CommandResult(f"Restored {len(restored)} conversations", store=False)


def reopen(session: Session, ref: str | None = None) -> CommandResult:
    """``/reopen [ref]``: a closed branch takes input again (default: the open one)."""
    return CommandResult(f"Reopened {session.reopen(ref or None).id}")


# -- can it act now? ----------------------------------------------------------------
def has_marks(session: Session) -> bool:
    return bool(session.state.marks)


def can_fork(session: Session) -> bool:
    return session.saved and not session.streaming


def can_compare(session: Session) -> bool:
    return not session.streaming and session.read_only is None


def can_clear(session: Session) -> bool:
    return session.saved and bool(session.state.scrollback)


def has_parent(session: Session) -> bool:
    return session.conversation.parent is not None


def saved(session: Session) -> bool:
    return session.saved


def streaming(session: Session) -> bool:
    return session.streaming
