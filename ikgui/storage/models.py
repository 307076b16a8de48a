"""Peewee models mirroring the current schema, and the row <-> ``Conversation`` mapping.

The models are not bound to a database: every query is executed with the store's own
database (``query.execute(db)``), so two stores never share state, and the same models
serve SQLite and PostgreSQL. The schema itself is created by frozen SQL
(:mod:`ikgui.storage.migrations`, :mod:`ikgui.storage.pg_migrations`); a test keeps these
models and both schemas in step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from peewee import (
    AutoField,
    BlobField,
    Field,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from ikgui.domain.events import Conversation, Event

# The one rule for tags (the domain's), re-exported for the repository.
from ikgui.domain.state.ids import normalize_tags as normalize_tags


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
    prompt_draft = TextField(null=True)
    prompt_set_aside = TextField(null=True)
    #: The domain's counts (``ikgui.domain.state.tally``), stored as events are appended (no
    #: default here: the database's 0, so peewee leaves them out of a row written to a
    #: database before version 6).
    context_count = IntegerField()
    inherited_count = IntegerField()
    #: The files attached to the draft (JSON; version 7; no default here, as the counts).
    draft_files = TextField()
    #: Why a branch was made (``Conversation.branch_reason``; version 8; NULL for a root).
    branch_reason = TextField(null=True)

    class Meta:
        table_name = "conversation"


class EventRow(_Base):
    id = AutoField()  # AUTOINCREMENT: ids are never reused, even after deletes
    conversation = ForeignKeyField(ConversationRow, column_name="conversation_id")
    kind = TextField()
    content = TextField(default="")
    data = TextField(null=True)  # JSON object text
    created_at = FloatField()
    #: The conversation's tally after this event (``ikgui.domain.state.tally.after``).
    tally_messages = IntegerField()
    tally_context = IntegerField()

    class Meta:
        table_name = "event"


class TagRow(_Base):
    id = AutoField()
    conversation = ForeignKeyField(ConversationRow, column_name="conversation_id")
    name = TextField()  # lowercase

    class Meta:
        table_name = "tag"
        indexes = ((("conversation", "name"), True),)


class FileRow(_Base):
    """A file attached to messages, once per content (SPEC §13; version 7). ``name``
    and ``created_at``: when and under which name it was first stored."""

    sha256 = TextField(primary_key=True)
    name = TextField()
    mime = TextField()
    size = IntegerField()
    created_at = FloatField()
    text = TextField(null=True)
    content = BlobField()  # last, as in both schemas: reading the others skips it

    class Meta:
        table_name = "stored_file"


class EventFileRow(_Base):
    """One file an event lists (``data["attachments"]``), under the name it gave it: the
    references that keep a file stored, and what search finds of it."""

    id = AutoField()
    event = ForeignKeyField(EventRow, column_name="event_id")
    file = ForeignKeyField(FileRow, column_name="sha256")
    name = TextField()

    class Meta:
        table_name = "event_file"


class SmartFolderRow(_Base):
    """A saved search (SPEC §15; version 8): its text and its tags (a JSON list)."""

    name = TextField(primary_key=True)
    search = TextField(default="")
    tags = TextField(default="[]")
    created_at = FloatField()

    class Meta:
        table_name = "smart_folder"


class ProjectRow(_Base):
    """A folder's settings (SPEC §15; version 8). ``tools``: a JSON list, NULL for not
    set; ``files``: as a draft keeps them (``ikgui.domain.attachments.draft_files_text``)."""

    folder = TextField(primary_key=True)
    agent = TextField(null=True)
    provider = TextField(null=True)
    model = TextField(null=True)
    system_prompt = TextField(null=True)
    tools = TextField(null=True)
    files = TextField(default="")
    updated_at = FloatField()

    class Meta:
        table_name = "project"


MODELS: tuple[type[Model], ...] = (
    ConversationRow,
    EventRow,
    TagRow,
    FileRow,
    EventFileRow,
    SmartFolderRow,
    ProjectRow,
)


#: What joins a conversation's tags in one column (``listing``; ``\\x1f`` is never in a tag).
TAG_SEP = "\x1f"

#: The ``conversation`` columns every read selects, in the models' order; rows are mapped
#: to values by these names (``conversation_from_row``), never by position elsewhere.
CONVERSATION_FIELDS: tuple[Field, ...] = tuple(ConversationRow._meta.sorted_fields)
_CONVERSATION_NAMES = tuple(f.name for f in CONVERSATION_FIELDS)

#: The ``event`` columns a read selects, in the order ``event_from_row`` names them.
EVENT_FIELDS: tuple[Field, ...] = tuple(EventRow._meta.sorted_fields)
_EVENT_NAMES = tuple(f.name for f in EVENT_FIELDS)


def conversation_from_row(row: Sequence[Any]) -> Conversation:
    """A ``Conversation`` from a row selected with ``CONVERSATION_FIELDS`` followed by
    its tags joined by ``TAG_SEP`` (``None`` without tags; see ``listing``)."""
    tags = row[-1]
    return conversation_from_fields(row[:-1], tuple(sorted(tags.split(TAG_SEP))) if tags else ())


def conversation_from_fields(row: Sequence[Any], tags: tuple[str, ...]) -> Conversation:
    """A ``Conversation`` from a row selected with ``CONVERSATION_FIELDS`` and its tags
    (sorted).

    The names below are the model's field names in its order, and ``Conversation`` is
    called with them in the order of its fields (both checked at import by
    ``_check_names``): unpacking and positional arguments are the cheapest mapping for
    a 10,000-row listing (keywords cost twice as much)."""
    (
        id_,
        parent,
        fork_event_id,
        agent,
        provider,
        model,
        title,
        title_by_user,
        status,
        trashed_at,
        created_at,
        updated_at,
        tokens_input,
        tokens_output,
        cost,
        message_count,
        draft,
        pinned,
        prompt_draft,
        prompt_set_aside,
        _context_count,  # read by ``Store.context_counts``
        _inherited_count,
        draft_files,
        branch_reason,
    ) = row
    return Conversation(
        id_,
        parent,
        fork_event_id,
        agent,
        provider,
        model,
        title,
        bool(title_by_user),
        tags,
        status,
        created_at,
        updated_at,
        tokens_input,
        tokens_output,
        cost,
        message_count,
        trashed_at,
        draft or "",
        bool(pinned),
        prompt_draft,
        prompt_set_aside,
        draft_files or "",
        branch_reason,
    )


#: ``Conversation``'s fields in the order ``conversation_from_fields`` passes them.
_CONVERSATION_ARGS = (
    "id",
    "parent",
    "fork_event_id",
    "agent",
    "provider",
    "model",
    "title",
    "title_by_user",
    "tags",
    "status",
    "created_at",
    "updated_at",
    "tokens_input",
    "tokens_output",
    "cost",
    "message_count",
    "trashed_at",
    "draft",
    "pinned",
    "prompt_draft",
    "prompt_set_aside",
    "draft_files",
    "branch_reason",
)


#: Columns of the row that ``Conversation`` does not carry.
_STORED_COUNTS = ("context_count", "inherited_count")


def _check_names() -> None:
    code = conversation_from_fields.__code__
    unpacked = code.co_varnames[code.co_argcount : code.co_argcount + len(_CONVERSATION_NAMES)]
    expected = tuple(
        "id_" if n == "id" else f"_{n}" if n in _STORED_COUNTS else n for n in _CONVERSATION_NAMES
    )
    if unpacked != expected:  # pragma: no cover - a model change without this mapping
        raise AssertionError(f"conversation_from_fields unpacks {unpacked}, not {expected}")
    fields = tuple(f.name for f in dataclasses.fields(Conversation))
    if fields != _CONVERSATION_ARGS:  # pragma: no cover - Conversation's fields changed
        raise AssertionError(f"Conversation's fields are {fields}, not {_CONVERSATION_ARGS}")


_check_names()


def event_from_row(row: Sequence[Any]) -> Event:
    """An ``Event`` (its data still JSON text) from a row selected with ``EVENT_FIELDS``."""
    v = dict(zip(_EVENT_NAMES, row, strict=True))
    return Event(
        v["id"],
        v["conversation"],
        v["kind"],
        v["content"],
        None,
        v["created_at"],
        raw_data=v["data"],
    )


def conversation_values(conv: Conversation) -> dict[str, Any]:
    """The ``conversation`` row for ``conv`` (column name -> value); the working prompt's
    drafts and the draft's files only when there are some (the columns have defaults),
    and the stored context count only when not 0 (its default), so a row without them
    is written as a database before version 5 (or 6, 7) holds it."""
    values: dict[str, Any] = {
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
    if conv.prompt_draft is not None:
        values["prompt_draft"] = conv.prompt_draft
    if conv.prompt_set_aside is not None:
        values["prompt_set_aside"] = conv.prompt_set_aside
    if conv.draft_files:
        values["draft_files"] = conv.draft_files
    if conv.branch_reason is not None:
        values["branch_reason"] = conv.branch_reason
    if conv.message_count:  # (no events yet: all of them in its context)
        values["context_count"] = conv.message_count
    return values
