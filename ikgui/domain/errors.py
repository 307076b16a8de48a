"""The domain's errors; their ``str()`` is the one line the user sees.

- ``IkguiError``: base of everything the user may be shown.
  - ``UserError`` (exit 1): not found, ambiguous ref, nothing to continue, refused action.
    - ``NotFoundError``, ``AmbiguousRefError``, ``ClosedError`` (a closed branch)
  - ``UsageError`` (exit 2): a malformed command or argument.
  - ``ProviderError`` (exit 3): the model could not be reached or refused.
  - ``StorageError``: the database cannot be opened, migrated or written.
"""

from __future__ import annotations


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


class AmbiguousRefError(UserError):
    pass


class UsageError(IkguiError):
    exit_code = 2


class ProviderError(IkguiError):
    exit_code = 3

    def __init__(
        self,
        message: str,
        category: str = "provider",
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.category = category
        self.status = status
        self.retry_after = retry_after


class StorageError(IkguiError):
    """``reason`` is the cause in plain words without the database's name ("the disk is
    full: no room left in /home/me")."""

    exit_code = 1

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message
