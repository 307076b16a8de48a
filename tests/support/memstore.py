"""``MemoryStore``: the domain's ``Store`` port in plain Python, for domain tests.

It keeps conversations, events and tags in dicts and behaves like ``SqliteStore`` in
everything the domain can observe: ids from one growing sequence, event data kept as
JSON text (so what comes back is what a database would give back), ``updated_at`` and
the counts of :mod:`ikgui.domain.state.tally` stored by appends (as a database stores them),
``transaction()`` blocks that nest and roll back on an exception, the same errors
(``NotFoundError``, ``ValueError``, ``StorageError``).
``tests/storage/test_store_contract.py`` runs the same checks on both stores so they
cannot drift apart.

Search is a plain scan instead of FTS5 (every word of the query must be a whole word of
one message or of the title, case and accents ignored) and ranks the same way;
snippets are at most 80 characters on one line around the first match.
"""

from __future__ import annotations

import copy
import json
import re
import time
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from ikgui.domain.attachments import StoredFile, draft_files, listed
from ikgui.domain.errors import NotFoundError, StorageError
from ikgui.domain.events import Conversation, Event, SearchHit
from ikgui.domain.folders import Project, SmartFolder, carries_all, folder_tree, is_under
from ikgui.domain.ports import STATUSES, UPDATABLE
from ikgui.domain.state import tally
from ikgui.domain.state.reading import shown

#: The kinds whose text is searchable (as in ``ikgui.storage.migrations``).
INDEXED_KINDS = frozenset(
    {"user", "assistant", "system", "prompt_edit", "tool_call", "tool_result"}
)
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"[^\W_]+")  # FTS5's unicode61: runs of letters and digits
MAX_WORDS = 16
SNIPPET_WIDTH = 80


@dataclass
class _Row:
    conversation_id: str
    kind: str
    content: str
    data: str | None  # JSON text, as a database keeps it
    created_at: float
    #: The conversation's tally after this event (the ``tally_*`` columns).
    tally: tally.Tally = field(default_factory=tally.Tally)

    def event(self, event_id: int) -> Event:
        return Event(
            event_id,
            self.conversation_id,
            self.kind,
            self.content,
            None,
            self.created_at,
            raw_data=self.data,
        )


def _normalize_tags(tags: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted({t.strip().lower() for t in tags if t.strip()}))


def _fold(text: str) -> str:
    """Lowercase without diacritics."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def _phrases(words: str) -> list[str]:
    """Each word of a query as the tokens it must match, in a row (``a_b`` is ``a b``)."""
    found = [w for w in _WORD.findall(words) if any(ch.isalnum() for ch in w)][:MAX_WORDS]
    return [" ".join(_TOKEN.findall(_fold(w))) for w in found]


def _matches(phrases: list[str], text: str) -> bool:
    tokens = f" {' '.join(_TOKEN.findall(_fold(text)))} "
    return bool(phrases) and all(f" {p} " in tokens for p in phrases)


def _snippet(text: str, phrases: list[str]) -> str:
    """At most 80 characters of ``text`` on one line, around the first match."""
    flat = " ".join(text.split())
    if len(flat) <= SNIPPET_WIDTH:
        return flat
    folded = _fold(flat)
    found = [folded.find(p.split(" ")[0]) for p in phrases]
    pos = min([f for f in found if f >= 0], default=0)
    start = max(0, min(pos - SNIPPET_WIDTH // 3, len(flat) - SNIPPET_WIDTH))
    lead = "…" if start > 0 else ""
    end = start + SNIPPET_WIDTH - len(lead)
    if end >= len(flat):
        return lead + flat[start:]
    return lead + flat[start : end - 1].rstrip() + "…"


class _MemorySendLock:
    """A conversation's send lock among the sessions sharing one ``MemoryStore``."""

    def __init__(self, held: set[str], conv_id: str) -> None:
        self._held = held
        self._conv_id = conv_id
        self._mine = False

    def acquire(self) -> bool:
        if self._mine:
            return True
        if self._conv_id in self._held:
            return False
        self._held.add(self._conv_id)
        self._mine = True
        return True

    def release(self) -> None:
        if self._mine:
            self._held.discard(self._conv_id)
            self._mine = False


