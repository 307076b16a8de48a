"""Tags across conversations: the match-all filter, counts, rename (merge) and delete.

Tags nest with ``/`` (SPEC §15): a filter on ``work`` matches ``work`` and every tag
under it (``work/acme``), as a range of the ``tag_name`` index (``work/`` ≤ name <
``work0``, ``0`` being the character after ``/``), so choosing a folder costs what its
tags' rows cost.

Each function runs inside the store's read or write transaction (it is given the
database), so a rename or delete of a tag on thousands of conversations is one
transaction: every conversation changes, or none. Tags arrive normalized (the domain's
one tag rule, :func:`ikgui.domain.state.ids.normalize_tag`); the ``tag_name`` index makes each
statement a lookup, not a scan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peewee import SQL, Database, Expression, NodeList, SqliteDatabase, fn

from ikgui.storage.models import ConversationRow, TagRow
from ikgui.storage.queries import chunks, execute_query, execute_sql, marks

#: Tags per statement (an ``IN`` list or a multi-row ``INSERT``): well under SQLite's
#: limit on bound values.
CHUNK = 500


def wanted(tag: str | None, tags: Sequence[str]) -> list[str]:
    """The tags a listing must all have (``tag`` and ``tags`` together), lowercased."""
    names = ([tag] if tag is not None else []) + list(tags)
    return sorted({t.strip().lower() for t in names})


def _bytes(db: Database) -> str:
    """How a range of names is compared in byte order: SQLite's is; PostgreSQL's is
    its collation's unless told (``en_US`` puts ``work/acme`` after ``work0``), with
    the index of schema 9 on ``name COLLATE "C"`` for it."""
    return "" if isinstance(db, SqliteDatabase) else ' COLLATE "C"'


def in_folder(name: str, db: Database) -> Expression:
    """A condition on tag rows: the tag is ``name`` or one under it (``name/…``)."""
    column: Any = TagRow.name
    if not isinstance(db, SqliteDatabase):
        column = NodeList((TagRow.name, SQL('COLLATE "C"')))
    below: Expression = (column > name + "/") & (column < name + "0")
    return (TagRow.name == name) | below


def having_all(names: Sequence[str], db: Database) -> Expression:
    """A condition: the conversation has every one of ``names`` (or a tag under it).
    The ids come from the ``tag_name`` index (an intersection), so a filter costs what
    its tags' rows cost, not a scan of every conversation."""
    picks: Any = None
    for name in names:
        pick = TagRow.select(TagRow.conversation).where(in_folder(name, db))
        picks = pick if picks is None else picks & pick  # INTERSECT
    return ConversationRow.id.in_(picks)


def _not_trashed(trashed: bool) -> Expression:
    return ConversationRow.trashed_at.is_null(not trashed)


def counts(db: Database, within: Sequence[str], trashed: bool | None) -> list[tuple[str, int]]:
    """Each tag with the number of conversations carrying it, among those that have every
    tag of ``within`` and are in the Trash (``True``), not (``False``) or either (``None``)."""
    names = wanted(None, within)
    if names:
        where = having_all(names, db)
        if trashed is not None:
            where &= _not_trashed(trashed)
        scope = ConversationRow.select(ConversationRow.id).where(where)
        return _grouped(db, TagRow.conversation.in_(scope))
    # Without a filter: every tag row (the covering index), less those in the Trash (few).
    everything = _grouped(db, None)
    if trashed is None:
        return everything
    in_trash = ConversationRow.select(ConversationRow.id).where(_not_trashed(True))
    gone = _grouped(db, TagRow.conversation.in_(in_trash))
    if trashed:
        return gone
    minus = dict(gone)
    left = [(t, n - minus.get(t, 0)) for t, n in everything]
    return [(t, n) for t, n in left if n > 0]


def _grouped(db: Database, where: Expression | None) -> list[tuple[str, int]]:
    query = TagRow.select(TagRow.name, fn.COUNT(TagRow.id))
    if where is not None:
        query = query.where(where)
    query = query.group_by(TagRow.name).order_by(TagRow.name)
    return [(str(r[0]), int(r[1])) for r in execute_query(db, query).fetchall()]


def folder_counts(db: Database, trashed: bool) -> list[tuple[str, int]]:
    """Every folder (each tag and each folder above one) with the conversations under
    it, each once, among those in the Trash or not: the tags' own counts (the covering
    index, as ``counts``), the distinct conversations of the folders with folders inside
    them in one query (a range of the ``tag_name`` index each), less the Trash's, whose
    few rows are counted here."""
    in_trash = ConversationRow.select(ConversationRow.id).where(_not_trashed(True))
    query = TagRow.select(TagRow.conversation, TagRow.name).where(TagRow.conversation.in_(in_trash))
    gone = _counted(execute_query(db, query).fetchall())
    if trashed:
        return sorted(gone.items())
    exact = dict(_grouped(db, None))
    counted = {**exact, **_distinct(db, sorted({p for n in exact for p in _parents(n)}))}
    left = ((name, n - gone.get(name, 0)) for name, n in counted.items())
    return sorted((name, n) for name, n in left if n > 0)


