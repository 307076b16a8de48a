"""Event kinds and the value types of the event log (SPEC §2, §3)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    PROMPT_EDIT = "prompt_edit"
    MARK = "mark"
    REWIND = "rewind"
    CLEAR = "clear"
    #: Retry of the last reply: the context goes back to the user message it answered.
    RETRY = "retry"
    FORK = "fork"
    COMMAND = "command"
    AGENT_KILLED = "agent_killed"
    AGENT_REOPENED = "agent_reopened"
    ERROR = "error"
    #: A decision about a tool call (SPEC §12): shown on the call's card, never sent.
    TOOL_APPROVAL = "tool_approval"
    #: Which alternative of a turn is shown and sent (SPEC §14): never sent itself.
    CHOOSE = "choose"


#: Kinds that become part of the model's context (and the scrollback).
CONVERSATION_KINDS = frozenset(
    {
        Kind.SYSTEM,
        Kind.USER,
        Kind.ASSISTANT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.PROMPT_EDIT,
    }
)
KNOWN_KINDS = frozenset(k.value for k in Kind)
#: Kinds counted in a conversation's message count (the MSGS column).
MESSAGE_KINDS = frozenset({Kind.USER, Kind.ASSISTANT})

STATUS_ACTIVE = "active"
STATUS_KILLED = "killed"
STATUS_TRASHED = "trashed"

#: Why a branch was made (``Conversation.branch_reason``, the fork events' ``reason``):
#: deliberate forks and compared models are listed as branches; edits and retries are
#: alternatives of a turn, which must not flood the list.
BRANCH_FORK = "fork"
BRANCH_EDIT = "edit"
BRANCH_RETRY = "retry"
BRANCH_COMPARE = "compare"
BRANCH_REASONS = frozenset({BRANCH_FORK, BRANCH_EDIT, BRANCH_RETRY, BRANCH_COMPARE})
#: The reasons whose branches are alternatives of a turn rather than branches of their own.
ALTERNATIVE_REASONS = frozenset({BRANCH_EDIT, BRANCH_RETRY})

#: Who closes or reopens a branch today: the user (``/kill``, ``ikgui conv kill``, the
#: window's menus). Agents that close their sub-agents would say their own name.
BY_USER = "user"


#: A string value this long is encoded a slice at a time (see :class:`EncodedData`).
_SLICE = 1 << 20


def _encoded(value: Any) -> str:
    if isinstance(value, str) and len(value) > _SLICE:
        # Escaping is per character: the slices' encodings, unquoted, join into the
        # whole's. Each is one short C call, so another thread gets the GIL in between.
        pieces = (
            json.dumps(value[start : start + _SLICE], ensure_ascii=False)[1:-1]
            for start in range(0, len(value), _SLICE)
        )
        return '"' + "".join(pieces) + '"'
    return json.dumps(value, ensure_ascii=False)


class EncodedData(dict[str, Any]):
    """Event data with its JSON text made already — ``json``, the very text
    ``json.dumps(data, ensure_ascii=False)`` gives — so that storage writes it as is.

    A tool's output may be 10 MB: encoding it took ~30 ms, and one ``json.dumps`` call
    holds the GIL throughout; made on a thread of its own (``asyncio.to_thread``) a
    slice at a time, the event loop goes on meanwhile. Treat it as read-only."""

    __slots__ = ("json",)

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.json = (
            "{" + ", ".join(f"{_encoded(str(k))}: {_encoded(v)}" for k, v in data.items()) + "}"
        )


def data_text(data: dict[str, Any] | None) -> str | None:
    """Event data as the JSON text storage keeps (``None`` when empty)."""
    if not data:
        return None
    if isinstance(data, EncodedData):
        return data.json
    return json.dumps(data, ensure_ascii=False)


def _parse_data(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


class Event:
    """One row of a conversation's log.

    ``data`` is parsed lazily from its JSON text: replaying a long history touches
    the data of only a few kinds, and parsing every row would dominate the cost.
    Malformed JSON reads as an empty dict; it never raises.
    """

    __slots__ = ("_data", "_raw", "content", "conversation_id", "created_at", "id", "kind")

    def __init__(
        self,
        id: int,
        conversation_id: str,
        kind: str,
        content: str = "",
        data: dict[str, Any] | None = None,
        created_at: float = 0.0,
        *,
        raw_data: str | None = None,
    ) -> None:
        self.id = id
        self.conversation_id = conversation_id
        self.kind = kind
        self.content = content or ""
        self._data = data
        self._raw = raw_data
        self.created_at = created_at

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = _parse_data(self._raw)
        return self._data

    def may_have(self, key: str) -> bool:
        """False when the data certainly lacks ``key`` (checked without parsing)."""
        if self._data is not None:
            return key in self._data
        return bool(self._raw) and f'"{key}"' in self._raw  # type: ignore[operator]

    def data_json(self) -> str | None:
        """The data as JSON text (``None`` when empty), as storage keeps it."""
        if self._data is None:
            return self._raw or None
        return json.dumps(self._data, ensure_ascii=False) if self._data else None

    def with_changes(self, content: str, data: dict[str, Any]) -> Event:
        return Event(self.id, self.conversation_id, self.kind, content, data, self.created_at)

    def __repr__(self) -> str:
        return f"Event({self.id}, {self.conversation_id!r}, {self.kind!r}, {self.content[:30]!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (
            self.id == other.id
            and self.conversation_id == other.conversation_id
            and self.kind == other.kind
            and self.content == other.content
            and self.data == other.data
        )

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Conversation:
    """A conversation's stored fields (SPEC §2). Tags are lowercase and sorted. A value:
    a change makes a new one (``dataclasses.replace``), so a view holding one never sees
    it change under it."""

    id: str
    parent: str | None = None
    fork_event_id: int | None = None
    agent: str | None = None
    provider: str | None = None
    model: str | None = None
    title: str | None = None
    title_by_user: bool = False
    tags: tuple[str, ...] = ()
    status: str = STATUS_ACTIVE
    created_at: float = 0.0
    updated_at: float = 0.0
    tokens_input: int = 0
    tokens_output: int = 0
    cost: float = 0.0
    message_count: int = 0
    trashed_at: float | None = None
    draft: str = ""
    #: Pinned conversations are listed first in the sidebar (under "Pinned").
    pinned: bool = False
    #: An edit of the working prompt not saved yet (``None``: none; ``""`` empties it),
    #: and the one a Clear set aside behind "Restore unsaved edit": session state kept
    #: with the conversation, as ``draft`` (the message typed, not sent) is.
    prompt_draft: str | None = None
    prompt_set_aside: str | None = None
    #: The files attached to ``draft`` and not sent yet (JSON of
    #: :class:`ikgui.domain.attachments.DraftFile`; ``""``: none), kept as the draft is.
    draft_files: str = ""
    #: Why this branch was made (SPEC §14): ``BRANCH_FORK`` (``/fork``, Fork from here),
    #: ``BRANCH_EDIT`` (Edit and resend), ``BRANCH_RETRY`` (Retry of an earlier reply),
    #: ``BRANCH_COMPARE`` (one per compared model); ``None`` for a root. Set once, when the
    #: fork is stored; a branch from before it was kept reads as a deliberate fork.
    branch_reason: str | None = None

    @property
    def visible_status(self) -> str:
        """``trashed`` while in the Trash, otherwise ``active`` or ``killed``."""
        return STATUS_TRASHED if self.trashed_at is not None else self.status


@dataclass(frozen=True)
class SearchHit:
    """A full-text match: the conversation and the newest matching message (if any)."""

    conversation: Conversation
    event_id: int | None
    snippet: str


@dataclass
class TreeNode:
    conversation: Conversation
    children: list[TreeNode] = field(default_factory=list)
