"""What one conversation row of the sidebar says: the item roles and their values.

Both sidebar models (the conversation tree and the search results) answer ``data()``
through :func:`row_value`, from the ``Conversation`` they cache — never from the store,
so painting and scrolling cost no queries.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from ikgui.domain.events import STATUS_KILLED, Conversation
from ikgui.domain.timefmt import relative
from ikgui.ui.plain import line, tooltip
from ikgui.ui.sidebar.branch_text import branch_count_sentence, branch_count_text

_USER = int(Qt.ItemDataRole.UserRole)

#: The row's ``Conversation`` (the cached value; refreshed by the model).
ConversationRole = _USER + 1
#: The conversation id (``str``).
IdRole = _USER + 2
#: The title shown: the conversation's title or ``"Untitled"``, on one line with its bidi
#: controls visible (``str``). ``EditRole`` holds the title exactly as stored.
TitleRole = _USER + 3
#: The agent name or ``None``.
AgentRole = _USER + 4
#: The number of user and assistant messages (``int``).
MessageCountRole = _USER + 5
#: ``updated_at`` in Unix seconds (``float``).
UpdatedRole = _USER + 6
#: ``updated_at`` relative to now: ``now``, ``5m ago`` ... (``str``).
RelativeTimeRole = _USER + 7
#: The tags, lowercase and sorted (``tuple[str, ...]``).
TagsRole = _USER + 8
#: Whether a reply is streaming into the conversation right now (``bool``).
StreamingRole = _USER + 9
#: Whether the branch was closed with ``/kill`` (``bool``); such rows are dimmed.
ClosedRole = _USER + 10
#: Whether the conversation is in the Trash (``bool``).
TrashedRole = _USER + 11
#: The second line of the row: ``id · agent · N msgs``, made safe like the title (``str``).
DetailRole = _USER + 12
#: Search results only: the matching text around the hit (``str``); ``None`` elsewhere.
SnippetRole = _USER + 13
#: Search results only: the id of the matching event (``int``) or ``None`` (title match).
EventIdRole = _USER + 14
#: Search results only: the words searched for (``str``).
QueryRole = _USER + 15

UNTITLED = "Untitled"


def title_of(conv: Conversation) -> str:
    """The title as shown: one line, control and bidi characters visible."""
    return line(conv.title) if conv.title else UNTITLED


def count_text(count: int, in_context: int | None = None) -> str:
    """``12 msgs``, or ``8/12 msgs`` when only 8 of them are in the context."""
    if in_context is not None and in_context != count:
        return f"{in_context}/{count} msgs"
    return "1 msg" if count == 1 else f"{count} msgs"


def count_sentence(count: int, in_context: int | None = None) -> str:
    """What the count counts, in words (the row's tooltip and accessible text)."""
    said = "1 message" if count == 1 else f"{count} messages"
    if in_context is None:
        return said
    if in_context == count:
        return f"{said}, all in the model's context"
    return (
        f"{said}, {in_context} of them in the model's context (the others were "
        "rewound, cleared or replaced by Retry)"
    )


def detail_of(
    conv: Conversation, in_context: int | None = None, inherited: int | None = None
) -> str:
    parts = [conv.id]
    if conv.agent:
        parts.append(conv.agent)
    count = conv.message_count
    parts.append(branch_count_text(count, inherited, in_context) or count_text(count, in_context))
    return line(" · ".join(parts))


def description_of(
    conv: Conversation,
    now: float,
    streaming: bool,
    in_context: int | None = None,
    inherited: int | None = None,
) -> str:
    """One sentence for screen readers (plain text; :func:`tooltip_of` for tooltips)."""
    parts = [title_of(conv), conv.id]
    if conv.agent:
        parts.append(f"agent {conv.agent}")
    parts.append(count_sentence(conv.message_count, in_context))
    if inherited:
        parts.append(branch_count_sentence(conv.message_count, inherited))
    parts.append(f"updated {relative(conv.updated_at, now)}")
    if conv.tags:
        parts.append("tags " + ", ".join(conv.tags))
    if conv.status == STATUS_KILLED:
        parts.append("closed")
    if conv.trashed_at is not None:
        parts.append("in the Trash")
    if streaming:
        parts.append("reply streaming")
    return line(", ".join(parts))


def tooltip_of(
    conv: Conversation,
    now: float,
    streaming: bool,
    more: str = "",
    in_context: int | None = None,
    inherited: int | None = None,
) -> str:
    """The row's tooltip: its description (and ``more``, e.g. a search snippet) as escaped
    HTML, so a title like ``<img src=...>`` is shown, never loaded."""
    text = description_of(conv, now, streaming, in_context, inherited)
    return tooltip(f"{text}\n{line(more)}" if more else text)


def row_value(
    conv: Conversation,
    role: int,
    now: float,
    streaming: bool,
    in_context: int | None = None,
    inherited: int | None = None,
) -> object:
    """The value of ``role`` for a row showing ``conv`` (``None`` for unknown roles);
    ``in_context``: how many of its messages are in its context, if known; ``inherited``:
    how many a fork carries from its ancestors, if known."""
    if role in (Qt.ItemDataRole.DisplayRole, TitleRole):
        return title_of(conv)
    if role == Qt.ItemDataRole.EditRole:
        return conv.title or ""
    if role == ConversationRole:
        return conv
    if role == IdRole:
        return conv.id
    if role == AgentRole:
        return conv.agent
    if role == MessageCountRole:
        return conv.message_count
    if role == UpdatedRole:
        return conv.updated_at
    if role == RelativeTimeRole:
        return relative(conv.updated_at, now)
    if role == TagsRole:
        return tuple(conv.tags)
    if role == StreamingRole:
        return streaming
    if role == ClosedRole:
        return conv.status == STATUS_KILLED
    if role == TrashedRole:
        return conv.trashed_at is not None
    if role == DetailRole:
        return detail_of(conv, in_context, inherited)
    if role == Qt.ItemDataRole.ToolTipRole:
        return tooltip_of(conv, now, streaming, in_context=in_context, inherited=inherited)
    if role == Qt.ItemDataRole.AccessibleTextRole:
        return description_of(conv, now, streaming, in_context, inherited)
    return None


def sort_key(conv: Conversation) -> tuple[float, str]:
    """The listing order's key (``list_conversations`` sorts by it, descending)."""
    return (conv.updated_at, conv.id)