def _counted(rows: Sequence[tuple[Any, Any]]) -> dict[str, int]:
    """Each folder's conversations (each once) among a few ``(conversation, tag)`` rows."""
    under: dict[str, set[str]] = {}
    for conv, name in rows:
        for folder in (*_parents(str(name)), str(name)):
            under.setdefault(folder, set()).add(str(conv))
    return {folder: len(convs) for folder, convs in under.items()}


def _parents(name: str) -> list[str]:
    parts = name.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _distinct(db: Database, folders: Sequence[str]) -> dict[str, int]:
    """The conversations under each of ``folders`` (each once, the Trash's too). The
    range ``folder ≤ name < folder0`` is the index's; the ``/`` check keeps ``work-x``
    (between them) out."""
    found: dict[str, int] = {}
    for part in chunks(list(folders), CHUNK):
        values = ", ".join("(CAST(? AS TEXT))" for _ in part)
        sql = (
            f"WITH f(path) AS (VALUES {values}) "
            "SELECT f.path, COUNT(DISTINCT t.conversation_id) FROM f JOIN tag t "
            f"ON t.name{_bytes(db)} >= f.path AND t.name{_bytes(db)} < f.path || '0' "
            "AND (t.name = f.path OR substr(t.name, length(f.path) + 1, 1) = '/') "
            "GROUP BY f.path"
        )
        rows = execute_sql(db, _sql(db, sql), part).fetchall()
        found.update((str(r[0]), int(r[1])) for r in rows)
    return found


def under(db: Database, name: str) -> list[str]:
    """The tags in use that are ``name`` or under it, sorted."""
    query = TagRow.select(TagRow.name).where(in_folder(name, db)).distinct()
    return sorted(str(r[0]) for r in execute_query(db, query).fetchall())


def members(db: Database, folder: str) -> dict[str, list[str]]:
    """Each tag that is ``folder`` or under it, with its conversations (sorted)."""
    query = TagRow.select(TagRow.name, TagRow.conversation).where(in_folder(folder, db))
    found: dict[str, list[str]] = {}
    for name, conv in execute_query(db, query).fetchall():
        found.setdefault(str(name), []).append(str(conv))
    return {name: sorted(convs) for name, convs in sorted(found.items())}


def move(db: Database, old: str, new: str) -> dict[str, tuple[list[str], list[str]]]:
    """Rename ``old`` and every tag under it (``old/x`` → ``new/x``) with one ``UPDATE``,
    after deleting the rows whose new name the conversation has already (a merge).
    ``new`` is neither ``old``, nor under it, nor above it: the two subtrees are apart.
    Returns, for each tag renamed, the conversations moved and those merged."""
    query = TagRow.select(TagRow.id, TagRow.conversation, TagRow.name).where(in_folder(old, db))
    rows = execute_query(db, query).fetchall()
    there = TagRow.select(TagRow.conversation, TagRow.name).where(in_folder(new, db))
    taken = {(str(c), str(n)) for c, n in execute_query(db, there).fetchall()}
    changed: dict[str, tuple[list[str], list[str]]] = {}
    doomed: list[int] = []
    for row_id, conv, name in rows:
        moved, merged = changed.setdefault(str(name), ([], []))
        if (str(conv), new + name[len(old) :]) in taken:
            merged.append(str(conv))
            doomed.append(int(row_id))
        else:
            moved.append(str(conv))
    for part in chunks(doomed, CHUNK):
        TagRow.delete().where(TagRow.id.in_(part)).execute(db)
    name = f"name{_bytes(db)}"
    sql = (
        f"UPDATE tag SET name = ? || substr(name, ?) WHERE name = ? OR ({name} > ? AND {name} < ?)"
    )
    execute_sql(db, _sql(db, sql), (new, len(old) + 1, old, old + "/", old + "0"))
    return {name: (sorted(m), sorted(g)) for name, (m, g) in changed.items()}


def _sql(db: Database, text: str) -> str:
    return text if isinstance(db, SqliteDatabase) else text.replace("?", "%s")


#: ``(conversation, tag)`` pairs per statement: two bound values each.
PAIRS = 400


def _pairs_in(count: int) -> str:
    return f"(conversation_id, name) IN (VALUES {', '.join('(?, ?)' for _ in range(count))})"


