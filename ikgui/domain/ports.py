"""The ports the domain needs from the outside world (implemented by adapters).

``Store`` is implemented by :class:`ikgui.storage.repository.PeeweeStore`, on a SQLite
file or a PostgreSQL server (``ikgui.storage.open_store``). Every method is synchronous
(a local file, or a server answering in milliseconds); the async session calls it
directly. Every write is committed when the method returns (or when the outermost
``transaction()`` block ends). Any failure of the database is a ``StorageError`` in
plain words; ``DatabaseUnreachable`` (a ``StorageError``) when a server cannot be
reached, after which the store reconnects by itself on a later call.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ikgui.domain.attachments import StoredFile
from ikgui.domain.events import Conversation, Event, SearchHit
from ikgui.domain.folders import Project, SmartFolder

#: The fields of ``Conversation`` that ``Store.update_conversation`` may set (every store
#: refuses the others), and the statuses a conversation may have.
UPDATABLE = frozenset(
    {
        "title",
        "title_by_user",
        "agent",
        "provider",
        "model",
        "status",
        "trashed_at",
        "draft",
        "prompt_draft",
        "prompt_set_aside",
        "draft_files",
    }
)
STATUSES = frozenset({"active", "killed"})


class SendLock(Protocol):
    """One conversation's "a reply is being written" lock, shared by every process on
    the store (the window and ``ikgui run`` alike); released if its process dies."""

    def acquire(self) -> bool:
        """Take the lock if it is free; never waits. ``False`` while another holds it."""
        ...

    def release(self) -> None: ...


class Store(Protocol):
    # -- conversations -------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """A block whose writes commit together (nests)."""
        ...

    def conversation_exists(self, conv_id: str) -> bool: ...

    def insert_conversation(self, conv: Conversation) -> None:
        """Insert a new conversation row with all of ``conv``'s fields (tags too)."""
        ...

    def get_conversation(self, conv_id: str) -> Conversation | None: ...

    def get_conversations(self, conv_ids: Sequence[str]) -> dict[str, Conversation]:
        """``get_conversation`` of many, in one query (those that do not exist are left
        out): e.g. the parents of a page of the sidebar's rows."""
        ...

    def find_by_suffix(self, ref: str) -> list[str]:
        """Ids equal to ``ref`` or ending with it (any status), sorted."""
        ...

    def update_conversation(self, conv_id: str, **changes: Any) -> None:
        """Set fields by name: title, title_by_user, agent, provider, model, status,
        trashed_at, draft, prompt_draft, prompt_set_aside. Unknown names raise
        ``ValueError``."""
        ...

    def set_tags(self, conv_id: str, tags: Sequence[str]) -> None:
        """Replace the conversation's tags (already normalized by the caller)."""
        ...

    def change_tags(self, conv_id: str, add: Sequence[str], remove: Sequence[str]) -> None:
        """Add ``add`` and remove ``remove`` (normalized, none in both), keeping the
        conversation's other tags: costs what changes, not what the conversation has."""
        ...

    def add_usage(self, conv_id: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        """Add to the conversation's token and cost totals."""
        ...

    def children(self, conv_id: str) -> list[Conversation]:
        """Direct forks of a conversation (any status), oldest first."""
        ...

    def children_of(self, conv_ids: Sequence[str]) -> dict[str, list[Conversation]]:
        """``children`` of each of ``conv_ids`` (each one a key), in one query."""
        ...

    def last_conversation(self, agent: str | None = None) -> Conversation | None:
        """The most recently updated conversation not in the Trash (of ``agent`` if given)."""
        ...

    def set_pinned(self, conv_ids: Sequence[str], pinned: bool) -> int:
        """Pin or unpin every one of ``conv_ids`` in one transaction (``updated_at`` is
        kept); returns how many changed. Raises ``NotFoundError`` (nothing changed) when
        one does not exist."""
        ...

    def delete_conversations(self, conv_ids: Sequence[str]) -> None:
        """Remove rows for good: the conversations, their events, tags and index entries."""
        ...

    # -- events --------------------------------------------------------------
    def append_event(
        self,
        conv_id: str,
        kind: str,
        content: str = "",
        data: dict[str, Any] | None = None,
        created_at: float | None = None,
        files: Sequence[StoredFile] = (),
    ) -> Event:
        """Append one event (id from the global sequence, ``created_at`` now unless
        given), bump the conversation's ``updated_at`` (to the event's time), store the
        counts :func:`ikgui.domain.state.tally.after` computes (with the event and on the
        conversation, in the same transaction), and index its text for search (with the
        names of the files ``data["attachments"]`` lists and their text). ``files``: the
        bytes of files it lists that may not be stored yet, stored (once per hash) in the
        same transaction."""
        ...

    # -- attachments (SPEC §13) ------------------------------------------------
    def put_files(self, files: Sequence[StoredFile]) -> None:
        """Store files a draft refers to before any event lists them (an image pasted
        into a draft); a file stored already is left as it is."""
        ...

    def has_files(self, shas: Sequence[str]) -> set[str]:
        """Which of ``shas`` are stored."""
        ...

    def read_files(self, shas: Sequence[str]) -> dict[str, StoredFile]:
        """The stored files of ``shas`` (those not stored are left out). Safe to call
        from a worker thread: a send reads its files there, never on the window's loop.
        The returned ``StoredFile.attachment.name`` is the first name it was stored
        under (an event's own ``data["attachments"]`` names it as that message did)."""
        ...

    def remove_unreferenced_files(self) -> int:
        """Remove the files no event and no conversation's ``draft_files`` refers to any
        more (after emptying the Trash, ``conv clean``); returns how many."""
        ...

    def update_event(self, event_id: int, content: str, data: dict[str, Any] | None) -> None:
        """Replace a growing event's content and data (a streaming reply), reindexing it
        (and moving the stored counts by :func:`ikgui.domain.state.tally.grown`)."""
        ...

    def get_event(self, event_id: int) -> Event | None: ...

    def last_event_id(self, conv_id: str) -> int | None:
        """The id of the conversation's own newest event (any kind)."""
        ...

    def tail_stamp(self, conv_id: str, limit: int) -> list[tuple[int, int, int]]:
        """The conversation's own newest ``limit`` events as ``(id, length of content,
        length of data)``, newest first, in one indexed query: a small stamp that changes
        when one of them grows or finishes (a reply another process streams) or a newer
        event arrives, read without reading their text."""
        ...

    def latest_clear(self, conv_id: str, upto: int | None) -> int | None:
        """The id of the newest ``clear`` event of ``conv_id`` with id <= ``upto``."""
        ...

    def events(
        self, conv_id: str, after: int | None = None, upto: int | None = None
    ) -> list[Event]:
        """The conversation's own events with ``after < id <= upto`` (bounds optional), by id."""
        ...

    def count_shown(self, conv_id: str, after: int, upto: int) -> int:
        """How many of the conversation's own events with ``after < id <= upto`` a
        reader sees (``ikgui.domain.state.reading.shown``: not a clear or retry, not a reply
        that failed before any text): the items of a cleared group, without reading them."""
        ...

    def context_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        """For each conversation, how many of its own messages (as its message count
        counts them) are still in its context: not before its newest clear, not taken
        out by a rewind or retry after it (0 for an id it does not know). Stored as
        events are appended (``ikgui.domain.state.tally``): read, not counted."""
        ...

    def tail_events(self, conv_id: str, limit: int) -> list[Event]:
        """The conversation's own newest ``limit`` events (any kind), oldest first: the
        end of its log, read without reading the rest (the window's first paint)."""
        ...

    def inherited_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        """For each conversation, how many messages it carries from its ancestors (a
        fork's context before its own): each ancestor's own messages up to the fork
        point; 0 for a root or an unknown id. Stored when the fork is made
        (``ikgui.domain.state.tally.carried``), and again for forks a delete leaves behind."""
        ...

    def unfinished_replies(self) -> list[Event]:
        """Assistant events whose data has ``streaming: true`` (left by a crash)."""
        ...

    def data_version(self) -> int:
        """A number that changes whenever another connection commits (for polling)."""
        ...

    def listing_version(self) -> int:
        """A number that changes when another connection may have changed what a listing
        of conversations shows (one added, removed, renamed, pinned, trashed, re-tagged,
        given an event...), and NOT when only the content of existing events changed (a
        reply growing elsewhere). Cheap: read whenever ``data_version`` moved. It may
        also move with this connection's own writes."""
        ...

    def send_lock(self, conv_id: str) -> SendLock:
        """The lock held from a user message's append until its reply is finished."""
        ...

    # -- read-only views -----------------------------------------------------
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
        """Newest first by (updated_at, id); ``oldest_first``: the other way. ``trashed=
        False`` lists everything not in the Trash, ``True`` only the Trash. ``before`` and
        ``after`` are keyset cursors (older than, newer than). ``tag`` and ``tags``: only
        conversations having every one of them. ``pinned``: only the pinned (``True``) or
        unpinned (``False``) ones; ``None`` both."""
        ...

    def search(self, words: str, limit: int = 50) -> list[SearchHit]:
        """Full-text search over message text and titles, best conversations first.
        User text is never interpreted as query syntax."""
        ...

    def all_tags(self) -> list[str]:
        """Every tag in use, sorted."""
        ...

    # -- tags across conversations (tags given normalized) -------------------
    def tag_counts(
        self, within: Sequence[str] = (), *, trashed: bool | None = False
    ) -> list[tuple[str, int]]:
        """Every tag with how many conversations carry it, sorted by tag: among those
        having all tags of ``within``, in the Trash (``True``), not (``False``) or
        either (``None``)."""
        ...

    def rename_tag(self, old: str, new: str) -> int:
        """Replace ``old`` by ``new`` on every conversation in one transaction (a merge
        when ``new`` is in use). Returns how many conversations had ``old``."""
        ...

    def delete_tag(self, name: str) -> int:
        """Remove ``name`` from every conversation in one transaction; returns how many
        had it."""
        ...

    def tagged(self, name: str) -> list[str]:
        """The ids of the conversations carrying ``name`` (the Trash included), sorted."""
        ...

    def add_tag(self, conv_ids: Sequence[str], name: str) -> int:
        """Give ``name`` to those of ``conv_ids`` that exist and lack it (one transaction);
        returns how many got it."""
        ...

    def remove_tag(self, conv_ids: Sequence[str], name: str) -> int:
        """Take ``name`` from those of ``conv_ids`` that have it (one transaction); returns
        how many had it."""
        ...

    # -- folders, smart folders and projects (SPEC §15) ------------------------------
    def folder_counts(self, *, trashed: bool = False) -> list[tuple[str, int]]:
        """Every folder (each tag in use and each folder above one: ``work`` of
        ``work/acme``) with the conversations under it, each once, sorted by path;
        among those in the Trash (``True``) or not. One read, however many folders."""
        ...

    def tags_under(self, folder: str) -> list[str]:
        """The tags in use that are ``folder`` or under it (``folder/…``), sorted."""
        ...

    def folder_members(self, folder: str) -> dict[str, list[str]]:
        """Each tag in use that is ``folder`` or under it, with the ids of the
        conversations carrying it (the Trash included), sorted: one read."""
        ...

    def move_tags(self, old: str, new: str) -> dict[str, tuple[list[str], list[str]]]:
        """Rename ``old`` and every tag under it (``old/x`` → ``new/x``) on every
        conversation in one transaction, merging where a conversation has the new name
        already. ``new`` is neither ``old`` nor under or above it. Returns, for each tag
        renamed, the ids of the conversations moved and of those merged, sorted."""
        ...

    def change_tag_pairs(
        self, remove: Sequence[tuple[str, str]], add: Sequence[tuple[str, str]]
    ) -> int:
        """Take each ``(conversation id, tag)`` of ``remove`` away, then give each of
        ``add`` (to the conversations that exist and lack it), in one transaction
        however many (an undo of a folder's rename or delete). Returns how many were
        given."""
        ...

    def count_conversations(self, tags: Sequence[str] = (), *, trashed: bool = False) -> int:
        """How many conversations (in the Trash or not) have every tag of ``tags``, or a
        tag under it."""
        ...

    def smart_folders(self) -> list[SmartFolder]:
        """Every smart folder, by name."""
        ...

    def put_smart_folder(self, folder: SmartFolder, replacing: str | None = None) -> None:
        """Save ``folder`` under its name (in place of ``replacing``: a rename)."""
        ...

    def delete_smart_folder(self, name: str) -> bool:
        """Remove the smart folder ``name``; whether there was one."""
        ...

    def projects(self, folders: Sequence[str] | None = None) -> list[Project]:
        """Every project (or those of ``folders``), by folder."""
        ...

    def put_project(self, project: Project) -> None:
        """Keep ``project`` as its folder's settings (its files stored already); one
        that sets nothing is removed."""
        ...

    def delete_project(self, folder: str) -> bool:
        """Remove ``folder``'s settings; whether it had any."""
        ...