class MemoryStore:
    """Conversations and their event logs in memory (see ``ikgui.domain.ports.Store``)."""

    def __init__(self) -> None:
        self._conversations: dict[str, Conversation] = {}
        self._events: dict[int, _Row] = {}
        #: The stored ``context_count`` and ``inherited_count`` of each conversation.
        self._stored: dict[str, tuple[int, int]] = {}
        self._last_id = 0
        #: Attached files by hash (SPEC §13).
        self._files: dict[str, StoredFile] = {}
        self._depth = 0
        #: Why writes are refused (like a database opened read-only), or None.
        self.read_only: str | None = None
        #: How many write blocks committed (a test can tell whether anything was written).
        self.commits = 0
        self._send_locks: set[str] = set()
        #: Smart folders and projects (SPEC §15), by name and by folder.
        self._smart: dict[str, SmartFolder] = {}
        self._projects: dict[str, Project] = {}

    # -- plumbing ------------------------------------------------------------------

    def close(self) -> None:
        pass

    def send_lock(self, conv_id: str) -> _MemorySendLock:
        return _MemorySendLock(self._send_locks, conv_id)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        if self.read_only is not None:
            raise StorageError(f"Could not write to the database: {self.read_only}.")
        saved = (
            copy.deepcopy(self._conversations),
            copy.deepcopy(self._events),
            self._last_id,
            dict(self._stored),
        )
        self._depth += 1
        try:
            yield
        except BaseException:
            self._conversations, self._events, self._last_id, self._stored = saved
            raise
        finally:
            self._depth -= 1
        if self._depth == 0:
            self.commits += 1

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A block whose writes commit together (nests; an exception undoes it)."""
        with self._writing():
            yield

    def data_version(self) -> int:
        # Changes only when *another* connection commits; nothing else shares this one.
        return 1

    def listing_version(self) -> int:
        return 1  # (as ``data_version``: no other connection)

    def _conversation(self, conv_id: str) -> Conversation:
        conv = self._conversations.get(conv_id)
        if conv is None:
            raise NotFoundError(f"Conversation not found: {conv_id}")
        return conv

    def _set(self, conv: Conversation, **fields: Any) -> None:
        """Change a stored conversation's fields (a ``Conversation`` is a frozen value)."""
        self._conversations[conv.id] = replace(conv, **fields)

    # -- conversations ---------------------------------------------------------------

    def conversation_exists(self, conv_id: str) -> bool:
        return conv_id in self._conversations

    def insert_conversation(self, conv: Conversation) -> None:
        if conv.status not in STATUSES:
            raise ValueError(f"Unknown conversation status: {conv.status}")
        with self._writing():
            if conv.id in self._conversations:
                raise StorageError(f"Could not write to the database: {conv.id} exists.")
            if conv.parent is not None and conv.parent not in self._conversations:
                raise StorageError(f"Could not write to the database: no {conv.parent}.")
            self._conversations[conv.id] = replace(
                conv, tags=_normalize_tags(conv.tags), draft=conv.draft or ""
            )
            self._stored[conv.id] = (conv.message_count, 0)
            if conv.parent is not None:
                self._carry([conv.id])

    def _carry(self, conv_ids: Sequence[str]) -> None:
        def fork_of(conv_id: str) -> tuple[str | None, int | None]:
            conv = self._conversations.get(conv_id)
            return (conv.parent, conv.fork_event_id) if conv is not None else (None, None)

        def upto(conv_id: str, bound: int) -> int:
            own = [r for i, r in self._own(conv_id) if i <= bound]
            return own[-1].tally.messages if own else 0

        for conv_id in conv_ids:
            context, _ = self._stored.get(conv_id, (0, 0))
            self._stored[conv_id] = (context, tally.carried(conv_id, fork_of, upto))

    def get_conversation(self, conv_id: str) -> Conversation | None:
        conv = self._conversations.get(conv_id)
        return replace(conv) if conv is not None else None

    def get_conversations(self, conv_ids: Sequence[str]) -> dict[str, Conversation]:
        found = (self._conversations.get(conv_id) for conv_id in conv_ids)
        return {conv.id: replace(conv) for conv in found if conv is not None}

    def find_by_suffix(self, ref: str) -> list[str]:
        if not ref:
            return []
        return sorted(i for i in self._conversations if i.endswith(ref))

    def update_conversation(self, conv_id: str, **changes: Any) -> None:
        unknown = sorted(set(changes) - UPDATABLE)
        if unknown:
            raise ValueError(f"Unknown conversation field: {', '.join(unknown)}")
        if "status" in changes and changes["status"] not in STATUSES:
            raise ValueError(f"Unknown conversation status: {changes['status']}")
        if not changes:
            return
        with self._writing():
            conv = self._conversation(conv_id)
            fields = dict(changes)
            if "title_by_user" in fields:
                fields["title_by_user"] = bool(fields["title_by_user"])
            if "draft" in fields:
                fields["draft"] = fields["draft"] or ""
            self._set(conv, **fields)

    def set_pinned(self, conv_ids: Sequence[str], pinned: bool) -> int:
        ids = list(dict.fromkeys(conv_ids))
        with self._writing():
            convs = [self._conversation(i) for i in ids]
            changed = [c for c in convs if c.pinned != pinned]
            for conv in changed:
                self._set(conv, pinned=pinned)
        return len(changed)

    def set_tags(self, conv_id: str, tags: Sequence[str]) -> None:
        with self._writing():
            self._set(self._conversation(conv_id), tags=_normalize_tags(tags))

    def change_tags(self, conv_id: str, add: Sequence[str], remove: Sequence[str]) -> None:
        with self._writing():
            conv = self._conversation(conv_id)
            gone = set(_normalize_tags(remove))
            self._set(
                conv, tags=_normalize_tags([t for t in conv.tags if t not in gone] + list(add))
            )

    def add_usage(self, conv_id: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        with self._writing():
            conv = self._conversation(conv_id)
            self._set(
                conv,
                tokens_input=conv.tokens_input + input_tokens,
                tokens_output=conv.tokens_output + output_tokens,
                cost=conv.cost + cost,
            )

    def children(self, conv_id: str) -> list[Conversation]:
        found = [c for c in self._conversations.values() if c.parent == conv_id]
        return [replace(c) for c in sorted(found, key=lambda c: (c.created_at, c.id))]

    def children_of(self, conv_ids: Sequence[str]) -> dict[str, list[Conversation]]:
        return {conv_id: self.children(conv_id) for conv_id in conv_ids}

    def last_conversation(self, agent: str | None = None) -> Conversation | None:
        found = self.list_conversations(1, agent=agent)
        return found[0] if found else None

    def delete_conversations(self, conv_ids: Sequence[str]) -> None:
        """Remove for good. Forks left behind (not in ``conv_ids``) become roots."""
        doomed = set(conv_ids)
        if not doomed:
            return
        with self._writing():
            for event_id in [i for i, r in self._events.items() if r.conversation_id in doomed]:
                del self._events[event_id]
            for conv in list(self._conversations.values()):
                if conv.parent in doomed and conv.id not in doomed:
                    self._set(conv, parent=None, fork_event_id=None)
            for conv_id in doomed:
                self._conversations.pop(conv_id, None)
                self._stored.pop(conv_id, None)
            self._carry(list(self._conversations))  # (few: recount them all)

    # -- attachments -------------------------------------------------------------------

    def put_files(self, files: Sequence[StoredFile]) -> None:
        for file in files:
            self._files.setdefault(file.sha256, file)

    def has_files(self, shas: Sequence[str]) -> set[str]:
        return {sha for sha in shas if sha in self._files}

    def read_files(self, shas: Sequence[str]) -> dict[str, StoredFile]:
        return {sha: self._files[sha] for sha in shas if sha in self._files}

    def remove_unreferenced_files(self) -> int:
        used = {
            a.sha256
            for row in self._events.values()
            for a in listed(json.loads(row.data) if row.data else None)
        }
        used |= {
            f.attachment.sha256
            for conv in self._conversations.values()
            for f in draft_files(getattr(conv, "draft_files", ""))
        }
        used |= {a.sha256 for p in self._projects.values() for a in p.files}
        gone = [sha for sha in self._files if sha not in used]
        for sha in gone:
            del self._files[sha]
        return len(gone)

    # -- events ------------------------------------------------------------------------

    def append_event(
        self,
        conv_id: str,
        kind: str,
        content: str = "",
        data: dict[str, Any] | None = None,
        created_at: float | None = None,
        files: Sequence[StoredFile] = (),
    ) -> Event:
        self.put_files(files)
        when = time.time() if created_at is None else float(created_at)
        raw = json.dumps(data, ensure_ascii=False) if data else None
        text = content or ""
        with self._writing():
            conv = self._conversation(conv_id)
            context, inherited = self._stored[conv_id]

            def lookup(event_id: int) -> tuple[str, tally.Tally] | None:
                row = self._events.get(event_id)
                ours = row is not None and row.conversation_id == conv_id
                return (row.kind, row.tally) if row is not None and ours else None

            event = Event(0, conv_id, kind, text, None, when, raw_data=raw)
            now = tally.after(tally.Tally(conv.message_count, context), event, lookup)
            self._set(conv, updated_at=when, message_count=now.messages)
            self._stored[conv_id] = (now.context, inherited)
            self._last_id += 1
            self._events[self._last_id] = _Row(conv_id, kind, text, raw, when, now)
        return Event(
            self._last_id, conv_id, kind, text, dict(data) if data else None, when, raw_data=raw
        )

    def update_event(self, event_id: int, content: str, data: dict[str, Any] | None) -> None:
        raw = json.dumps(data, ensure_ascii=False) if data else None
        text = content or ""
        with self._writing():
            row = self._events.get(event_id)
            if row is None:
                raise NotFoundError(f"Event not found: {event_id}")
            step = tally.grown(row.kind, row.content, text)
            if step:
                conv_id = row.conversation_id
                conv = self._conversation(conv_id)
                self._set(conv, message_count=conv.message_count + step)
                context, inherited = self._stored[conv_id]
                self._stored[conv_id] = (context + step, inherited)
                for later_id, later in self._own(conv_id):
                    if later_id >= event_id:
                        later.tally = tally.Tally(
                            later.tally.messages + step, later.tally.context + step
                        )
            row.content, row.data = text, raw

    def get_event(self, event_id: int) -> Event | None:
        row = self._events.get(event_id)
        return row.event(event_id) if row is not None else None

    def _own(self, conv_id: str) -> list[tuple[int, _Row]]:
        return sorted((i, r) for i, r in self._events.items() if r.conversation_id == conv_id)

    def last_event_id(self, conv_id: str) -> int | None:
        own = self._own(conv_id)
        return own[-1][0] if own else None

    def tail_stamp(self, conv_id: str, limit: int) -> list[tuple[int, int, int]]:
        own = self._own(conv_id)[-limit:] if limit > 0 else []
        return [(i, len(r.content), len(r.data or "")) for i, r in reversed(own)]

    def latest_clear(self, conv_id: str, upto: int | None) -> int | None:
        ids = [
            i for i, r in self._own(conv_id) if r.kind == "clear" and (upto is None or i <= upto)
        ]
        return ids[-1] if ids else None

    def events(
        self, conv_id: str, after: int | None = None, upto: int | None = None
    ) -> list[Event]:
        return [
            r.event(i)
            for i, r in self._own(conv_id)
            if (after is None or i > after) and (upto is None or i <= upto)
        ]

    def count_shown(self, conv_id: str, after: int, upto: int) -> int:
        return sum(1 for e in self.events(conv_id, after, upto) if shown(e))

    def inherited_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        return {conv_id: self._stored.get(conv_id, (0, 0))[1] for conv_id in conv_ids}

    def context_counts(self, conv_ids: Sequence[str]) -> dict[str, int]:
        return {conv_id: self._stored.get(conv_id, (0, 0))[0] for conv_id in conv_ids}

    def tail_events(self, conv_id: str, limit: int) -> list[Event]:
        own = self._own(conv_id)[-limit:] if limit > 0 else []
        return [r.event(i) for i, r in own]

    def unfinished_replies(self) -> list[Event]:
        events = [r.event(i) for i, r in sorted(self._events.items()) if r.kind == "assistant"]
        return [e for e in events if e.data.get("streaming") is True]

    # -- read-only views -----------------------------------------------------------------

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
        wanted = sorted(
            {t.strip().lower() for t in ([tag] if tag is not None else []) + list(tags)}
        )
        found = [
            c
            for c in self._conversations.values()
            if (c.trashed_at is not None) == trashed
            and (agent is None or c.agent == agent)
            and carries_all(c.tags, wanted)
            and (before is None or (c.updated_at, c.id) < before)
            and (after is None or (c.updated_at, c.id) > after)
            and (pinned is None or c.pinned == pinned)
        ]
        found.sort(key=lambda c: (c.updated_at, c.id), reverse=not oldest_first)
        return [replace(c) for c in found[:limit]]

    def search(self, words: str, limit: int = 50) -> list[SearchHit]:
        phrases = _phrases(words)
        if not phrases or limit <= 0:
            return []
        visible = {i: c for i, c in self._conversations.items() if c.trashed_at is None}
        # conversation id -> [newest matching event id, matches, title matches]
        found: dict[str, list[Any]] = {}
        for event_id, row in sorted(self._events.items(), reverse=True):
            mine = row.conversation_id in visible and row.kind in INDEXED_KINDS
            if mine and _matches(phrases, row.content):
                hit = found.setdefault(row.conversation_id, [event_id, 0, False])
                hit[1] += 1
        for conv_id, conv in visible.items():
            if _matches(phrases, conv.title or ""):
                found.setdefault(conv_id, [None, 0, False])[2] = True

        def rank(item: tuple[str, list[Any]]) -> tuple[int, int, int, float, str]:
            conv_id, (event_id, matches, title) = item
            tier = (2 if title else 0) + (1 if event_id is not None else 0)
            updated = visible[conv_id].updated_at if title else 0.0
            return (-tier, -matches, -(event_id or 0), -updated, conv_id)

        hits = []
        for conv_id, (event_id, _, _) in sorted(found.items(), key=rank)[:limit]:
            conv = visible[conv_id]
            text = self._events[event_id].content if event_id is not None else conv.title
            hits.append(SearchHit(replace(conv), event_id, _snippet(text or "", phrases)))
        return hits

    def all_tags(self) -> list[str]:
        return sorted({t for c in self._conversations.values() for t in c.tags})

    # -- tags across conversations -----------------------------------------------------

    def tag_counts(
        self, within: Sequence[str] = (), *, trashed: bool | None = False
    ) -> list[tuple[str, int]]:
        must = {t.strip().lower() for t in within}
        counts: dict[str, int] = {}
        for conv in self._conversations.values():
            if trashed is not None and (conv.trashed_at is not None) != trashed:
                continue
            if carries_all(conv.tags, sorted(must)):
                for name in conv.tags:
                    counts[name] = counts.get(name, 0) + 1
        return sorted(counts.items())

    def rename_tag(self, old: str, new: str) -> int:
        with self._writing():
            having = [c for c in self._conversations.values() if old in c.tags]
            for conv in having:
                self._set(conv, tags=_normalize_tags([new if t == old else t for t in conv.tags]))
        return len(having)

    def delete_tag(self, name: str) -> int:
        with self._writing():
            having = [c for c in self._conversations.values() if name in c.tags]
            for conv in having:
                self._set(conv, tags=tuple(t for t in conv.tags if t != name))
        return len(having)

    def tagged(self, name: str) -> list[str]:
        return sorted(c.id for c in self._conversations.values() if name in c.tags)

    def add_tag(self, conv_ids: Sequence[str], name: str) -> int:
        with self._writing():
            chosen = [self._conversations.get(c) for c in sorted(set(conv_ids))]
            lacking = [c for c in chosen if c is not None and name not in c.tags]
            for conv in lacking:
                self._set(conv, tags=_normalize_tags([*conv.tags, name]))
        return len(lacking)

    def remove_tag(self, conv_ids: Sequence[str], name: str) -> int:
        with self._writing():
            chosen = [self._conversations.get(c) for c in sorted(set(conv_ids))]
            having = [c for c in chosen if c is not None and name in c.tags]
            for conv in having:
                self._set(conv, tags=tuple(t for t in conv.tags if t != name))
        return len(having)

    # -- folders, smart folders and projects (SPEC §15) -----------------------------------

    def folder_counts(self, *, trashed: bool = False) -> list[tuple[str, int]]:
        paths = {
            node.path
            for root in folder_tree((t, 0) for t in self.all_tags())
            for node in root.walk()
        }
        kept = [c for c in self._conversations.values() if (c.trashed_at is not None) == trashed]
        counted = [(p, sum(1 for c in kept if carries_all(c.tags, [p]))) for p in sorted(paths)]
        return [(p, n) for p, n in counted if n]

    def tags_under(self, folder: str) -> list[str]:
        return [t for t in self.all_tags() if is_under(t, folder)]

    def folder_members(self, folder: str) -> dict[str, list[str]]:
        return {t: self.tagged(t) for t in self.tags_under(folder)}

    def move_tags(self, old: str, new: str) -> dict[str, tuple[list[str], list[str]]]:
        changed: dict[str, tuple[list[str], list[str]]] = {}
        with self._writing():
            for conv in sorted(self._conversations.values(), key=lambda c: c.id):
                tags = list(conv.tags)
                for name in [t for t in tags if is_under(t, old)]:
                    target = new + name[len(old) :]
                    moved, merged = changed.setdefault(name, ([], []))
                    (merged if target in tags else moved).append(conv.id)
                    tags = [t for t in tags if t != name] + ([] if target in tags else [target])
                if tags != list(conv.tags):
                    self._set(conv, tags=_normalize_tags(tags))
        return changed

    def change_tag_pairs(
        self, remove: Sequence[tuple[str, str]], add: Sequence[tuple[str, str]]
    ) -> int:
        added = 0
        with self._writing():
            for conv_id, name in sorted(set(remove)):
                conv = self._conversations.get(conv_id)
                if conv is not None and name in conv.tags:
                    self._set(conv, tags=tuple(t for t in conv.tags if t != name))
            for conv_id, name in sorted(set(add)):
                conv = self._conversations.get(conv_id)
                if conv is not None and name not in conv.tags:
                    self._set(conv, tags=_normalize_tags([*conv.tags, name]))
                    added += 1
        return added

    def count_conversations(self, tags: Sequence[str] = (), *, trashed: bool = False) -> int:
        return len(self.list_conversations(None, trashed=trashed, tags=tags))

    def smart_folders(self) -> list[SmartFolder]:
        return [self._smart[n] for n in sorted(self._smart)]

    def put_smart_folder(self, folder: SmartFolder, replacing: str | None = None) -> None:
        with self._writing():
            self._smart.pop(replacing if replacing is not None else folder.name, None)
            self._smart[folder.name] = folder

    def delete_smart_folder(self, name: str) -> bool:
        with self._writing():
            return self._smart.pop(name, None) is not None

    def projects(self, folders: Sequence[str] | None = None) -> list[Project]:
        chosen = sorted(self._projects) if folders is None else sorted(set(folders))
        return [self._projects[f] for f in chosen if f in self._projects]

    def put_project(self, project: Project) -> None:
        with self._writing():
            self._projects.pop(project.folder, None)
            if not project.empty:
                self._projects[project.folder] = project

    def delete_project(self, folder: str) -> bool:
        with self._writing():
            return self._projects.pop(folder, None) is not None
