"""Read-only: one answer of the session, with its reason, that the domain enforces and
the window and the command line only show.

There are two sizes of it:

- the whole session writes nothing: the demo (browse, search, read; thrown away on
  closing) and a database opened read-only (its disk is full, its folder or file cannot
  be written). Sending, editing the working prompt and every command that writes — also
  those that act on other conversations (rename, Trash, reopen…) — are refused;
- the open conversation takes no input: a closed branch, a conversation in the Trash
  (:mod:`ikgui.domain.session.closing`). Commands that only show, switch or act on other
  conversations (``when_closed``) still run.

:func:`read_only` gives the answer (``None``: the session may write); :func:`refusal`
says what a command meets.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ikgui.domain.errors import ClosedError, TrashedError, UserError
from ikgui.domain.events import Conversation
from ikgui.domain.session import closing

#: Commands that write nothing anywhere: they still run when the whole session is
#: read-only (the others that may run in a closed branch write elsewhere).
SHOWING = frozenset(
    {"help", "branches", "export", "load", "new", "quit", "sessions", "stop", "tree"}
)


class Reason(StrEnum):
    DEMO = "demo"
    STORE = "store"
    CLOSED = "closed"
    TRASHED = "trashed"


@dataclass(frozen=True)
class ReadOnly:
    """Why the session (or its open conversation) writes nothing."""

    reason: Reason
    #: The store's own words (a full disk…), or the conversation's id.
    detail: str = ""

    @property
    def whole(self) -> bool:
        """Whether nothing at all is written (not only the open conversation's log)."""
        return self.reason in (Reason.DEMO, Reason.STORE)

    @property
    def message(self) -> str:
        """What a refusal says, in the user's words."""
        if self.reason is Reason.DEMO:
            return "The demo is read-only: open your own conversations to try this."
        if self.reason is Reason.STORE:
            return f"Your conversations are open read-only: {self.detail}."
        return self.error().message

    def error(self) -> UserError:
        """The error a refused change raises (the closed and trashed ones keep theirs)."""
        if self.reason is Reason.CLOSED:
            return ClosedError(self.detail)
        if self.reason is Reason.TRASHED:
            return TrashedError(self.detail)
        return UserError(self.message)


DEMO = ReadOnly(Reason.DEMO)


def read_only(locked: ReadOnly | None, conversation: Conversation, saved: bool) -> ReadOnly | None:
    """The session's answer: ``locked`` (the demo, a read-only store) first, then the
    open conversation's own (the Trash is said first: restoring is the first step back)."""
    if locked is not None:
        return locked
    if saved and closing.is_trashed(conversation):
        return ReadOnly(Reason.TRASHED, conversation.id)
    if saved and closing.is_closed(conversation):
        return ReadOnly(Reason.CLOSED, conversation.id)
    return None


def store_lock(store: object) -> ReadOnly | None:
    """A store opened read-only says why (``read_only``, a sentence), else ``None``."""
    why = getattr(store, "read_only", None)
    return ReadOnly(Reason.STORE, why) if isinstance(why, str) and why else None


def refusal(answer: ReadOnly | None, command: str, when_closed: bool) -> UserError | None:
    """The error running ``command`` meets now (``None``: it may run)."""
    if answer is None:
        return None
    if answer.whole:
        return None if command in SHOWING else answer.error()
    return None if when_closed else answer.error()


def refuse(answer: ReadOnly | None) -> None:
    """Raise if the session may not take input now (sending, editing the prompt)."""
    if answer is not None:
        raise answer.error()
