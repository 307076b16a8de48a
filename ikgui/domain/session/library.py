"""The library: operations on any conversation, not just the open one (the sidebar's
rename, tags, Trash and restore; cleaning the Trash; export and import).

The rules themselves are :mod:`ikgui.domain.library.conversations` and
:mod:`ikgui.domain.library.exchange`; this wires them to the open conversation, which
takes the new fields of the one on screen and tells each change (``Changed``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import Conversation
from ikgui.domain.library import conversations as library
from ikgui.domain.library import exchange
from ikgui.domain.library.importing import ImportResult
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.state.changes import Changes
from ikgui.domain.state.ids import normalize_tags

#: A row that appeared or went.
LISTED = frozenset({"listed"})


class Library:
    def __init__(self, current: OpenConversation) -> None:
        self.current = current
        self.store = current.store

    def rename(self, conv_id: str, title: str) -> Conversation:
        return self.current.adopt(library.rename(self.store, conv_id, title), "title")

    def set_tags(self, conv_id: str, tags: list[str]) -> Conversation:
        """Replace a conversation's tags (each normalized; raises on a bad one)."""
        self.store.set_tags(conv_id, normalize_tags(tags))
        conv = self.store.get_conversation(conv_id)
        if conv is None:
            raise NotFoundError(f"Conversation not found: {conv_id}")
        return self.current.adopt(conv, "tags")

    def retag(self, conv_id: str, changes: list[str]) -> Conversation:
        """Apply ``+a -b`` changes atomically (see
        :func:`ikgui.domain.library.conversations.retag`)."""
        return self.current.adopt(library.retag(self.store, conv_id, changes), "tags")

    def retag_many(self, conv_ids: list[str], changes: list[str]) -> list[Conversation]:
        """``+a -b`` changes to several conversations at once (one transaction)."""
        changed = library.retag_many(self.store, conv_ids, changes)
        return [self.current.adopt(conv, "tags") for conv in changed]

    def trash_many(self, conv_ids: list[str]) -> list[Conversation]:
        """Move several conversations to the Trash at once (one transaction). Only the one
        on screen is announced: the caller reloads its list once, not row by row."""
        changed = library.trash_many(self.store, conv_ids, self.current.clock())
        for conv in changed:
            if conv.id == self.current.conversation.id:
                self.current.adopt(conv, "trash")
        return changed

    def pin(self, conv_ids: list[str]) -> list[Conversation]:
        """Pin several conversations at once (one transaction)."""
        return [self.current.adopt(c, "pinned") for c in library.pin(self.store, conv_ids)]

    def unpin(self, conv_ids: list[str]) -> list[Conversation]:
        """Unpin several conversations at once (one transaction)."""
        return [self.current.adopt(c, "pinned") for c in library.unpin(self.store, conv_ids)]

    def rename_tag(self, old: str, new: str) -> library.TagEdit:
        """Rename (or merge) a tag everywhere (see
        :func:`ikgui.domain.library.conversations.rename_tag`);
        the conversation on screen takes its new tags. Returns what changed."""
        changed = library.rename_tag(self.store, old, new)
        self._reread_current()
        return changed

    def delete_tag(self, name: str) -> library.TagEdit:
        """Remove a tag everywhere (see :func:`ikgui.domain.library.conversations.delete_tag`)."""
        changed = library.delete_tag(self.store, name)
        self._reread_current()
        return changed

    def undo_tag_edit(self, edit: library.TagEdit) -> int:
        """Reverse a rename, merge or delete (see
        :func:`ikgui.domain.library.conversations.undo_tag_edit`)."""
        restored = library.undo_tag_edit(self.store, edit)
        self._reread_current()
        return restored

    def _reread_current(self) -> None:
        conv = self.store.get_conversation(self.current.conversation.id)
        if conv is not None:
            self.current.adopt(conv, "tags")

    def trash(self, conv_id: str) -> Conversation:
        conv = library.trash(self.store, conv_id, self.current.clock())
        return self.current.adopt(conv, "trash")

    def restore(self, conv_id: str) -> Conversation:
        return self.current.adopt(library.restore(self.store, conv_id), "trash")

    def restore_all(self, conv_ids: list[str]) -> list[Conversation]:
        """Restore a selection from the Trash, in one transaction."""
        return [self.current.adopt(c, "trash") for c in library.restore_all(self.store, conv_ids)]

    def clean(
        self, older_than: float = 0.0, with_forks: bool = False
    ) -> tuple[list[str], list[str]]:
        """Remove Trash entries for good (see :func:`ikgui.domain.library.conversations.clean`)."""
        removed = library.clean(self.store, self.current.clock(), older_than, with_forks)
        for conv_id in removed[0]:  # (gone: no fields to carry)
            self.current.apply(Changes(conv_id, also=LISTED, fields_known=False))
        return removed

    def export(self, conv_id: str, fmt: str, path: Path) -> Path:
        return exchange.write_export(self.store, conv_id, fmt, path)

    def import_document(self, document: Any) -> ImportResult:
        result = exchange.import_document(self.store, document, self.current.clock())
        for conv_id in result.ids:
            self.current.apply(Changes(conv_id, also=LISTED, fields_known=False))
        return result