def change_pairs(
    db: Database, remove: Sequence[tuple[str, str]], add: Sequence[tuple[str, str]]
) -> int:
    """Take each ``(conversation, tag)`` of ``remove`` away, then give each of ``add``
    (to the conversations that exist and lack it), a few hundred pairs per statement;
    returns how many were given. Written as SQL: building these with peewee cost more
    than running them."""
    for part in chunks(sorted(set(remove)), PAIRS):
        sql = f"DELETE FROM tag WHERE {_pairs_in(len(part))}"
        execute_sql(db, _sql(db, sql), [v for pair in part for v in pair])
    added = 0
    for part in chunks(sorted(set(add)), PAIRS):
        ids = sorted({c for c, _ in part})
        sql = f"SELECT id FROM conversation WHERE id IN ({marks(len(ids))})"
        alive = {str(r[0]) for r in execute_sql(db, _sql(db, sql), ids).fetchall()}
        sql = f"SELECT conversation_id, name FROM tag WHERE {_pairs_in(len(part))}"
        rows = execute_sql(db, _sql(db, sql), [v for pair in part for v in pair]).fetchall()
        have = {(str(c), str(n)) for c, n in rows}
        lacking = [(c, n) for c, n in part if c in alive and (c, n) not in have]
        if lacking:
            values = ", ".join("(?, ?)" for _ in lacking)
            sql = f"INSERT INTO tag (conversation_id, name) VALUES {values}"
            execute_sql(db, _sql(db, sql), [v for pair in lacking for v in pair])
        added += len(lacking)
    return added


def count(db: Database, names: Sequence[str], trashed: bool) -> int:
    """How many conversations (in the Trash or not) have every tag of ``names``."""
    where = _not_trashed(trashed)
    if names:
        where &= having_all(names, db)
    query = ConversationRow.select(fn.COUNT(ConversationRow.id)).where(where)
    return int(query.scalar(db) or 0)


def rename(db: Database, old: str, new: str) -> int:
    """Give every conversation tagged ``old`` the tag ``new`` instead (a merge when ``new``
    is in use: a conversation with both keeps one). Returns how many had ``old``."""
    count = int(TagRow.select(fn.COUNT(TagRow.id)).where(TagRow.name == old).scalar(db) or 0)
    if old == new or not count:
        return count
    having_new = TagRow.select(TagRow.conversation).where(TagRow.name == new)
    TagRow.delete().where((TagRow.name == old) & TagRow.conversation.in_(having_new)).execute(db)
    TagRow.update(name=new).where(TagRow.name == old).execute(db)
    return count


def delete(db: Database, name: str) -> int:
    """Remove the tag ``name`` from every conversation; returns how many had it."""
    return int(TagRow.delete().where(TagRow.name == name).execute(db))


def holders(db: Database, name: str) -> list[str]:
    """The ids of the conversations carrying ``name`` (the Trash included), sorted."""
    query = (
        TagRow.select(TagRow.conversation).where(TagRow.name == name).order_by(TagRow.conversation)
    )
    return [str(r[0]) for r in execute_query(db, query).fetchall()]


def add(db: Database, conv_ids: Sequence[str], name: str) -> int:
    """Give ``name`` to each conversation of ``conv_ids`` that exists and lacks it;
    returns how many got it."""
    added = 0
    for chunk in chunks(sorted(set(conv_ids)), CHUNK):
        present = ConversationRow.select(ConversationRow.id).where(ConversationRow.id.in_(chunk))
        having = TagRow.select(TagRow.conversation).where(
            (TagRow.name == name) & TagRow.conversation.in_(chunk)
        )
        kept = {str(r[0]) for r in execute_query(db, present).fetchall()}
        kept -= {str(r[0]) for r in execute_query(db, having).fetchall()}
        if kept:
            rows = [{TagRow.conversation: c, TagRow.name: name} for c in sorted(kept)]
            TagRow.insert_many(rows).execute(db)
        added += len(kept)
    return added


def remove(db: Database, conv_ids: Sequence[str], name: str) -> int:
    """Take ``name`` from each conversation of ``conv_ids``; returns how many had it."""
    removed = 0
    for chunk in chunks(sorted(set(conv_ids)), CHUNK):
        where = (TagRow.name == name) & TagRow.conversation.in_(chunk)
        removed += int(TagRow.delete().where(where).execute(db))
    return removed


# -- one conversation's tags --------------------------------------------------------


def change(db: Database, conv_id: str, add: Sequence[str], remove: Sequence[str]) -> None:
    """Add ``add`` (those it has already are left alone) and remove ``remove``: rows are
    read and written only for these tags, through the ``(conversation, name)`` index."""
    of_conv = TagRow.conversation == conv_id
    for part in chunks(list(remove), CHUNK):
        TagRow.delete().where(of_conv & TagRow.name.in_(part)).execute(db)
    for part in chunks(list(add), CHUNK):
        query = TagRow.select(TagRow.name).where(of_conv & TagRow.name.in_(part))
        have = {r[0] for r in execute_query(db, query).fetchall()}
        new = [{TagRow.conversation: conv_id, TagRow.name: n} for n in part if n not in have]
        if new:
            TagRow.insert_many(new).execute(db)


def replace(db: Database, conv_id: str, names: Sequence[str]) -> None:
    """Make ``names`` the conversation's tags, writing only the difference (one read of
    its tags: linear, where deleting and inserting them all cost ~10 s at 100,000)."""
    query = TagRow.select(TagRow.name).where(TagRow.conversation == conv_id)
    have = {r[0] for r in execute_query(db, query).fetchall()}
    wanted = set(names)
    change(db, conv_id, sorted(wanted - have), sorted(have - wanted))
