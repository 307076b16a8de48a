"""The library: operations on any conversation, not just the open one (the sidebar's
rename, tags, Trash and restore; cleaning the Trash; export and import).

The rules themselves are :mod:`ikgui.domain.library.conversations` and
:mod:`ikgui.domain.library.exchange`; this wires them to the open conversation, which
takes the new fields of the one on screen and tells each change (``Changed``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from ikgui.domain.attachments import StoredFile
from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import Conversation
from ikgui.domain.folders import Project, SmartFolder, is_under, moved
from ikgui.domain.library import conversations as library
from ikgui.domain.library import exchange
from ikgui.domain.library import folders as folder_ops
from ikgui.domain.library.importing import ImportResult
from ikgui.domain.ports import Store
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.state.changes import Changes, StoreWrite
from ikgui.domain.state.ids import normalize_tag, normalize_tags
from ikgui.domain.state.rules import user_title_fields

T = TypeVar("T")


def _setting(conv_id: str, fields: dict[str, Any]) -> Callable[[Store], None]:
    """A write of ``fields`` that reads nothing back."""

    def call(store: Store) -> None:
        store.update_conversation(conv_id, **fields)

    return call


#: A row that appeared or went.
LISTED = frozenset({"listed"})
#: Projects' settings changed (set, or moved with their folders): the session reads
#: them again, and the conversation on screen takes its project's anew.
PROJECT = frozenset({"project"})


class Library:
    def __init__(self, current: OpenConversation) -> None:
        self.current = current
        self.store = current.store

    def _one(
        self,
        conv_id: str,
        aspect: str,
        what: str,
        reading: Callable[[Store], Conversation],
        fields: dict[str, Any] | None = None,
    ) -> Conversation:
        """Change conversation ``conv_id`` through the open conversation's ``apply``:
        ``reading`` writes the change and returns the row as stored; ``fields`` (when the
        change is exactly these fields) let the open conversation change without reading
        its row again."""
        current = self.current
        aspects = frozenset({aspect})
        if fields is not None and current.saved and conv_id == current.conversation.id:
            if any(getattr(current.conversation, k) != v for k, v in fields.items()):
                write = StoreWrite((conv_id,), what, _setting(conv_id, fields), aspects)
                current.apply(Changes(conv_id, fields=fields, also=aspects, writes=(write,)))
            return current.conversation
        write = StoreWrite((conv_id,), what, reading, aspects)
        (row,) = current.apply(Changes(conv_id, also=aspects, writes=(write,)))
        return row if row is not None else self._as_stored(conv_id, fields)

    def _many(
        self,
        conv_ids: list[str],
        aspect: str,
        what: str,
        reading: Callable[[Store], list[Conversation]],
        told: Callable[[str], bool] = lambda _: True,
    ) -> list[Conversation]:
        """Change several conversations in one store call (one transaction); each of
        them ``told`` gets a ``Changed`` of its own."""
        aspects = frozenset({aspect})
        ids = list(dict.fromkeys(conv_ids))
        write = StoreWrite(tuple(ids), what, reading, aspects)
        changes = [Changes(i, also=aspects if told(i) else frozenset()) for i in ids]
        first, *others = changes or [Changes("", writes=(write,))]
        first = Changes(first.conversation_id, also=first.also, writes=(write,))
        (rows,) = self.current.apply(dataclasses.replace(first, others=tuple(others)))
        return list(rows) if rows is not None else [self._as_stored(i) for i in ids]

    def _as_stored(self, conv_id: str, fields: dict[str, Any] | None = None) -> Conversation:
        """A conversation whose change waits in the queue, as it will be stored."""
        if conv_id == self.current.conversation.id:
            return self.current.conversation
        conv = self.store.get_conversation(conv_id)
        if conv is None:
            raise NotFoundError(f"Conversation not found: {conv_id}")
        return dataclasses.replace(conv, **fields) if fields else conv

    def rename(self, conv_id: str, title: str) -> Conversation:
        fields = user_title_fields(title)
        return self._one(
            conv_id,
            "title",
            f"title: {fields['title'] or ''}",
            lambda store: library.rename(store, conv_id, title),
            fields,
        )

    def set_tags(self, conv_id: str, tags: list[str]) -> Conversation:
        """Replace a conversation's tags (each normalized; raises on a bad one)."""
        clean = normalize_tags(tags)

        def reading(store: Store) -> Conversation:
            store.set_tags(conv_id, clean)
            conv = store.get_conversation(conv_id)
            if conv is None:
                raise NotFoundError(f"Conversation not found: {conv_id}")
            return conv

        return self._one(conv_id, "tags", f"tags: {' '.join(clean)}", reading)

    def retag(self, conv_id: str, changes: list[str]) -> Conversation:
        """Apply ``+a -b`` changes atomically (see
        :func:`ikgui.domain.library.conversations.retag`)."""
        library.apply_tag_changes((), changes)  # a bad tag is refused before anything
        what = f"tags: {' '.join(changes)}"
        return self._one(
            conv_id, "tags", what, lambda store: library.retag(store, conv_id, changes)
        )

    def retag_many(self, conv_ids: list[str], changes: list[str]) -> list[Conversation]:
        """``+a -b`` changes to several conversations at once (one transaction)."""
        library.apply_tag_changes((), changes)
        return self._many(
            conv_ids,
            "tags",
            f"tags: {' '.join(changes)}",
            lambda store: library.retag_many(store, conv_ids, changes),
        )

    def trash_many(self, conv_ids: list[str]) -> list[Conversation]:
        """Move several conversations to the Trash at once (one transaction). Only the one
        on screen is told: the caller reloads its list once, not row by row."""
        now = self.current.clock()
        here = self.current.conversation.id
        return self._many(
            conv_ids,
            "trash",
            "moved to the Trash",
            lambda store: library.trash_many(store, conv_ids, now),
            lambda conv_id: conv_id == here,
        )

    def pin(self, conv_ids: list[str]) -> list[Conversation]:
        """Pin several conversations at once (one transaction)."""
        return self._many(conv_ids, "pinned", "pinned", lambda store: library.pin(store, conv_ids))

    def unpin(self, conv_ids: list[str]) -> list[Conversation]:
        """Unpin several conversations at once (one transaction)."""
        return self._many(
            conv_ids, "pinned", "unpinned", lambda store: library.unpin(store, conv_ids)
        )

    def rename_tag(self, old: str, new: str) -> library.TagEdit:
        """Rename (or merge) a tag everywhere (see
        :func:`ikgui.domain.library.conversations.rename_tag`), in one store call; the
        conversation on screen takes its new tags. Returns what changed."""
        source, target = normalize_tag(old), normalize_tag(new)
        return self._tag_edit(
            lambda store: library.rename_tag(store, old, new),
            lambda tags: {target if t == source else t for t in tags},
        )

    def delete_tag(self, name: str) -> library.TagEdit:
        """Remove a tag everywhere (see :func:`ikgui.domain.library.conversations.delete_tag`)."""
        tag = normalize_tag(name)
        return self._tag_edit(
            lambda store: library.delete_tag(store, name), lambda tags: set(tags) - {tag}
        )

    def undo_tag_edit(self, edit: library.TagEdit) -> int:
        """Reverse a rename, merge or delete (see
        :func:`ikgui.domain.library.conversations.undo_tag_edit`)."""
        here = self.current.conversation.id

        def undone(tags: tuple[str, ...]) -> set[str]:
            if here in edit.moved:
                return (set(tags) - {edit.new} if edit.new != edit.old else set(tags)) | {edit.old}
            return set(tags) | {edit.old} if here in edit.merged else set(tags)

        return self._tag_edit(lambda store: library.undo_tag_edit(store, edit), undone)

    def _tag_edit(
        self,
        call: Callable[[Store], T],
        tags: Callable[[tuple[str, ...]], Any],
        aspects: frozenset[str] = frozenset(),
    ) -> T:
        """A tag edit across every conversation is one store call (one transaction); of
        them, the conversation on screen is told its new tags (the window reloads its
        list once for the rest). It never waits in the queue: its answer (who had the
        tag) is what Undo gives back, so a store that refuses it refuses the edit."""
        current = self.current
        conv_id = current.conversation.id
        new = tuple(sorted(tags(current.conversation.tags)))
        here = current.saved and new != current.conversation.tags
        fields: dict[str, Any] = {"tags": new} if here else {}
        ids = (conv_id,) if here else ()
        write = StoreWrite(ids, "tags", call, frozenset({"tags"}) | aspects, may_wait=False)
        (result,) = current.apply(Changes(conv_id, fields=fields, writes=(write,)))
        return cast("T", result)

    # -- folders, smart folders and projects (SPEC §15) ---------------------------------

    def rename_folder(self, old: str, new: str) -> folder_ops.FolderEdit:
        """Rename or move a folder with every tag under it (see
        :func:`ikgui.domain.library.folders.rename_folder`); the conversation on screen
        takes its new tags. Returns what changed, for Undo."""
        source, target = normalize_tag(old), normalize_tag(new)
        return self._tag_edit(
            lambda store: folder_ops.rename_folder(store, old, new),
            lambda tags: {moved(t, source, target) for t in tags},
            PROJECT,
        )

    def delete_folder(self, name: str) -> folder_ops.FolderEdit:
        """Take a folder and every tag under it off every conversation, never the
        conversations (see :func:`ikgui.domain.library.folders.delete_folder`)."""
        folder = normalize_tag(name)
        return self._tag_edit(
            lambda store: folder_ops.delete_folder(store, name),
            lambda tags: {t for t in tags if not is_under(t, folder)},
            PROJECT,
        )

    def undo_folder_edit(self, edit: folder_ops.FolderEdit) -> int:
        """Reverse a folder's rename, move or delete (see
        :func:`ikgui.domain.library.folders.undo_folder_edit`)."""
        here = self.current.conversation.id

        def undone(tags: tuple[str, ...]) -> set[str]:
            now = set(tags)
            for e in edit.edits:
                if here in e.moved and e.new is not None and e.new != e.old:
                    now.discard(e.new)
            for e in edit.edits:
                if here in e.moved or here in e.merged:
                    now.add(e.old)
            return now

        return self._tag_edit(
            lambda store: folder_ops.undo_folder_edit(store, edit), undone, PROJECT
        )

    def _settings_write(
        self,
        what: str,
        call: Callable[[Store], T],
        aspects: frozenset[str] = frozenset(),
        here: bool = False,
    ) -> T:
        """A write of folders' settings (no conversation changes): through the one
        writer, never waiting in the queue (its answer is what the window shows).
        ``aspects``: what else it changes (a project's settings); the conversation on
        screen is told so when ``here``."""
        write = StoreWrite((), what, call, LISTED | aspects, may_wait=False)
        if here:
            changes = Changes(self.current.conversation.id, also=aspects, writes=(write,))
        else:
            changes = Changes("", writes=(write,), fields_known=False)
        (result,) = self.current.apply(changes)
        return cast("T", result)

    def save_smart_folder(self, name: str, search: str, tags: list[str]) -> SmartFolder:
        """Save the search and tag filter as a smart folder (replacing one so named)."""
        return self._settings_write(
            "smart folder", lambda store: folder_ops.save_smart_folder(store, name, search, tags)
        )

    def rename_smart_folder(self, old: str, new: str) -> SmartFolder:
        return self._settings_write(
            "smart folder", lambda store: folder_ops.rename_smart_folder(store, old, new)
        )

    def delete_smart_folder(self, name: str) -> SmartFolder:
        """Remove a smart folder; returns it (``restore_smart_folder`` puts it back)."""
        return self._settings_write(
            "smart folder", lambda store: folder_ops.delete_smart_folder(store, name)
        )

    def restore_smart_folder(self, folder: SmartFolder) -> SmartFolder:
        """Undo of a smart folder's delete: saved again as it was."""
        return self.save_smart_folder(folder.name, folder.search, list(folder.tags))

    def set_project(self, settings: Project) -> Project:
        """Keep a folder's project settings (files stored already: ``Store.put_files``
        through :meth:`put_project_files`); one that sets nothing removes the project."""
        folder = normalize_tag(settings.folder)
        # The conversation on screen follows its project's new settings (its tools).
        here = any(is_under(t, folder) for t in self.current.conversation.tags)
        return self._settings_write(
            "project",
            lambda store: folder_ops.set_project(store, settings),
            PROJECT,
            here,
        )

    def put_project_files(self, files: list[StoredFile]) -> None:
        """Store files a project's settings are about to refer to."""
        self._settings_write("project files", lambda store: store.put_files(files))

    def trash(self, conv_id: str) -> Conversation:
        now = self.current.clock()
        return self._one(
            conv_id,
            "trash",
            "moved to the Trash",
            lambda store: library.trash(store, conv_id, now),
        )

    def restore(self, conv_id: str) -> Conversation:
        return self._one(
            conv_id,
            "trash",
            "restored from the Trash",
            lambda store: library.restore(store, conv_id),
        )

    def restore_all(self, conv_ids: list[str]) -> list[Conversation]:
        """Restore a selection from the Trash, in one transaction."""
        return self._many(
            conv_ids,
            "trash",
            "restored from the Trash",
            lambda store: library.restore_all(store, conv_ids),
        )

    def clean(
        self, older_than: float = 0.0, with_forks: bool = False
    ) -> tuple[list[str], list[str]]:
        """Remove Trash entries for good (see :func:`ikgui.domain.library.conversations.clean`),
        through the one writer: it never waits in the queue (what it removed is its
        answer), so it is refused while changes wait to be written — they could be about
        the conversations it would remove. Each one removed is told (``listed``)."""
        now = self.current.clock()
        write = StoreWrite(
            (),
            "the Trash",
            lambda store: library.clean(store, now, older_than, with_forks),
            LISTED,
            may_wait=False,
        )
        removed, refused = self.current.apply(Changes("", writes=(write,), fields_known=False))[0]
        gone = [Changes(conv_id, also=LISTED, fields_known=False) for conv_id in removed]
        if gone:  # (gone: no fields to carry)
            self.current.apply(dataclasses.replace(gone[0], others=tuple(gone[1:])))
        return removed, refused

    def export(self, conv_id: str, fmt: str, path: Path) -> Path:
        return exchange.write_export(self.store, conv_id, fmt, path)

    def import_document(self, document: Any) -> ImportResult:
        result = exchange.import_document(self.store, document, self.current.clock())
        for conv_id in result.ids:
            self.current.apply(Changes(conv_id, also=LISTED, fields_known=False))
        return result
