"""Export and import: the lossless ikgui JSON format, orcx files, Markdown for reading.

ikgui JSON: ``{"format": "ikgui", "version": 1, "conversations": [{...fields,
"events": [{"id", "kind", "content", "data", "created_at"}]}]}``. Exporting a fork
includes its ancestors (oldest first) so an import reproduces the same context.
Importing gives new ids where they clash and keeps fork links: events are inserted
in their original global order, so every event-id bound maps monotonically.
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import NotFoundError, UserError
from ikgui.domain.events import Conversation, Event, Kind
from ikgui.domain.ids import new_id, normalize_tag
from ikgui.domain.listing import describe
from ikgui.domain.ports import Store
from ikgui.domain.replay import ReplayState, replay_conversation
from ikgui.domain.timefmt import iso, parse_iso

if TYPE_CHECKING:
    from ikgui.domain.session import Session

FORMAT = "ikgui"
VERSION = 1


def conversation_fields(conv: Conversation, state: ReplayState) -> dict[str, Any]:
    """The fields of ``conv show --json`` and of each exported conversation."""
    return {
        "id": conv.id,
        "parent": conv.parent,
        "fork_event_id": conv.fork_event_id,
        "agent": conv.agent,
        "provider": conv.provider,
        "model": conv.model,
        "title": conv.title,
        "tags": list(conv.tags),
        "status": conv.visible_status,
        "created_at": iso(conv.created_at),
        "updated_at": iso(conv.updated_at),
        "tokens": {"input": conv.tokens_input, "output": conv.tokens_output},
        "cost": conv.cost,
        "working_prompt": state.working_prompt,
    }


def event_dict(event: Event) -> dict[str, Any]:
    return {
        "id": event.id,
        "kind": event.kind,
        "content": event.content,
        "data": event.data or None,
        "created_at": iso(event.created_at),
    }


def lineage(store: Store, conv_id: str) -> list[Conversation]:
    """``conv_id`` and its ancestors, oldest first."""
    chain: list[Conversation] = []
    seen: set[str] = set()
    current: str | None = conv_id
    while current is not None and current not in seen:
        seen.add(current)
        conv = store.get_conversation(current)
        if conv is None:
            if not chain:
                raise NotFoundError(f"Conversation not found: {current}")
            break
        chain.append(conv)
        current = conv.parent
    chain.reverse()
    return chain


def export_json(store: Store, conv_ids: Iterable[str]) -> dict[str, Any]:
    conversations: list[dict[str, Any]] = []
    included: set[str] = set()
    for conv_id in conv_ids:
        for conv in lineage(store, conv_id):
            if conv.id in included:
                continue
            included.add(conv.id)
            fields = conversation_fields(conv, replay_conversation(store, conv.id))
            fields["title_by_user"] = conv.title_by_user
            fields["trashed_at"] = iso(conv.trashed_at) if conv.trashed_at is not None else None
            fields["draft"] = conv.draft
            fields["events"] = [event_dict(e) for e in store.events(conv.id)]
            conversations.append(fields)
    return {"format": FORMAT, "version": VERSION, "conversations": conversations}


def export_markdown(store: Store, conv_id: str) -> str:
    conv = store.get_conversation(conv_id)
    if conv is None:
        raise NotFoundError(f"Conversation not found: {conv_id}")
    state = replay_conversation(store, conv_id)
    lines = [f"# {conv.title or conv.id}", ""]
    facts = [f"- **Conversation:** `{conv.id}`"]
    if conv.parent:
        facts.append(f"- **Forked from:** `{conv.parent}`")
    facts.append(f"- **Agent:** {conv.agent or '-'}  ")
    facts.append(f"- **Model:** {conv.model or '-'} ({conv.provider or '-'})")
    if conv.tags:
        facts.append("- **Tags:** " + ", ".join(conv.tags))
    facts.append(f"- **Created:** {iso(conv.created_at)}")
    lines += [*facts, "", "---", ""]
    headings = {Kind.USER: "You", Kind.ASSISTANT: "Assistant", Kind.SYSTEM: "System"}
    for event in state.scrollback:
        text = describe(event)
        if event.kind in headings:
            lines += [f"### {headings[Kind(event.kind)]}", "", text, ""]
        elif event.kind == Kind.TOOL_CALL:
            args = json.dumps(event.data.get("arguments"), ensure_ascii=False)
            lines += [f"**Tool call** `{event.data.get('name', '?')}` {args}", ""]
        elif event.kind == Kind.TOOL_RESULT:
            lines += [
                f"**Tool result** `{event.data.get('name', '?')}`",
                "",
                "```",
                str(event.data.get("output", event.content)),
                "```",
                "",
            ]
        elif event.kind == Kind.ERROR:
            lines += [f"> **Error:** {text}", ""]
        else:
            lines += [f"> {text}", ""]
    if state.working_prompt:
        lines += ["---", "", f"**Working prompt:** {state.working_prompt}", ""]
    return "\n".join(lines).rstrip() + "\n"


def default_export_path(session: Session, fmt: str) -> Path:
    return session.export_dir / f"{session.conversation.id}.{'md' if fmt == 'md' else 'json'}"


def write_export(store: Store, conv_id: str, fmt: str, path: Path) -> Path:
    if fmt == "md":
        text = export_markdown(store, conv_id)
    else:
        text = json.dumps(export_json(store, [conv_id]), ensure_ascii=False, indent=2) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"Could not write {path}: {exc.strerror or exc}") from exc
    return path


# -- import -------------------------------------------------------------------


def _orcx_to_ikgui(obj: dict[str, Any], offset: int) -> dict[str, Any]:
    messages = obj.get("messages")
    if not isinstance(messages, list):
        raise UserError("Not an orcx conversation: 'messages' is not a list")
    events = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in (
            "user",
            "assistant",
            "system",
        ):
            raise UserError(f"Not an orcx conversation: message {index + 1} has no valid role")
        events.append(
            {
                "id": offset + index + 1,
                "kind": message["role"],
                "content": str(message.get("content") or ""),
                "data": None,
                "created_at": message.get("timestamp") or obj.get("created_at"),
            }
        )
    return {
        "id": obj.get("id"),
        "agent": obj.get("agent"),
        "model": obj.get("model"),
        "title": obj.get("title"),
        "title_by_user": bool(obj.get("title")),
        "tags": obj.get("tags") or [],
        "created_at": obj.get("created_at"),
        "updated_at": obj.get("updated_at"),
        "tokens": {"input": 0, "output": int(obj.get("total_tokens") or 0)},
        "cost": float(obj.get("total_cost") or 0.0),
        "events": events,
    }


def normalize_document(obj: Any) -> list[dict[str, Any]]:
    """The conversations of an ikgui export or orcx file(s), validated, as dicts."""
    if isinstance(obj, dict) and obj.get("format") == FORMAT:
        if obj.get("version") != VERSION:
            raise UserError(
                f"Unsupported ikgui export version {obj.get('version')!r} "
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
    for index, conv in enumerate(convs):
        where = f"conversation {index + 1}"
        if not isinstance(conv, dict) or not isinstance(conv.get("id"), str) or not conv["id"]:
            raise UserError(f"Not a valid export: {where} has no id")
        if not isinstance(conv.get("events", []), list):
            raise UserError(f"Not a valid export: {where} has no event list")
        for event in conv.get("events", []):
            if not isinstance(event, dict) or not isinstance(event.get("id"), int):
                raise UserError(f"Not a valid export: an event of {conv['id']} has no id")
            if not isinstance(event.get("kind"), str):
                raise UserError(f"Not a valid export: event {event['id']} has no kind")
            if event.get("data") is not None and not isinstance(event["data"], dict):
                raise UserError(f"Not a valid export: event {event['id']} has malformed data")
    return convs


class _Importer:
    def __init__(self, store: Store, convs: list[dict[str, Any]], now: float) -> None:
        self.store = store
        self.now = now
        self.by_old = {c["id"]: c for c in convs}
        self.id_map: dict[str, str] = {}
        self.created: list[str] = []
        self.old_ids: list[int] = []
        self.new_ids: list[int] = []
        self.event_map: dict[int, int] = {}

    def _time(self, value: Any, fallback: float) -> float:
        try:
            return parse_iso(value) if value is not None else fallback
        except (ValueError, TypeError):
            return fallback

    def map_bound(self, old: Any) -> int | None:
        """The new id bounding the same events ``old`` bounded."""
        if not isinstance(old, int):
            return None
        index = bisect.bisect_right(self.old_ids, old)
        return self.new_ids[index - 1] if index else 0

    def ensure(self, old_id: str) -> str:
        if old_id in self.id_map:
            return self.id_map[old_id]
        conv = self.by_old[old_id]
        parent_old = str(conv.get("parent") or "")
        parent = (
            self.ensure(parent_old) if parent_old in self.by_old and parent_old != old_id else None
        )
        new = old_id.lower()
        if self.store.conversation_exists(new) or new in self.id_map.values():
            new = new_id(conv.get("agent"), self.store.conversation_exists)
        self.id_map[old_id] = new
        raw_tokens = conv.get("tokens")
        tokens: dict[str, Any] = raw_tokens if isinstance(raw_tokens, dict) else {}
        created = self._time(conv.get("created_at"), self.now)
        status = "killed" if conv.get("status") == "killed" else "active"
        trashed = conv.get("trashed_at")
        if conv.get("status") == "trashed" and trashed is None:
            trashed = self.now
        tags = []
        for tag in conv.get("tags") or []:
            try:
                tags.append(normalize_tag(str(tag)))
            except UserError:
                continue
        self.store.insert_conversation(
            Conversation(
                id=new,
                parent=parent,
                fork_event_id=self.map_bound(conv.get("fork_event_id")) if parent else None,
                agent=conv.get("agent"),
                provider=conv.get("provider"),
                model=conv.get("model"),
                title=conv.get("title"),
                title_by_user=bool(conv.get("title_by_user")),
                tags=tuple(sorted(set(tags))),
                status=status,
                created_at=created,
                updated_at=self._time(conv.get("updated_at"), created),
                tokens_input=int(tokens.get("input") or 0),
                tokens_output=int(tokens.get("output") or 0),
                cost=float(conv.get("cost") or 0.0),
                trashed_at=self._time(trashed, self.now) if trashed is not None else None,
                draft=str(conv.get("draft") or ""),
            )
        )
        self.created.append(new)
        return new

    def remap_data(self, kind: str, data: dict[str, Any] | None) -> dict[str, Any] | None:
        if not data:
            return data
        data = dict(data)
        if kind == Kind.REWIND and isinstance(data.get("target_event_id"), int):
            data["target_event_id"] = self.event_map.get(data["target_event_id"], -1)
        if kind == Kind.FORK and "fork_event_id" in data:
            data["fork_event_id"] = self.map_bound(data["fork_event_id"])
        for key in ("child_id", "parent_id", "target", "killed_by"):
            if isinstance(data.get(key), str) and data[key] in self.id_map:
                data[key] = self.id_map[data[key]]
        return data

    def run(self) -> list[str]:
        events = sorted(
            ((e, c["id"]) for c in self.by_old.values() for e in c.get("events", [])),
            key=lambda pair: pair[0]["id"],
        )
        for event, old_conv in events:
            conv_id = self.ensure(old_conv)
            kind = event["kind"]
            new_event = self.store.append_event(
                conv_id,
                kind,
                str(event.get("content") or ""),
                self.remap_data(kind, event.get("data")),
                self._time(event.get("created_at"), self.now),
            )
            self.event_map[event["id"]] = new_event.id
            self.old_ids.append(event["id"])
            self.new_ids.append(new_event.id)
        for old_id in self.by_old:
            self.ensure(old_id)
        return self.created


def import_document(store: Store, obj: Any, now: float) -> list[str]:
    """Import an ikgui export or orcx file(s); returns the new ids, oldest ancestor first.

    Everything is validated first and written in one transaction: all or nothing.
    """
    convs = normalize_document(obj)
    # Unknown kinds (a newer version's) are kept as they are; replay shows them generically.
    with store.transaction():
        return _Importer(store, convs, now).run()
