"""Numbered schema migrations: version N is ``MIGRATIONS[N - 1]``, recorded in ``user_version``.

Each migration is frozen SQL (never built from today's models) and runs in its own
``BEGIN IMMEDIATE`` transaction together with the ``user_version`` bump, so a failure
leaves the database at the last version that completed. An existing database
(version >= 1) is copied to ``<name>.bak-v<old>`` with the SQLite backup API (WAL
content included) before anything changes.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from ikgui.domain.errors import StorageError
from ikgui.storage.backfill import Runner, backfill

#: A migration receives the raw connection inside an open transaction.
Migration = Callable[[sqlite3.Connection], None]

#: ``PRAGMA application_id`` of every ikgui database ("ikgu").
APPLICATION_ID = 0x696B6775

#: Event kinds whose content is full-text indexed (as listed in the ``event_text`` view).
INDEXED_KINDS = ("user", "assistant", "system", "prompt_edit", "tool_call", "tool_result")

_V1 = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    """CREATE TABLE conversation (
        id TEXT NOT NULL PRIMARY KEY,
        parent_id TEXT NULL REFERENCES conversation (id),
        fork_event_id INTEGER NULL,
        agent TEXT NULL,
        provider TEXT NULL,
        model TEXT NULL,
        title TEXT NULL,
        title_by_user INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'killed')),
        trashed_at REAL NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        tokens_input INTEGER NOT NULL DEFAULT 0,
        tokens_output INTEGER NOT NULL DEFAULT 0,
        cost REAL NOT NULL DEFAULT 0,
        message_count INTEGER NOT NULL DEFAULT 0,
        draft TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX conversation_updated ON conversation (updated_at, id)",
    "CREATE INDEX conversation_agent_updated ON conversation (agent, updated_at, id)",
    "CREATE INDEX conversation_parent ON conversation (parent_id)",
    "CREATE INDEX conversation_trashed ON conversation (trashed_at) WHERE trashed_at IS NOT NULL",
    """CREATE TABLE event (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversation (id),
        kind TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        data TEXT NULL,
        created_at REAL NOT NULL
    )""",
    "CREATE INDEX event_conversation ON event (conversation_id, id)",
    "CREATE INDEX event_clear ON event (conversation_id, id) WHERE kind = 'clear'",
    # Replies that may still be marked as streaming; the exact test is done in Python.
    """CREATE INDEX event_streaming ON event (id)
        WHERE kind = 'assistant' AND instr(data, '"streaming"') > 0""",
    """CREATE TABLE tag (
        id INTEGER PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversation (id),
        name TEXT NOT NULL
    )""",
    "CREATE UNIQUE INDEX tag_conversation_name ON tag (conversation_id, name)",
    "CREATE INDEX tag_name ON tag (name)",
    # The searchable events; the index's external content, so the text lives once.
    """CREATE VIEW event_text AS SELECT id, content FROM event
        WHERE kind IN ('user', 'assistant', 'system', 'prompt_edit', 'tool_call', 'tool_result')
        AND content != ''""",
    """CREATE VIRTUAL TABLE event_fts USING fts5(
        content, content='event_text', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2')""",
    """CREATE VIRTUAL TABLE title_fts USING fts5(
        title, conversation_id UNINDEXED, tokenize='unicode61 remove_diacritics 2')""",
)


def _v1_initial(conn: sqlite3.Connection) -> None:
    for statement in _V1:
        conn.execute(statement)


#: How much of one event's text the full-text index holds (characters): indexing 20 MB
#: takes ~0.4 s, which a reply's final save must not block the window for. The view
#: below is the index's content, so what is indexed and what is deleted always agree.
FTS_CHARS = 1_000_000

#: Whether a row is a reply still streaming (``data.streaming`` set); damaged data is not.
STREAMING_SQL = (
    "CASE WHEN data IS NULL OR NOT json_valid(data) THEN 0 "
    "ELSE json_extract(data, '$.streaming') IS NOT NULL END"
)
_INDEXED_SQL = (
    "kind IN ('user', 'assistant', 'system', 'prompt_edit', 'tool_call', 'tool_result') "
    "AND content != ''"
)
_V2_VIEW = f"""CREATE VIEW event_text AS SELECT id, substr(content, 1, {FTS_CHARS}) AS content
    FROM event WHERE {_INDEXED_SQL} AND NOT ({STREAMING_SQL})"""


def _v2_bounded_index(conn: sqlite3.Connection) -> None:
    """Index at most ``FTS_CHARS`` of each text, and no reply while it is streaming (its
    periodic saves would re-index the whole growing text every second)."""
    changed = f"{_INDEXED_SQL} AND (length(content) > {FTS_CHARS} OR {STREAMING_SQL})"
    # Take out what v1 indexed for these rows (external content: the exact old text)...
    conn.execute(
        "INSERT INTO event_fts (event_fts, rowid, content) "
        f"SELECT 'delete', id, content FROM event WHERE {changed}"
    )
    conn.execute("DROP VIEW event_text")
    conn.execute(_V2_VIEW)
    # ...and put back what the new view holds of them.
    conn.execute(
        "INSERT INTO event_fts (rowid, content) SELECT id, content FROM event_text "
        f"WHERE id IN (SELECT id FROM event WHERE {changed})"
    )


