"""Import: ikgui exports and orcx files, validated and made safe, written all or nothing.

An import file is untrusted. Its ids must match SPEC §2 (an invalid, repeated or taken
id gets a new one, and the result says so); numbers must be numbers in range; strings
that cannot be stored (lone surrogates) are repaired; a parent cycle is broken (the
conversation that closes it becomes a root); tool calls in OpenAI's nested shape are
read as ikgui's ``{id, name, arguments}``. Anything else wrong refuses the whole file
with one ``UserError`` naming what is wrong, and nothing is written.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any

from ikgui.domain.attachments import StoredFile
from ikgui.domain.errors import UserError
from ikgui.domain.events import BRANCH_FORK, BRANCH_REASONS, BY_USER, Conversation, Kind
from ikgui.domain.library.files import available, from_document
from ikgui.domain.library.import_values import (
    clean_strings,
    count,
    money,
    text,
    tool_call_data,
    tool_event_data,
)
from ikgui.domain.ports import Store
from ikgui.domain.state.ids import TAG_LENGTH, new_id, normalize_tag, shown
from ikgui.domain.text.safe import valid_id
from ikgui.domain.text.times import parse_iso

FORMAT = "ikgui"
VERSION = 1
#: Latest timestamp accepted (the end of year 9999, what ``datetime`` can show).
MAX_TIME = 253402300799.0


@dataclass
class ImportResult:
    """The new ids (oldest ancestor first) and one line per conversation renamed."""

    ids: list[str] = field(default_factory=list)
    renamed: list[str] = field(default_factory=list)
    #: One line per conversation whose tags were cut (too many, or not valid tags).
    cut: list[str] = field(default_factory=list)


def _orcx_events(obj: dict[str, Any], offset: int) -> list[dict[str, Any]]:
    messages = obj.get("messages")
    if not isinstance(messages, list):
        raise UserError("Not an orcx conversation: 'messages' is not a list")
    events: list[dict[str, Any]] = []

    def add(kind: str, content: Any, data: dict[str, Any] | None, when: Any) -> None:
        events.append(
            {
                "id": offset + len(events) + 1,
                "kind": kind,
                "content": text(content) or "",
                "data": data,
                "created_at": when,
            }
        )

    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant", "system", "tool"):
            raise UserError(f"Not an orcx conversation: message {index + 1} has no valid role")
        assert isinstance(message, dict)
        when = message.get("timestamp") or obj.get("created_at")
        if role == "tool":
            output = text(message.get("content")) or ""
            data = {
                "tool_call_id": text(message.get("tool_call_id")) or "",
                "name": text(message.get("name")) or "",
                "output": output,
                "success": True,
            }
            add(Kind.TOOL_RESULT, output[:200], data, when)
            continue
        calls = message.get("tool_calls")
        if message.get("content") or not isinstance(calls, list):
            add(role, message.get("content"), None, when)
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                data = tool_call_data(call)
                add(Kind.TOOL_CALL, str(data.get("name") or ""), data, when)
    return events


def _orcx_to_ikgui(obj: dict[str, Any], offset: int) -> dict[str, Any]:
    events = _orcx_events(obj, offset)
    where = f"conversation {shown(str(obj.get('id')))}"
    return {
        "id": obj.get("id"),
        "agent": obj.get("agent"),
        "model": obj.get("model"),
        "title": obj.get("title"),
        "title_by_user": bool(obj.get("title")),
        "tags": obj.get("tags") or [],
        "created_at": obj.get("created_at"),
        "updated_at": obj.get("updated_at"),
        "tokens": {"input": 0, "output": count(obj.get("total_tokens"), "total_tokens", where)},
        "cost": money(obj.get("total_cost"), "total_cost", where),
        "events": events,
    }


_TOOL_KINDS = (Kind.TOOL_CALL, Kind.TOOL_APPROVAL, Kind.TOOL_RESULT)


def _check_conversation(conv: Any, index: int) -> dict[str, Any]:
    where = f"conversation {index + 1}"
    if not isinstance(conv, dict) or not isinstance(conv.get("id"), str) or not conv["id"]:
        raise UserError(f"Not a valid export: {where} has no id")
    where = f"conversation {index + 1} ({shown(conv['id'])})"
    if not isinstance(conv.get("events", []), list):
        raise UserError(f"Not a valid export: {where} has no event list")
    for event in conv.get("events", []):
        if not isinstance(event, dict) or type(event.get("id")) is not int:
            raise UserError(f"Not a valid export: an event of {where} has no id")
        if not isinstance(event.get("kind"), str):
            raise UserError(f"Not a valid export: event {event['id']} has no kind")
        if event.get("data") is not None and not isinstance(event["data"], dict):
            raise UserError(f"Not a valid export: event {event['id']} has malformed data")
        if event["kind"] in _TOOL_KINDS and isinstance(event.get("data"), dict):
            event["data"] = tool_event_data(event["kind"], event["data"])
        elif event["kind"] == Kind.CLEAR and isinstance(event.get("data"), dict):
            # Grants carried by a clear are this log's own, never a file's.
            event["data"].pop("tool_grants", None)
    raw_tokens = conv.get("tokens")
    tokens: dict[str, Any] = raw_tokens if isinstance(raw_tokens, dict) else {}
    conv["tokens"] = {
        "input": count(tokens.get("input"), "tokens.input", where),
        "output": count(tokens.get("output"), "tokens.output", where),
    }
    conv["cost"] = money(conv.get("cost"), "cost", where)
    return conv


def normalize_document(obj: Any) -> list[dict[str, Any]]:
    """The conversations of an ikgui export or orcx file(s), validated, as dicts."""
    obj = clean_strings(obj)
    if isinstance(obj, dict) and obj.get("format") == FORMAT:
        if obj.get("version") != VERSION:
            raise UserError(
                f"Unsupported ikgui export version {shown(repr(obj.get('version')))} "
                f"(this version reads {VERSION})"
            )
        convs = obj.get("conversations")
        if not isinstance(convs, list):
            raise UserError("Not a valid ikgui export: 'conversations' is not a list")
    elif isinstance(obj, dict) and "messages" in obj:
        convs = [_orcx_to_ikgui(obj, 0)]
    elif (
        isinstance(obj, list) and obj and all(isinstance(o, dict) and "messages" in o for o in obj)
    ):
        convs = [_orcx_to_ikgui(o, 1_000_000 * i) for i, o in enumerate(obj)]
    else:
        raise UserError("Not an ikgui export or an orcx conversation file")
    return [_check_conversation(conv, index) for index, conv in enumerate(convs)]


def _time(value: Any, fallback: float) -> float:
    try:
        when = parse_iso(value) if value is not None else fallback
    except (ValueError, TypeError, OverflowError):
        return fallback
    return when if math.isfinite(when) and 0 <= when <= MAX_TIME else fallback


#: The most tags one imported conversation keeps (the first, in sorted order): a file
#: may carry any number, and a conversation is not a tag store.
MAX_TAGS = 1000


def _tags(value: Any) -> tuple[tuple[str, ...], str | None]:
    """The valid tags of ``value`` (at most :data:`MAX_TAGS`), and what was cut, in words."""
    tags = set()
    given = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    invalid = 0
    for tag in given:
        try:
            tags.add(normalize_tag(str(tag)))
        except UserError:
            invalid += 1
    kept = sorted(tags)[:MAX_TAGS]
    cuts = []
    if len(tags) > MAX_TAGS:
        cuts.append(
            f"kept the first {MAX_TAGS:,} of its {len(tags):,} tags "
            f"(at most {MAX_TAGS:,} per conversation)"
        )
    if invalid:
        cuts.append(
            f"left out {invalid:,} tag{'s' if invalid != 1 else ''} that "
            f"{'are not valid tags' if invalid != 1 else 'is not a valid tag'} "
            f"(up to {TAG_LENGTH} letters, digits, '-', '_', '.' or '+')"
        )
    return tuple(kept), "; ".join(cuts) or None


class _Importer:
    """Conversations are known by their position in the file (ids may repeat)."""

    def __init__(
        self,
        store: Store,
        convs: list[dict[str, Any]],
        now: float,
        files: dict[str, StoredFile] | None = None,
    ) -> None:
        self.store = store
        #: The files the document embeds (checked against their hashes).
        self.files = files or {}
        self.now = now
        self.convs = convs
        self.first_with: dict[str, int] = {}
        for index, conv in enumerate(convs):
            self.first_with.setdefault(conv["id"], index)
        self.file_ids = {conv["id"].lower() for conv in convs}
        self.new_by_index: dict[int, str] = {}
        self.id_map: dict[str, str] = {}  # old id -> new id, for links inside event data
        self.result = ImportResult()
        self.old_ids: list[int] = []
        self.new_ids: list[int] = []
        self.event_map: dict[int, int] = {}

    def map_bound(self, old: Any) -> int | None:
        """The new id bounding the same events ``old`` bounded."""
        if type(old) is not int:
            return None
        index = bisect.bisect_right(self.old_ids, old)
        return self.new_ids[index - 1] if index else 0

    def _parent_index(self, index: int) -> int | None:
        parent = self.convs[index].get("parent")
        return self.first_with.get(parent) if isinstance(parent, str) else None

    def ensure(self, index: int) -> str:
        """The new id of conversation ``index``, creating it (and its ancestors) first."""
        chain: list[int] = []
        current: int | None = index
        while current is not None and current not in self.new_by_index and current not in chain:
            chain.append(current)
            current = self._parent_index(current)
        # A cycle stops at a conversation already in the chain: the last one becomes a root.
        for item in reversed(chain):
            parent_index = self._parent_index(item)
            parent = self.new_by_index.get(parent_index) if parent_index is not None else None
            self._create(item, parent)
        return self.new_by_index[index]

    def _taken(self, candidate: str) -> bool:
        return (
            self.store.conversation_exists(candidate)
            or candidate in self.new_by_index.values()
            or candidate in self.file_ids
        )

    def _new_id(self, index: int, old: str) -> str:
        conv = self.convs[index]
        proposed = old.lower()
        if not valid_id(proposed):
            why = "not a valid id"
        elif self.first_with[old] != index or proposed in self.new_by_index.values():
            why = "repeated in the file"
        elif self.store.conversation_exists(proposed):
            why = "already taken"
        else:
            return proposed
        new = new_id(text(conv.get("agent")), self._taken)
        self.result.renamed.append(f"Renamed {shown(old)} ({why}) to {new}")
        return new

    def _create(self, index: int, parent: str | None) -> None:
        conv = self.convs[index]
        old = conv["id"]
        new = self._new_id(index, old)
        self.new_by_index[index] = new
        self.id_map.setdefault(old, new)
        created = _time(conv.get("created_at"), self.now)
        trashed = conv.get("trashed_at")
        if conv.get("status") == "trashed" and trashed is None:
            trashed = self.now
        tags, cut = _tags(conv.get("tags"))
        if cut is not None:
            self.result.cut.append(f"{new}: {cut}")
        self.store.insert_conversation(
            Conversation(
                id=new,
                parent=parent,
                fork_event_id=self.map_bound(conv.get("fork_event_id")) if parent else None,
                agent=text(conv.get("agent")),
                provider=text(conv.get("provider")),
                model=text(conv.get("model")),
                title=text(conv.get("title")),
                title_by_user=bool(conv.get("title_by_user")),
                tags=tags,
                status="killed" if conv.get("status") == "killed" else "active",
                created_at=created,
                updated_at=_time(conv.get("updated_at"), created),
                tokens_input=conv["tokens"]["input"],
                tokens_output=conv["tokens"]["output"],
                cost=conv["cost"],
                trashed_at=_time(trashed, self.now) if trashed is not None else None,
                draft=text(conv.get("draft")) or "",
                branch_reason=_reason(conv.get("branch_reason")) if parent else None,
            )
        )
        self.result.ids.append(new)

    def remap_data(self, kind: str, data: dict[str, Any] | None) -> dict[str, Any] | None:
        if not data:
            return data
        data = dict(data)
        if kind in (Kind.REWIND, Kind.RETRY) and type(data.get("target_event_id")) is int:
            data["target_event_id"] = self.event_map.get(data["target_event_id"], -1)
        if kind == Kind.CHOOSE:  # (SPEC §14: the events it names are remapped alike)
            for key in ("slot_event_id", "chosen_event_id", "context_event_id"):
                if type(data.get(key)) is int:
                    data[key] = self.event_map.get(data[key], -1)
        if kind == Kind.FORK and "fork_event_id" in data:
            data["fork_event_id"] = self.map_bound(data["fork_event_id"])
        for key in ("child_id", "parent_id", "target", "killed_by", "reopened_by", "from"):
            if key.endswith("_by") and data.get(key) == BY_USER:
                continue  # who (since issue 20), not a conversation that may be called so
            if isinstance(data.get(key), str) and data[key] in self.id_map:
                data[key] = self.id_map[data[key]]
        return data

    def run(self) -> ImportResult:
        events = sorted(
            ((e, index) for index, c in enumerate(self.convs) for e in c.get("events", [])),
            key=lambda pair: int(pair[0]["id"]),
        )
        for event, index in events:
            conv_id = self.ensure(index)
            kind = event["kind"]
            data, files, gone = available(
                self.remap_data(kind, event.get("data")), self.files, self.store
            )
            if gone:
                self.result.cut.append(f"{conv_id}: left out {', '.join(gone)} (not in the file)")
            new_event = self.store.append_event(
                conv_id,
                kind,
                text(event.get("content")) or "",
                data,
                _time(event.get("created_at"), self.now),
                files=files,
            )
            self.event_map[event["id"]] = new_event.id
            self.old_ids.append(event["id"])
            self.new_ids.append(new_event.id)
        for index in range(len(self.convs)):
            self.ensure(index)
        return self.result


def import_document(store: Store, obj: Any, now: float) -> ImportResult:
    """Import an ikgui export or orcx file(s): the new ids and the renames.

    Everything is validated first and written in one transaction: all or nothing.
    """
    files = from_document(obj)  # (before strings are cleaned: checked by their hash)
    convs = normalize_document(obj)
    # Unknown kinds (a newer version's) are kept as they are; replay shows them generically.
    with store.transaction():
        return _Importer(store, convs, now, files).run()


def _reason(value: object) -> str | None:
    """A branch's reason from a file: a known one, otherwise a deliberate fork (as a
    branch from before reasons were kept reads)."""
    return value if isinstance(value, str) and value in BRANCH_REASONS else BRANCH_FORK
