"""The domain's errors; their ``str()`` is the one line the user sees.

- ``IkguiError``: base of everything the user may be shown.
  - ``UserError`` (exit 1): not found, ambiguous ref, nothing to continue, refused action.
    - ``NotFoundError``, ``AmbiguousRefError``, ``ClosedError`` (a closed branch),
      ``TrashedError`` (in the Trash)
  - ``UsageError`` (exit 2): a malformed command or argument.
  - ``ProviderError`` (exit 3): the model could not be reached or refused. Its
    ``message`` is the command line's sentence; ``window_text`` the window's (the same
    facts, the remedy in the window's words: :mod:`ikgui.domain.text.advice`).
  - ``StorageError``: the database cannot be opened, migrated or written.
    - ``DatabaseUnreachable``: the database server cannot be reached (now or any more).
"""

from __future__ import annotations

from ikgui.domain.text.advice import Advice, join


class IkguiError(Exception):
    exit_code = 1
    #: A second line for the command line: what to do about it (or ``None``).
    hint: str | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    @property
    def line(self) -> str:
        """The one line shown to the user: ``Error: <message>``."""
        return f"Error: {self.message}"


class UserError(IkguiError):
    exit_code = 1


class NotFoundError(UserError):
    pass


class ClosedError(UserError):
    """A closed branch (``/kill``) is read-only until it is reopened."""

    def __init__(self, conv_id: str) -> None:
        super().__init__(f"Conversation is closed: {conv_id}")
        self.conv_id = conv_id
        self.hint = f"Hint: reopen it with /reopen or `ikgui conv reopen {conv_id}`"


class TrashedError(UserError):
    """A conversation in the Trash is read-only until it is restored: what it is sent
    would be deleted for good with it when the Trash is emptied."""

    def __init__(self, conv_id: str) -> None:
        super().__init__(f"Conversation is in the Trash: {conv_id}")
        self.conv_id = conv_id
        self.hint = f"Hint: restore it with `ikgui conv restore {conv_id}`"


class AmbiguousRefError(UserError):
    pass


class UsageError(IkguiError):
    exit_code = 2


class ProviderError(IkguiError):
    """``what`` happened (the facts) and, when the user can act, the ``advice``."""

    exit_code = 3

    def __init__(
        self,
        what: str,
        category: str = "provider",
        status: int | None = None,
        retry_after: float | None = None,
        advice: Advice | None = None,
    ) -> None:
        super().__init__(join(what, advice.text("cli")) if advice else what)
        self.what = what
        self.category = category
        self.status = status
        self.retry_after = retry_after
        self.advice = advice

    @property
    def window_text(self) -> str:
        """The sentence the window shows: the remedy names the window's controls."""
        return join(self.what, self.advice.text("window")) if self.advice else self.what

    def event_data(self) -> dict[str, object]:
        """What the ``error`` event stores beside the sentence (SPEC §3)."""
        data: dict[str, object] = {"category": self.category, "status": self.status}
        if self.retry_after is not None:
            data["retry_after"] = self.retry_after
        if self.advice is not None:
            data["advice"] = self.advice.key
            data["facts"] = dict(self.advice.facts)
        return data


class ToolRoundsError(ProviderError):
    """The model kept asking for tools past ``[limits] tool_rounds`` (SPEC §12: exit 1)."""

    exit_code = 1

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"Stopped after {limit} rounds of tool calls ([limits] tool_rounds).", "limit"
        )


class StorageError(IkguiError):
    """``reason`` is the cause in plain words without the database's name ("the disk is
    full: no room left in /home/me")."""

    exit_code = 1

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


class DatabaseUnreachable(StorageError):
    """The database server cannot be reached (refused, unknown host, timed out, or the
    connection was lost). ``where`` is "host:port"; the store retries by itself on its
    next call."""

    def __init__(self, where: str, reason: str | None = None) -> None:
        message = f"Cannot reach the database at {where}" + (f" ({reason})" if reason else "")
        super().__init__(message, reason)
        self.where = where