def _v3_pinned(conn: sqlite3.Connection) -> None:
    """Pinned conversations: a flag, and an index for listing the (few) pinned ones."""
    conn.execute("ALTER TABLE conversation ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    conn.execute(
        "CREATE INDEX conversation_pinned ON conversation (updated_at, id) WHERE pinned = 1"
    )


#: The conversation columns a listing shows (the sidebar, ``ikgui conv list``), frozen as
#: of version 4: a write to any of them counts as a change of the listing; a draft or
#: usage update does not.
_V4_LISTED = (
    "parent_id, fork_event_id, agent, provider, model, title, title_by_user, status, "
    "trashed_at, updated_at, message_count, pinned"
)
_BUMP_LISTING = "UPDATE listing_change SET n = n + 1 WHERE id = 1"


def _v4_listing_change(conn: sqlite3.Connection) -> None:
    """A counter of listing changes, kept by triggers: a window polling for another
    process's writes re-reads its sidebar only when it moved (a reply growing elsewhere
    updates events only, and leaves it alone)."""
    conn.execute(
        "CREATE TABLE listing_change (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)"
    )
    conn.execute("INSERT INTO listing_change (id, n) VALUES (1, 0)")
    triggers = {
        "conversation_listed_insert": "AFTER INSERT ON conversation",
        "conversation_listed_delete": "AFTER DELETE ON conversation",
        "conversation_listed_update": f"AFTER UPDATE OF {_V4_LISTED} ON conversation",
        "tag_listed_insert": "AFTER INSERT ON tag",
        "tag_listed_delete": "AFTER DELETE ON tag",
        "tag_listed_update": "AFTER UPDATE ON tag",
    }
    for name, when in triggers.items():
        conn.execute(f"CREATE TRIGGER {name} {when} BEGIN {_BUMP_LISTING}; END")


#: The conversation columns of version 5: a working-prompt edit not saved yet, and the
#: one a Clear set aside (NULL: none; an empty text is an edit that empties the prompt).
#: Session state as the message ``draft`` is: not listed, so writing them moves no listing.
V5_PROMPT_DRAFTS = ("prompt_draft", "prompt_set_aside")


def _v5_prompt_drafts(conn: sqlite3.Connection) -> None:
    """The working prompt's drafts live with their conversation (they lived in one
    window's state file, which the command line and other machines never saw)."""
    for column in V5_PROMPT_DRAFTS:
        conn.execute(f"ALTER TABLE conversation ADD COLUMN {column} TEXT NULL")


#: The columns of version 6 (frozen here): the domain's counts (``ikgui.domain.state.tally``),
#: kept as events are appended: per conversation, its messages in its context and what
#: a fork carries; per event, the conversation's tally after it (what a rewind or retry
#: goes back to). Not listed: an append that changes them also moves ``updated_at``.
V6_TALLIES = (
    ("conversation", "context_count"),
    ("conversation", "inherited_count"),
    ("event", "tally_messages"),
    ("event", "tally_context"),
)


def _v6_tallies(conn: sqlite3.Connection) -> None:
    """The counts the views show are stored, computed by the domain, instead of being
    counted again in SQL by a copy of the fold's rules."""
    for table, column in V6_TALLIES:
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")

    def many(sql: str, params: Sequence[Sequence[object]]) -> None:
        conn.executemany(sql, params)

    backfill(Runner(lambda sql, params: conn.execute(sql, params).fetchall(), many))


#: What search reads of each file an event lists: the name it was attached under and the
#: file's text (a text file's, a PDF's extracted text), bounded as an event's text is.
#: The index's external content: a file's text is stored once, however many refer to it.
_V7_FILE_TEXT = f"""CREATE VIEW event_file_text AS
    SELECT ef.id, ef.name || ' ' || coalesce(substr(f.text, 1, {FTS_CHARS}), '') AS content
    FROM event_file ef JOIN stored_file f ON f.sha256 = ef.sha256"""

#: The conversation column of version 7: the files attached to the draft (JSON).
V7_DRAFT_FILES = ("draft_files",)

# The bytes last: SQLite reads a row's columns in order, and a query of the others
# (a sweep's ``created_at``, search's ``text``) never walks a 20 MB file's pages.
_V7 = (
    """CREATE TABLE stored_file (
        sha256 TEXT NOT NULL PRIMARY KEY,
        name TEXT NOT NULL,
        mime TEXT NOT NULL,
        size INTEGER NOT NULL,
        created_at REAL NOT NULL,
        text TEXT NULL,
        content BLOB NOT NULL
    )""",
    """CREATE TABLE event_file (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id INTEGER NOT NULL REFERENCES event (id),
        sha256 TEXT NOT NULL REFERENCES stored_file (sha256),
        name TEXT NOT NULL
    )""",
    "CREATE INDEX event_file_event ON event_file (event_id)",
    "CREATE INDEX event_file_sha256 ON event_file (sha256)",
    _V7_FILE_TEXT,
    """CREATE VIRTUAL TABLE event_file_fts USING fts5(
        content, content='event_file_text', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2')""",
    # Session state as the message draft is: not listed (no listing trigger names it).
    *(f"ALTER TABLE conversation ADD COLUMN {c} TEXT NOT NULL DEFAULT ''" for c in V7_DRAFT_FILES),
)


