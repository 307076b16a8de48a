"""Peewee models mirroring the current schema, and the row <-> ``Conversation`` mapping.

The models are not bound to a database: every query is executed with the store's own
database (``query.execute(db)``), so two stores on two files never share state. The
schema itself is created by :mod:`ikgui.storage.migrations` (frozen SQL); a test keeps
these models and that SQL in step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peewee import (
    AutoField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from ikgui.domain.events import Conversation

# The one rule for tags (the domain's), re-exported for the repository.
from ikgui.domain.ids import normalize_tags as normalize_tags


class _Base(Model):
    class Meta:
        database = None
        legacy_table_names = False


class ConversationRow(_Base):
    id = TextField(primary_key=True)
    # No cascade: deleting conversations is explicit (SqliteStore.delete_conversations).
    parent = ForeignKeyField("self", null=True, column_name="parent_id", backref="forks")
    fork_event_id = IntegerField(null=True)
    agent = TextField(null=True)
    provider = TextField(null=True)
    model = TextField(null=True)
    title = TextField(null=True)
    title_by_user = IntegerField(default=0)
    status = TextField(default="active")
    trashed_at = FloatField(null=True)
    created_at = FloatField()
    updated_at = FloatField()
    tokens_input = IntegerField(default=0)
    tokens_output = IntegerField(default=0)
    cost = FloatField(default=0.0)
    message_count = IntegerField(default=0)
    draft = TextField(default="")
    pinned = IntegerField(default=0)

    class Meta:
        table_name = "conversation"


class EventRow(_Base):
    id = AutoField()  # AUTOINCREMENT: ids are never reused, even after deletes
    conversation = ForeignKeyField(ConversationRow, column_name="conversation_id")
    kind = TextField()
    content = TextField(default="")
    data = TextField(null=True)  # JSON object text
    created_at = FloatField()

    class Meta:
        table_name = "event"


class TagRow(_Base):
    id = AutoField()
    conversation = ForeignKeyField(ConversationRow, column_name="conversation_id")
    name = TextField()  # lowercase

    class Meta:
        table_name = "tag"
        indexes = ((("conversation", "name"), True),)


MODELS: tuple[type[Model], ...] = (ConversationRow, EventRow, TagRow)

#: Fields of ``Conversation`` that ``update_conversation`` may set.
UPDATABLE = frozenset(
    {"title", "title_by_user", "agent", "provider", "model", "status", "trashed_at", "draft"}
)
STATUSES = frozenset({"active", "killed"})

_TAG_SEP = "\x1f"

#: The SELECT list matching :func:`conversation_from_row` (alias ``c``; tags last).
CONVERSATION_COLUMNS = (
    "c.id, c.parent_id, c.fork_event_id, c.agent, c.provider, c.model, c.title, "
    "c.title_by_user, c.status, c.created_at, c.updated_at, c.tokens_input, "
    "c.tokens_output, c.cost, c.message_count, c.trashed_at, c.draft, c.pinned, "
    f"(SELECT group_concat(t.name, '{_TAG_SEP}') FROM tag t WHERE t.conversation_id = c.id)"
)


def conversation_from_row(row: Sequence[Any]) -> Conversation:
    tags = row[18]
    return Conversation(
        id=row[0],
        parent=row[1],
        fork_event_id=row[2],
        agent=row[3],
        provider=row[4],
        model=row[5],
        title=row[6],
        title_by_user=bool(row[7]),
        tags=tuple(sorted(tags.split(_TAG_SEP))) if tags else (),
        status=row[8],
        created_at=row[9],
        updated_at=row[10],
        tokens_input=row[11],
        tokens_output=row[12],
        cost=row[13],
        message_count=row[14],
        trashed_at=row[15],
        draft=row[16] or "",
        pinned=bool(row[17]),
    )


def conversation_values(conv: Conversation) -> dict[str, Any]:
    """The ``conversation`` row for ``conv`` (column name -> value)."""
    return {
        "id": conv.id,
        "parent_id": conv.parent,
        "fork_event_id": conv.fork_event_id,
        "agent": conv.agent,
        "provider": conv.provider,
        "model": conv.model,
        "title": conv.title,
        "title_by_user": int(conv.title_by_user),
        "status": conv.status,
        "trashed_at": conv.trashed_at,
        "created_at": conv.created_at,
        "updated_at": conv.updated_at,
        "tokens_input": conv.tokens_input,
        "tokens_output": conv.tokens_output,
        "cost": conv.cost,
        "message_count": conv.message_count,
        "draft": conv.draft or "",
        "pinned": int(conv.pinned),
    }
