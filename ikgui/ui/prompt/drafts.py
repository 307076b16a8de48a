"""The draft keeper (issue 22, item 8): a conversation's drafts — the message typed and
not sent (``draft``), the working prompt's unsaved edit (``prompt_draft``) and the edit
a Clear set aside behind "Restore unsaved edit" (``prompt_set_aside``) — are session
state kept with the conversation in the store, where a restart, the command line and
other machines see them.

Typing only marks a draft due; one write per pause (``DRAFT_MS``) goes through the
domain session, never one per keystroke. A draft the database does not take (a server
away, a full disk) stays due, and is written by the next :meth:`DraftKeeper.flush` that
reaches it (the window's poll calls it while drafts :attr:`~DraftKeeper.waits`).

A conversation not stored yet has no row: its drafts stay in the window's state
(``UNSAVED_KEYS``), as they always have. Windows before schema 5 kept the working
prompt's drafts of stored conversations there too (``OLD_KEYS``): :func:`carry_over`
moves them to the store once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject, QSettings, QTimer

from ikgui.domain.errors import IkguiError, StorageError

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session

#: Milliseconds of quiet typing before the drafts are written.
DRAFT_MS = 500

#: ``ui_state`` keys of a conversation not stored yet, by draft.
UNSAVED_KEYS: Final = {
    "draft": "draft_unsaved",
    "prompt_draft": "working_prompt/drafts/_unsaved",
    "prompt_set_aside": "working_prompt/cleared/_unsaved",
    "draft_files": "draft_files_unsaved",
}
#: ``ui_state`` groups where windows before schema 5 kept the working prompt's drafts,
#: one key per conversation id (``_unsaved`` is the conversation not stored yet).
OLD_KEYS: Final = {
    "prompt_draft": "working_prompt/drafts",
    "prompt_set_aside": "working_prompt/cleared",
}

_NONE: Final = object()


class DraftKeeper(QObject):
    """Keeps the open conversation's drafts; ``writable`` is ``False`` in a window that
    writes nothing (the demo)."""

    def __init__(
        self,
        session: Session,
        ui_state: QSettings,
        *,
        writable: Callable[[], bool] = lambda: True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.ui_state = ui_state
        self._writable = writable
        #: Drafts typed and not written yet, by conversation id.
        self._due: dict[str, dict[str, str | None]] = {}
        #: Whether a due draft met a database that did not take it (retried by ``flush``).
        self.waits = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DRAFT_MS)
        self.timer.timeout.connect(self.flush)

    def of_open(self, name: str) -> str | None:
        """The open conversation's draft ``name`` as kept (typed, stored, or in the
        window's state for a conversation not stored yet); ``None``: none."""
        session = self.session
        if not session.saved:
            key = UNSAVED_KEYS[name]
            state = self.ui_state
            return str(state.value(key, "", type=str)) if state.contains(key) else None
        due = self._due.get(session.conversation.id, {}).get(name, _NONE)
        if due is not _NONE:
            return due  # type: ignore[return-value]
        value: str | None = getattr(session.conversation, name, None)
        return value

    def keep(self, name: str, value: str | None, *, now: bool = False) -> None:
        """The open conversation's draft ``name`` is ``value`` now (``None``: none):
        written after a pause in typing (``now``: at once, e.g. a Clear's set-aside)."""
        session = self.session
        if not session.saved:
            key = UNSAVED_KEYS[name]
            if value is None:
                self.ui_state.remove(key)
            else:
                self.ui_state.setValue(key, value)
            return
        if not self._writable():
            return
        self._due.setdefault(session.conversation.id, {})[name] = value
        if now:
            self.flush()
        else:
            self.timer.start()

    def flush(self) -> None:
        """Write every due draft (the window calls this before it shows another
        conversation, and at closing)."""
        self.timer.stop()
        session = self.session
        for conv_id in list(self._due):
            drafts = self._due[conv_id]
            here = session.saved and conv_id == session.conversation.id
            if here and not self.waits:  # what is stored already costs no write
                drafts = {k: v for k, v in drafts.items() if v != getattr(session.conversation, k)}
            try:
                if drafts:
                    session.keep_drafts(conv_id, **drafts)
            except StorageError:  # (a server away too) kept: written when it takes them
                self.waits = True
                return
            except IkguiError:
                pass  # the conversation is gone, and its drafts with it
            else:
                if here and drafts and session.writes:  # kept in memory behind them
                    self.waits = True
                    return
            del self._due[conv_id]
        self.waits = False


def carry_over(session: Session, ui_state: QSettings) -> int:
    """Move the working prompt's drafts that windows before schema 5 kept in the
    window's state (``OLD_KEYS``) to the store, once: each key is removed when its
    draft is stored, or its conversation is gone. Returns the drafts moved."""
    moved = 0
    for name, group in OLD_KEYS.items():
        ui_state.beginGroup(group)
        try:
            keys = [k for k in ui_state.childKeys() if k != "_unsaved"]
            values = {k: str(ui_state.value(k, "", type=str)) for k in keys}
        finally:
            ui_state.endGroup()
        for conv_id, text in values.items():
            try:
                stored = session.store.get_conversation(conv_id)
                if stored is not None and getattr(stored, name) is None:
                    session.keep_drafts(conv_id, **{name: text})
                    moved += 1
            except StorageError:
                continue  # the database is away: carried over at the next start
            except IkguiError:
                pass
            ui_state.remove(f"{group}/{conv_id}")
    return moved