def _v7_files(conn: sqlite3.Connection) -> None:
    """Attachments (SPEC §13): each file once by its SHA-256, the events that list it,
    and its name and text searchable. No event lists files before this version."""
    for statement in _V7:
        conn.execute(statement)


def _v8_branch_reason(conn: sqlite3.Connection) -> None:
    """Why each branch was made (SPEC §14): alternatives made by edit and retry are told
    from deliberate forks. A branch from before it reads as a fork (NULL, as a root's)."""
    conn.execute("ALTER TABLE conversation ADD COLUMN branch_reason TEXT NULL")


#: Smart folders and projects (SPEC §15), frozen here: a smart folder is a saved search
#: (its text and its tags, a JSON list) under a name; a project is a folder's settings
#: (``tools``: a JSON list, NULL for "not set"; ``files``: the files as a draft keeps
#: them, by hash, so a sweep keeps them stored). Both move the listing counter: another
#: window re-reads its folders when it moves.
V9_TABLES = (
    """CREATE TABLE smart_folder (
        name TEXT NOT NULL PRIMARY KEY,
        search TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '[]',
        created_at REAL NOT NULL
    )""",
    """CREATE TABLE project (
        folder TEXT NOT NULL PRIMARY KEY,
        agent TEXT NULL,
        provider TEXT NULL,
        model TEXT NULL,
        system_prompt TEXT NULL,
        tools TEXT NULL,
        files TEXT NOT NULL DEFAULT '',
        updated_at REAL NOT NULL
    )""",
)


def _v9_folders(conn: sqlite3.Connection) -> None:
    """Smart folders and projects, kept in the store so every program on it sees them."""
    for statement in V9_TABLES:
        conn.execute(statement)
    for table in ("smart_folder", "project"):
        for when in ("INSERT", "DELETE", "UPDATE"):
            conn.execute(
                f"CREATE TRIGGER {table}_listed_{when.lower()} AFTER {when} ON {table} "
                f"BEGIN {_BUMP_LISTING}; END"
            )


#: Every migration this version knows, oldest first.
MIGRATIONS: tuple[Migration, ...] = (
    _v1_initial,
    _v2_bounded_index,
    _v3_pinned,
    _v4_listing_change,
    _v5_prompt_drafts,
    _v6_tallies,
    _v7_files,
    _v8_branch_reason,
    _v9_folders,
)
SCHEMA_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def newer_schema_error(path: Path, found: int, known: int) -> StorageError:
    return StorageError(
        f"{path} was written by a newer version of ikgui (schema {found}; this version "
        f"reads up to {known}). Upgrade ikgui to open it; the file was not changed."
    )


def backup_path(path: Path, version: int) -> Path:
    """A free name for the backup of ``path`` at ``version`` (never overwrites one)."""
    candidate = path.with_name(f"{path.name}.bak-v{version}")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak-v{version}.{n}")
        n += 1
    return candidate


def make_backup(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    """Copy the database (WAL content included) next to it, atomically named."""
    target = backup_path(path, version)
    partial = target.with_name(target.name + ".partial")
    dest = sqlite3.connect(partial)
    try:
        conn.backup(dest)
    finally:
        dest.close()
    os.replace(partial, target)
    return target


def migrate(
    conn: sqlite3.Connection, path: Path, migrations: Sequence[Migration] = MIGRATIONS
) -> Path | None:
    """Bring the database to ``len(migrations)``; returns the backup made, if any."""
    target = len(migrations)
    current = user_version(conn)
    if current > target:
        raise newer_schema_error(path, current, target)
    if current == target:
        return None
    backup: Path | None = None
    if current >= 1:
        try:
            backup = make_backup(conn, path, current)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(
                f"Could not upgrade the database {path}: making a backup copy failed ({exc}); "
                "the file was not changed."
            ) from exc
    for version in range(current + 1, target + 1):
        try:
            _run_one(conn, version, migrations[version - 1])
        except Exception as exc:
            try:
                reached = user_version(conn)
            except sqlite3.Error:
                reached = version - 1
            where = f" A backup copy is at {backup}." if backup else ""
            raise StorageError(
                f"Could not upgrade the database {path} to schema {version} ({exc}); it is "
                f"still at schema {reached}.{where}"
            ) from exc
    return backup


def _run_one(conn: sqlite3.Connection, version: int, migration: Migration) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the lock.
        if user_version(conn) < version:
            migration(conn)
            conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
