"""Attached files in exports (SPEC §13): embedded in ikgui JSON (base64, each once per
document), read back from an import file (untrusted: a file whose bytes do not have
its hash is left out), and written into a folder beside a Markdown export."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ikgui.domain.attachments import Attachment, StoredFile, listed
from ikgui.domain.events import Event
from ikgui.domain.ports import Store


def embedded(store: Store, events: Iterable[Event]) -> list[dict[str, Any]]:
    """The files ``events`` list, for an export's ``files`` (each once, in order)."""
    shas = list(dict.fromkeys(a.sha256 for e in events for a in listed(_data(e))))
    found = store.read_files(shas) if shas else {}
    return [
        {
            **found[sha].attachment.data(),
            "text": found[sha].text,
            "content": base64.b64encode(found[sha].content).decode("ascii"),
        }
        for sha in shas
        if sha in found
    ]


def _data(event: Event) -> dict[str, Any] | None:
    return event.data if event.may_have("attachments") else None


def from_document(document: Any) -> dict[str, StoredFile]:
    """The files an import file embeds whose bytes have the hash they claim."""
    raw = document.get("files") if isinstance(document, Mapping) else None
    found: dict[str, StoredFile] = {}
    for entry in raw if isinstance(raw, list) else []:
        attachment = Attachment.from_data(entry)
        content = entry.get("content") if attachment is not None else None
        if attachment is None or not isinstance(content, str):
            continue
        try:
            data = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hashlib.sha256(data).hexdigest() != attachment.sha256:
            continue  # damaged or made up: never stored under a hash it does not have
        text = entry.get("text")
        size_fixed = Attachment(attachment.sha256, attachment.name, attachment.mime, len(data))
        found[attachment.sha256] = StoredFile(
            size_fixed, data, text if isinstance(text, str) else None
        )
    return found


def available(
    data: dict[str, Any] | None, files: Mapping[str, StoredFile], store: Store
) -> tuple[dict[str, Any] | None, list[StoredFile], list[str]]:
    """An imported event's data with only the attachments it can have (embedded in the
    file, or stored already), the files to store with it, and the names left out."""
    if not data or "attachments" not in data:
        return data, [], []
    entries = listed(data)
    stored = store.has_files([a.sha256 for a in entries if a.sha256 not in files])
    kept = [a for a in entries if a.sha256 in files or a.sha256 in stored]
    gone = [a.name for a in entries if a not in kept]
    fixed = dict(data)
    if kept:
        fixed["attachments"] = [a.data() for a in kept]
    else:
        fixed.pop("attachments")
    needed = {a.sha256: files[a.sha256] for a in kept if a.sha256 in files}
    return fixed, list(needed.values()), gone


_UNSAFE = re.compile(r"[^\w.+\- ]+")


def safe_name(name: str) -> str:
    """``name`` as a file name in an export's folder: no folders, nothing hidden."""
    base = _UNSAFE.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip(" .")
    return base[:120] or "file"


def folder_for(path: Path) -> Path:
    """The folder beside a Markdown export that holds its files: ``notes.md`` →
    ``notes_files``."""
    return path.with_name(f"{path.stem}_files")


def names_in_folder(attachments: Iterable[Attachment]) -> dict[str, str]:
    """A distinct file name per file (hash -> name), as the folder holds them."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for a in attachments:
        if a.sha256 in names:
            continue
        name = safe_name(a.name)
        if name.lower() in taken:
            stem, dot, ext = name.rpartition(".")
            name = f"{stem or ext}-{a.sha256[:8]}{dot}{ext if stem else ''}"
        taken.add(name.lower())
        names[a.sha256] = name
    return names


def write_folder(store: Store, folder: Path, names: Mapping[str, str]) -> None:
    """Write the files into ``folder`` under ``names`` (one read of the store's bytes)."""
    if not names:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for sha, file in store.read_files(list(names)).items():
        (folder / names[sha]).write_bytes(file.content)
