"""``PeeweeStore``: the domain's ``Store`` port on one database, SQLite or PostgreSQL.

The hot queries are SQL (:mod:`ikgui.storage.queries`), every other query is built with
peewee on the models of :mod:`ikgui.storage.models`, and rows are mapped by name
(``conversation_from_row``, ``event_from_row``); every write runs in ``atomic()`` (the
dialect's transaction, savepoints when nested), and every driver or peewee failure
surfaces as a ``StorageError`` in plain words; writes aimed at a missing conversation or
event raise ``NotFoundError``. What differs between the databases is the dialect's
(:mod:`ikgui.storage.dialect`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from peewee import Database

from ikgui.domain.attachments import StoredFile
from ikgui.domain.errors import NotFoundError
from ikgui.domain.events import Conversation, SearchHit
from ikgui.domain.folders import Project, SmartFolder
from ikgui.domain.library.listing import ListingRow
from ikgui.domain.ports import STATUSES, UPDATABLE
from ikgui.storage import counts, listing, queries
from ikgui.storage import files as files_sql
from ikgui.storage import folders as folders_sql
from ikgui.storage import search as fts
from ikgui.storage import tags as tags_sql
from ikgui.storage.dialect_sqlite import SqliteDialect
from ikgui.storage.events import EventStore
from ikgui.storage.models import (
    ConversationRow,
    EventRow,
    TagRow,
    conversation_values,
    normalize_tags,
)
from ikgui.storage.queries import chunks, execute_query

#: Ids per ``IN (...)`` list when deleting many conversations.
_CHUNK = 500


class PeeweeStore(EventStore):
    """The event log and conversation index in one database (see ``ikgui.domain.ports``)."""

    # -- attachments (SPEC §13; the SQL is ikgui.storage.files) ---------------------------
    def put_files(self, files: Sequence[StoredFile]) -> None:
        if not files:
            return
        with self._writing() as db:
            files_sql.put(db, files, time.time(), fresh=True)

    def has_files(self, shas: Sequence[str]) -> set[str]:
        if not shas:
            return set()
        with self._reading() as db:
            return files_sql.stored(db, shas)

    def read_files(self, shas: Sequence[str]) -> dict[str, StoredFile]:
        if not shas:
            return {}
        # A send's worker thread: a connection of its own for this read, closed after
        # (the caller's thread keeps the one it has).
        passing = self._db.is_closed()
        try:
            with self._reading() as db:
                return files_sql.read(db, shas)
        finally:
            if passing:
                self._db.close()

    def remove_unreferenced_files(self) -> int:
        """(Files put for a draft in the last hour are left: see ``files.DRAFT_GRACE``.)"""
        with self._writing() as db:
            return files_sql.remove_unreferenced(db)

    def stored_file_bytes(self) -> int:
        """The bytes of every stored file, once each (what attachments cost the store)."""
        with self._reading() as db:
            return files_sql.total_bytes(db)

    # -- conversations ---------------------------------------------------------------

    def conversation_exists(self, conv_id: str) -> bool:
        with self._reading() as db:
            return queries.CONVERSATION_EXISTS.run(db, conv_id).fetchone() is not None

    def insert_conversation(self, conv: Conversation) -> None:
        if conv.status not in STATUSES:
            raise ValueError(f"Unknown conversation status: {conv.status}")
        values = conversation_values(conv)
        tags = normalize_tags(conv.tags)
        with self._writing() as db:
            ConversationRow.insert(values).execute(db)
            if conv.parent is not None:
                counts.carry(db, [conv.id])
            if tags:
                TagRow.insert_many([{"conversation": conv.id, "name": t} for t in tags]).execute(db)
            self.dialect.set_title(db, conv.id, conv.title, new=True)

    def get_conversation(self, conv_id: str) -> Conversation | None:
        with self._reading() as db:
            return listing.by_id(db, conv_id)

    def get_conversations(self, conv_ids: Sequence[str]) -> dict[str, Conversation]:
        if not conv_ids:
            return {}
        with self._reading() as db:
            return listing.by_ids_chunked(db, conv_ids)

    def find_by_suffix(self, ref: str) -> list[str]:
        if not ref:
            return []
        query = (
            ConversationRow.select(ConversationRow.id)
            .where(ConversationRow.id.endswith(ref))
            .order_by(ConversationRow.id)
        )
        with self._reading() as db:
            found = [r[0] for r in execute_query(db, query).fetchall()]
        return [i for i in found if i.endswith(ref)]  # LIKE is case-blind on SQLite

    def update_conversation(self, conv_id: str, **changes: Any) -> None:
        unknown = sorted(set(changes) - UPDATABLE)
        if unknown:
            raise ValueError(f"Unknown conversation field: {', '.join(unknown)}")
        if "status" in changes and changes["status"] not in STATUSES:
            raise ValueError(f"Unknown conversation status: {changes['status']}")
        if not changes:
            return
        values: dict[Any, Any] = {}
        for name, value in changes.items():
            if name == "title_by_user":
                value = int(bool(value))
            elif name == "draft":
                value = value or ""
            values[getattr(ConversationRow, name)] = value
        with self._writing() as db:
            query = ConversationRow.update(values).where(ConversationRow.id == conv_id)
            if not query.execute(db):
                raise NotFoundError(f"Conversation not found: {conv_id}")
            if "title" in changes:
                self.dialect.set_title(db, conv_id, changes["title"], new=False)

    def set_pinned(self, conv_ids: Sequence[str], pinned: bool) -> int:
        ids = list(dict.fromkeys(conv_ids))
        changed = 0
        with self._writing() as db:
            for conv_id in ids:
                self._require(conv_id)
            for conv_id in ids:
                changed += (
                    ConversationRow.update(pinned=int(pinned))
                    .where(
                        (ConversationRow.id == conv_id) & (ConversationRow.pinned != int(pinned))
                    )
                    .execute(db)
                )
        return changed

    def set_tags(self, conv_id: str, tags: Sequence[str]) -> None:
        names = normalize_tags(tags)
        with self._writing() as db:
            self._require(conv_id)
            tags_sql.replace(db, conv_id, names)

    def change_tags(self, conv_id: str, add: Sequence[str], remove: Sequence[str]) -> None:
        added, removed = normalize_tags(add), normalize_tags(remove)
        with self._writing() as db:
            self._require(conv_id)
            tags_sql.change(db, conv_id, added, removed)

    def add_usage(self, conv_id: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        with self._writing() as db:
            query = ConversationRow.update(
                {
                    ConversationRow.tokens_input: ConversationRow.tokens_input + input_tokens,
                    ConversationRow.tokens_output: ConversationRow.tokens_output + output_tokens,
                    ConversationRow.cost: ConversationRow.cost + cost,
                }
            ).where(ConversationRow.id == conv_id)
            if not query.execute(db):
                raise NotFoundError(f"Conversation not found: {conv_id}")

    def children(self, conv_id: str) -> list[Conversation]:
        with self._reading() as db:
            return listing.children(db, conv_id)

    def children_of(self, conv_ids: Sequence[str]) -> dict[str, list[Conversation]]:
        if not conv_ids:
            return {}
        with self._reading() as db:
            return listing.children_of(db, conv_ids)

    def last_conversation(self, agent: str | None = None) -> Conversation | None:
        found = self.list_conversations(1, agent=agent)
        return found[0] if found else None

    def delete_conversations(self, conv_ids: Sequence[str]) -> None:
        """Remove rows for good. Forks left behind (not in ``conv_ids``) become roots; the
        files no other event and no draft refers to go with them."""
        ids = list(dict.fromkeys(conv_ids))
        if not ids:
            return
        doomed = set(ids)
        detached: list[str] = []
        with self._writing() as db:
            self.dialect.unindex_conversations(db, ids)
            shared = files_sql.of_conversations(db, ids)
            files_sql.unlink_conversations(db, ids)
            for chunk in chunks(ids, _CHUNK):
                TagRow.delete().where(TagRow.conversation.in_(chunk)).execute(db)
                EventRow.delete().where(EventRow.conversation.in_(chunk)).execute(db)
                orphans = ConversationRow.select(ConversationRow.id).where(
                    ConversationRow.parent.in_(chunk)
                )
                freed = [r[0] for r in execute_query(db, orphans).fetchall() if r[0] not in doomed]
                detached.extend(freed)
                if freed:
                    ConversationRow.update(parent=None, fork_event_id=None).where(
                        ConversationRow.id.in_(freed)
                    ).execute(db)
            for chunk in chunks(ids, _CHUNK):
                # Forks among the doomed point at each other: unlink before deleting.
                ConversationRow.update(parent=None).where(
                    ConversationRow.id.in_(chunk) & ConversationRow.parent.is_null(False)
                ).execute(db)
            for chunk in chunks(ids, _CHUNK):
                ConversationRow.delete().where(ConversationRow.id.in_(chunk)).execute(db)
            if detached:  # they and their forks carry less now
                counts.carry(db, counts.family(db, detached))
            if shared:  # the files only these referred to go with them
                files_sql.remove_unreferenced(db, shared)

    def _require(self, conv_id: str) -> None:
        if not self.conversation_exists(conv_id):
            raise NotFoundError(f"Conversation not found: {conv_id}")

    # -- read-only views -----------------------------------------------------------------

    def _load(self, conv_ids: Sequence[str]) -> dict[str, Conversation]:
        with self._reading() as db:
            return listing.by_ids(db, conv_ids)

    def list_conversations(
        self,
        limit: int | None = None,
        *,
        agent: str | None = None,
        tag: str | None = None,
        trashed: bool = False,
        before: tuple[float, str] | None = None,
        tags: Sequence[str] = (),
        pinned: bool | None = None,
        after: tuple[float, str] | None = None,
        oldest_first: bool = False,
    ) -> list[Conversation]:
        if limit is not None and limit <= 0:
            return []
        names = tags_sql.wanted(tag, tags)
        with self._reading() as db:
            return listing.listing(
                db, limit, agent, names, trashed, before, pinned, after, oldest_first
            )

    def listing_rows(
        self,
        limit: int | None = None,
        *,
        agent: str | None = None,
        trashed: bool = False,
        tags: Sequence[str] = (),
    ) -> list[ListingRow]:
        """``list_conversations``' conversations as the listing table shows them (``ikgui
        conv list``: a third of the columns and no tags are read)."""
        if limit is not None and limit <= 0:
            return []
        names = tags_sql.wanted(None, tags)
        with self._reading() as db:
            return listing.table(db, limit, agent, names, trashed, None, None)

    def search(self, words: str, limit: int = 50) -> list[SearchHit]:
        terms = fts.words_of(words)
        if not terms or limit <= 0:
            return []
        with self._reading() as db:
            return fts.hits(self.dialect, db, terms, limit, self._load)

    def all_tags(self) -> list[str]:
        query = TagRow.select(TagRow.name).distinct().order_by(TagRow.name)
        with self._reading() as db:
            return [r[0] for r in execute_query(db, query).fetchall()]

    # -- tags across conversations (the queries are ikgui.storage.tags) ----------------

    def tag_counts(
        self, within: Sequence[str] = (), *, trashed: bool | None = False
    ) -> list[tuple[str, int]]:
        with self._reading() as db:
            return tags_sql.counts(db, within, trashed)

    def rename_tag(self, old: str, new: str) -> int:
        with self._writing() as db:
            return tags_sql.rename(db, old, new)

    def delete_tag(self, name: str) -> int:
        with self._writing() as db:
            return tags_sql.delete(db, name)

    def tagged(self, name: str) -> list[str]:
        with self._reading() as db:
            return tags_sql.holders(db, name)

    def add_tag(self, conv_ids: Sequence[str], name: str) -> int:
        with self._writing() as db:
            return tags_sql.add(db, conv_ids, name)

    def remove_tag(self, conv_ids: Sequence[str], name: str) -> int:
        with self._writing() as db:
            return tags_sql.remove(db, conv_ids, name)

    # -- folders, smart folders and projects (SPEC §15; ikgui.storage.folders) ---------

    def folder_counts(self, *, trashed: bool = False) -> list[tuple[str, int]]:
        with self._reading() as db:
            return tags_sql.folder_counts(db, trashed)

    def tags_under(self, folder: str) -> list[str]:
        with self._reading() as db:
            return tags_sql.under(db, folder)

    def folder_members(self, folder: str) -> dict[str, list[str]]:
        with self._reading() as db:
            return tags_sql.members(db, folder)

    def move_tags(self, old: str, new: str) -> dict[str, tuple[list[str], list[str]]]:
        with self._writing() as db:
            return tags_sql.move(db, old, new)

    def change_tag_pairs(
        self, remove: Sequence[tuple[str, str]], add: Sequence[tuple[str, str]]
    ) -> int:
        with self._writing() as db:
            return tags_sql.change_pairs(db, remove, add)

    def count_conversations(self, tags: Sequence[str] = (), *, trashed: bool = False) -> int:
        names = tags_sql.wanted(None, tags)
        with self._reading() as db:
            return tags_sql.count(db, names, trashed)

    def smart_folders(self) -> list[SmartFolder]:
        with self._reading() as db:
            return folders_sql.smart_folders(db)

    def put_smart_folder(self, folder: SmartFolder, replacing: str | None = None) -> None:
        with self._writing() as db:
            folders_sql.put_smart_folder(db, folder, replacing, time.time())

    def delete_smart_folder(self, name: str) -> bool:
        with self._writing() as db:
            return folders_sql.delete_smart_folder(db, name)

    def projects(self, folders: Sequence[str] | None = None) -> list[Project]:
        with self._reading() as db:
            return folders_sql.projects(db, folders)

    def put_project(self, project: Project) -> None:
        with self._writing() as db:
            folders_sql.put_project(db, project, time.time())

    def delete_project(self, folder: str) -> bool:
        with self._writing() as db:
            return folders_sql.delete_project(db, folder)


class SqliteStore(PeeweeStore):
    """The store on one SQLite file (``read_only``: why writes are refused, if they are)."""

    def __init__(self, db: Database, path: Path, read_only: str | None = None) -> None:
        super().__init__(db, SqliteDialect(path), read_only)
