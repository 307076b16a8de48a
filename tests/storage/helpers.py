"""Helpers shared by the storage tests."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ikgui.domain.events import Conversation
from ikgui.storage import SqliteStore


def add_conversation(store: SqliteStore, conv_id: str, **fields: Any) -> Conversation:
    """Insert a conversation with sensible times (``created_at`` 1000 unless given)."""
    fields.setdefault("created_at", 1000.0)
    fields.setdefault("updated_at", fields["created_at"])
    conv = Conversation(id=conv_id, **fields)
    store.insert_conversation(conv)
    return conv


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
