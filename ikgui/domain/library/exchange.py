"""Export and import: the lossless ikgui JSON format, orcx files, Markdown for reading.

ikgui JSON: ``{"format": "ikgui", "version": 1, "conversations": [{...fields,
"events": [{"id", "kind", "content", "data", "created_at"}]}], "files": [...]}``, where
``files`` (when a message lists any) embeds each file once: its ``sha256``, ``name``,
``mime``, ``size``, ``text`` and base64 ``content`` (an import keeps only a file whose
bytes have its hash). Exporting a fork includes its ancestors (oldest first) so an
import reproduces the same context. Importing (:mod:`ikgui.domain.library.importing`)
gives new ids where they clash and keeps fork links: events are inserted in their
original global order, so every event-id bound maps monotonically.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ikgui.domain.attachments import is_image, listed, size_text
from ikgui.domain.errors import NotFoundError, UserError
from ikgui.domain.events import Conversation, Event, Kind
from ikgui.domain.library import files as library_files
from ikgui.domain.library.importing import FORMAT, VERSION, ImportResult, import_document
from ikgui.domain.library.listing import describe
from ikgui.domain.ports import Store
from ikgui.domain.state import tool_record
from ikgui.domain.state.history import lineage
from ikgui.domain.state.reading import labels
from ikgui.domain.state.replay import ReplayState, replay_conversation
from ikgui.domain.text.safe import valid_id
from ikgui.domain.text.times import iso

__all__ = [
    "FORMAT",
    "VERSION",
    "ImportResult",
    "default_export_path",
    "export_json",
    "export_markdown",
    "import_document",
    "lineage",
    "write_export",
]


def conversation_fields(conv: Conversation, state: ReplayState) -> dict[str, Any]:
    """The fields of ``conv show --json`` and of each exported conversation."""
    return {
        "id": conv.id,
        "parent": conv.parent,
        "fork_event_id": conv.fork_event_id,
        "branch_reason": conv.branch_reason,
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


def export_json(store: Store, conv_ids: Iterable[str]) -> dict[str, Any]:
    """The conversations (with their ancestors) as ikgui JSON; the files their messages
    list are embedded once each (``files``: their fields, ``text``, base64 ``content``)."""
    conversations: list[dict[str, Any]] = []
    events: list[Event] = []
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
            logged = store.events(conv.id)
            events.extend(logged)
            fields["events"] = [event_dict(e) for e in logged]
            conversations.append(fields)
    document = {"format": FORMAT, "version": VERSION, "conversations": conversations}
    files = library_files.embedded(store, events)
    if files:
        document["files"] = files
    return document


def export_markdown(store: Store, conv_id: str, folder: str | None = None) -> str:
    """The conversation as Markdown; a message's files are linked in ``folder`` (a
    folder beside the file, named relative to it), or named when there is none."""
    return _markdown(store, conv_id, folder, {})


def _markdown(store: Store, conv_id: str, folder: str | None, names: dict[str, str]) -> str:
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
    headings = labels(Kind.USER, Kind.ASSISTANT, Kind.SYSTEM)
    calls = tool_record.calls_by_id(state.scrollback)
    for event in state.scrollback:
        text = describe(event)
        if event.kind in headings:
            lines += [f"### {headings[event.kind]}", "", text, ""]
            lines += _attachment_lines(event, folder, names)
        elif event.kind == Kind.TOOL_CALL:
            args = tool_record.arguments_text(event.data.get("arguments"), indent=2)
            lines += [f"**Tool call** {_code(tool_record.qualified(event.data))}", ""]
            lines += [*_block(args, "json"), ""]
        elif event.kind == Kind.TOOL_APPROVAL:
            call = calls.get(str(event.data.get("tool_call_id")))
            lines += [f"*{_plain(tool_record.decision_line(event, call))}*", ""]
        elif event.kind == Kind.TOOL_RESULT:
            head = tool_record.result_head(event)
            name = tool_record.qualified(event.data)
            lines += [f"**Tool result** {_code(name)}{_plain(head[len(name) :])}", ""]
            for asked in tool_record.question_lines(event):
                lines += [f"*{_plain(asked)}*", ""]
            lines += [*_block(tool_record.output_text(event)), ""]
        elif event.kind == Kind.ERROR:
            lines += [f"> **Error:** {text}", ""]
        else:
            lines += [f"> {text}", ""]
    if state.working_prompt:
        lines += ["---", "", f"**Working prompt:** {state.working_prompt}", ""]
    return "\n".join(lines).rstrip() + "\n"


def _attachment_lines(event: Event, folder: str | None, names: dict[str, str]) -> list[str]:
    """A message's files: linked (images shown) in the export's folder, or named."""
    attachments = listed(event.data) if event.may_have("attachments") else []
    if not attachments:
        return []
    if folder is None:
        return [
            *(f"- Attached: {_plain(a.name)} ({size_text(a.size)})" for a in attachments),
            "",
        ]
    names.update(library_files.names_in_folder(a for a in attachments if a.sha256 not in names))
    lines = []
    for a in attachments:
        target = quote(f"{folder}/{names[a.sha256]}")
        bang = "!" if is_image(a.mime) else ""
        lines.append(f"{bang}[{_plain(a.name)}]({target})")
    return [*lines, ""]


def _block(text: str, language: str = "") -> list[str]:
    """``text`` as a fenced code block that nothing in it can close."""
    mark = tool_record.fence(text)
    return [f"{mark}{language}", *text.splitlines(), mark]


def _code(text: str) -> str:
    """``text`` as inline code, on one line, whatever backticks it holds."""
    text = " ".join(text.split())
    mark = "`" * (tool_record.backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{mark}{pad}{text}{pad}{mark}"


def _plain(text: str) -> str:
    """``text`` shown as itself in Markdown (no emphasis, link or HTML of its own)."""
    return re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", " ".join(text.split()))


def default_export_path(conv_id: str, export_dir: Path, fmt: str) -> Path:
    """``<export_dir>/<id>.<md|json>``, never outside ``export_dir`` whatever the id."""
    stem = conv_id if valid_id(conv_id) else re.sub(r"[^a-z0-9_-]", "_", conv_id.lower())[:64]
    try:
        folder = export_dir.resolve()
        path = (folder / f"{stem or 'conversation'}.{'md' if fmt == 'md' else 'json'}").resolve()
    except (RuntimeError, OSError) as exc:  # 3.11 says RuntimeError for a link loop
        raise UserError(
            f"Cannot export to {export_dir}: {_unusable_folder(exc)}; give a file name "
            "(/export FILE)"
        ) from exc
    if path.parent != folder:
        raise UserError(f"Cannot export to {path}: it leads out of {folder}; give a file name")
    return path


def _unusable_folder(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "it is a symbolic link that leads back to itself (a link loop)"
    return f"the folder cannot be used ({getattr(exc, 'strerror', None) or exc})"


def write_export(store: Store, conv_id: str, fmt: str, path: Path) -> Path:
    """Write the export to ``path`` (Markdown: its files into a folder beside it)."""
    if fmt == "md":
        folder = library_files.folder_for(path)
        names: dict[str, str] = {}
        text = _markdown(store, conv_id, folder.name, names)
        try:
            library_files.write_folder(store, folder, names)
        except OSError as exc:
            raise UserError(f"Could not write {folder}: {_write_failure(folder, exc)}") from exc
    else:
        text = json.dumps(export_json(store, [conv_id]), ensure_ascii=False, indent=2) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):  # a folder that is gone or unwritable holds none
            tmp.unlink(missing_ok=True)
        raise UserError(f"Could not write {path}: {_write_failure(path, exc)}") from exc
    return path


def _write_failure(path: Path, exc: OSError) -> str:
    """Why ``path`` could not be written, in words (mkdir says "File exists" for a folder
    that is a link loop)."""
    try:
        os.stat(path.parent)
    except OSError as folder:
        if folder.errno == errno.ELOOP:
            return "its folder is a symbolic link that leads back to itself (a link loop)"
    return str(exc.strerror or exc)
