"""Attached files in the store (SPEC §13): each once by its SHA-256 (``stored_file``),
and the events that list them (``event_file``: one row per file an event lists, under
the name it gave it), which keep them stored and which search reads.

Nothing here runs when a conversation is opened or a reply is saved: the log's rows
carry only the files' references (``data["attachments"]``); the bytes are read only by
:func:`read`, which a send calls from a worker thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from peewee import Database

from ikgui.domain.attachments import Attachment, AttachmentError, StoredFile, draft_files
from ikgui.storage.dialect import Dialect
from ikgui.storage.folders import project_files
from ikgui.storage.queries import Query, chunks, execute_sql, marks

#: Hashes per ``IN (...)`` list.
_CHUNK = 500

_INSERT_FILE = Query(
    "INSERT INTO stored_file (sha256, name, mime, size, content, text, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING"
)
_LINK = Query("INSERT INTO event_file (event_id, sha256, name) VALUES (?, ?, ?) RETURNING id")
_DRAFTS = Query("SELECT draft_files FROM conversation WHERE draft_files != ''")
_UNREFERENCED = Query(
    "SELECT sha256 FROM stored_file WHERE created_at < ? AND NOT EXISTS "
    "(SELECT 1 FROM event_file WHERE event_file.sha256 = stored_file.sha256)"
)
#: A file put for a draft (a pasted image) is named by the draft a moment later (when
#: the window keeps its drafts): a sweep leaves files put this recently (seconds).
DRAFT_GRACE = 3600.0


#: What search reads of new ``event_file`` rows, put into each database's index.
_INDEX_SQLITE = (
    "INSERT INTO event_file_fts (rowid, content) SELECT id, content "
    "FROM event_file_text WHERE id IN ({marks})"
)
# Computed in the server from the stored text: the bytes never travel again.
_INDEX_POSTGRES = (
    "UPDATE event_file ef SET search = ikgui_file_search(ef.name, f.text) "
    "FROM stored_file f WHERE f.sha256 = ef.sha256 AND ef.id = ANY(%s)"
)


def index_links(db: Database, kind: str, link_ids: Sequence[int]) -> None:
    """Index new ``event_file`` rows (``kind``: "sqlite" or "postgresql")."""
    for chunk in chunks(list(link_ids), _CHUNK):
        if kind == "sqlite":
            execute_sql(db, _INDEX_SQLITE.format(marks=marks(len(chunk))), chunk)
        else:
            execute_sql(db, _INDEX_POSTGRES, (list(chunk),))


def _in(column: str, count: int) -> str:
    return f"{column} IN ({marks(count)})"


def _sql(db: Database, text: str) -> str:
    return Query(text).text(db)


def stored(db: Database, shas: Iterable[str]) -> set[str]:
    """Which of ``shas`` are stored."""
    wanted = list(dict.fromkeys(shas))
    found: set[str] = set()
    for chunk in chunks(wanted, _CHUNK):
        sql = _sql(db, f"SELECT sha256 FROM stored_file WHERE {_in('sha256', len(chunk))}")
        found.update(r[0] for r in execute_sql(db, sql, chunk).fetchall())
    return found


def put(db: Database, files: Sequence[StoredFile], when: float, *, fresh: bool = False) -> None:
    """Store the files not stored yet (a file's bytes are sent only when it is new);
    ``fresh``: put for a draft, so a sweep leaves those stored already for a while too."""
    have = stored(db, (f.sha256 for f in files))
    if fresh and have:
        sql = _sql(db, f"UPDATE stored_file SET created_at = ? WHERE {_in('sha256', len(have))}")
        execute_sql(db, sql, [when, *sorted(have)])
    for file in files:
        if file.sha256 in have:
            continue
        a = file.attachment
        _INSERT_FILE.run(db, a.sha256, a.name, a.mime, a.size, file.content, file.text, when)
        have.add(file.sha256)


def link(db: Database, dialect: Dialect, event_id: int, attachments: Sequence[Attachment]) -> None:
    """Record that event ``event_id`` lists ``attachments`` (each must be stored by now:
    one that is not refuses the whole event), and index their names and text."""
    have = stored(db, (a.sha256 for a in attachments))
    for a in attachments:
        if a.sha256 not in have:
            raise AttachmentError(f"{a.name} is not stored any more: attach it again")
    ids = [int(_LINK.run(db, event_id, a.sha256, a.name).fetchone()[0]) for a in attachments]
    dialect.index_files(db, ids)


def read(db: Database, shas: Sequence[str]) -> dict[str, StoredFile]:
    """The stored files of ``shas`` with their bytes (the one read of them)."""
    found: dict[str, StoredFile] = {}
    for chunk in chunks(list(dict.fromkeys(shas)), _CHUNK):
        sql = _sql(
            db,
            "SELECT sha256, name, mime, size, content, text FROM stored_file "
            f"WHERE {_in('sha256', len(chunk))}",
        )
        for sha, name, mime, size, content, text in execute_sql(db, sql, chunk).fetchall():
            found[sha] = StoredFile(Attachment(sha, name, mime, int(size)), bytes(content), text)
    return found


def of_conversations(db: Database, conv_ids: Sequence[str]) -> set[str]:
    """The files the events of ``conv_ids`` list."""
    found: set[str] = set()
    for chunk in chunks(conv_ids, _CHUNK):
        sql = _sql(
            db,
            "SELECT DISTINCT ef.sha256 FROM event_file ef JOIN event e ON e.id = ef.event_id "
            f"WHERE {_in('e.conversation_id', len(chunk))}",
        )
        found.update(r[0] for r in execute_sql(db, sql, chunk).fetchall())
    return found


def unlink_conversations(db: Database, conv_ids: Sequence[str]) -> None:
    """Forget which files the events of ``conv_ids`` list (before the events go; the
    dialect has taken them out of the index already)."""
    for chunk in chunks(conv_ids, _CHUNK):
        sql = _sql(
            db,
            "DELETE FROM event_file WHERE event_id IN (SELECT id FROM event "
            f"WHERE {_in('conversation_id', len(chunk))})",
        )
        execute_sql(db, sql, chunk)


def in_drafts(db: Database) -> set[str]:
    """The files conversations' drafts refer to (few conversations have any)."""
    return {
        f.attachment.sha256 for (text,) in _DRAFTS.run(db).fetchall() for f in draft_files(text)
    }


def remove_unreferenced(
    db: Database, among: Iterable[str] | None = None, now: float | None = None
) -> int:
    """Remove the files (of ``among``, or any put before ``DRAFT_GRACE`` ago) no event,
    no draft and no project refers to."""
    if among is None:
        before = (time.time() if now is None else now) - DRAFT_GRACE
        candidates = {r[0] for r in _UNREFERENCED.run(db, before).fetchall()}
    else:
        wanted = list(dict.fromkeys(among))
        candidates = set()
        for chunk in chunks(wanted, _CHUNK):
            sql = _sql(
                db,
                f"SELECT sha256 FROM stored_file WHERE {_in('sha256', len(chunk))} AND NOT "
                "EXISTS (SELECT 1 FROM event_file WHERE event_file.sha256 = stored_file.sha256)",
            )
            candidates.update(r[0] for r in execute_sql(db, sql, chunk).fetchall())
    if not candidates:
        return 0
    doomed = sorted(candidates - in_drafts(db) - project_files(db))
    for chunk in chunks(doomed, _CHUNK):
        sql = _sql(db, f"DELETE FROM stored_file WHERE {_in('sha256', len(chunk))}")
        execute_sql(db, sql, chunk)
    return len(doomed)


def total_bytes(db: Database) -> int:
    """What the stored files hold, each once (``ikgui db status``, the benchmarks)."""
    row = execute_sql(db, "SELECT coalesce(sum(size), 0) FROM stored_file").fetchone()
    return int(row[0])


# -- copying (``ikgui db copy``) --------------------------------------------------------

#: Files per batch of a copy (each may be 20 MB: a few at a time).
COPY_BATCH = 8
_ALL_SHAS = Query("SELECT sha256 FROM stored_file ORDER BY sha256")
_LINKS_AFTER = Query(
    "SELECT id, event_id, sha256, name FROM event_file WHERE id > ? ORDER BY id LIMIT ?"
)


def copy_files(source: Database, dest: Database, dest_kind: str, batch: int = 500) -> int:
    """Copy the files ``dest`` lacks and the events' references to them (the events are
    copied by now, under the same ids); returns how many files were copied."""
    shas = [r[0] for r in _ALL_SHAS.run(source).fetchall()]
    have = stored(dest, shas)
    missing = [sha for sha in shas if sha not in have]
    for chunk in chunks(missing, COPY_BATCH):
        sql = _sql(
            source,
            "SELECT sha256, name, mime, size, content, text, created_at FROM stored_file "
            f"WHERE {_in('sha256', len(chunk))}",
        )
        rows = execute_sql(source, sql, chunk).fetchall()
        with dest.atomic():
            for sha, name, mime, size, content, text, when in rows:
                _INSERT_FILE.run(dest, sha, name, mime, size, bytes(content), text, when)
    _copy_links(source, dest, dest_kind, batch)
    return len(missing)


def _copy_links(source: Database, dest: Database, dest_kind: str, batch: int) -> None:
    """The source's ``event_file`` rows the destination lacks, under ids of its own (an
    event may list one file twice: rows are counted, not only compared)."""
    last = 0
    while True:
        rows = _LINKS_AFTER.run(source, last, batch).fetchall()
        if not rows:
            return
        last = int(rows[-1][0])
        events = sorted({int(r[1]) for r in rows})
        there: dict[tuple[int, str, str], int] = {}
        for event_id, sha, name in execute_sql(
            dest,
            _sql(
                dest,
                "SELECT event_id, sha256, name FROM event_file WHERE "
                f"{_in('event_id', len(events))}",
            ),
            events,
        ).fetchall():
            key = (int(event_id), sha, name)
            there[key] = there.get(key, 0) + 1
        with dest.atomic():
            new: list[int] = []
            for _id, event_id, sha, name in rows:
                key = (int(event_id), sha, name)
                if there.get(key, 0) > 0:
                    there[key] -= 1
                    continue
                new.append(int(_LINK.run(dest, int(event_id), sha, name).fetchone()[0]))
            index_links(dest, dest_kind, new)
