"""What one conversation row of the sidebar says: the item roles and their values.

Both sidebar models (the conversation tree and the search results) answer ``data()``
through :func:`row_value`, from the ``Conversation`` they cache — never from the store,
so painting and scrolling cost no queries.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt

from ikgui.domain.events import ALTERNATIVE_REASONS, BRANCH_FORK, STATUS_KILLED, Conversation
from ikgui.domain.text.times import date_group, relative, short_date
from ikgui.ui.plain import line, tooltip
from ikgui.ui.sidebar.branch_text import branch_count_sentence, branch_count_text, messages
from ikgui.ui.sidebar.chips import chip_label

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
#: ``updated_at`` as the row's date: ``14:32`` today, ``Yesterday``, a weekday within a
#: week, then ``12 Mar`` / ``12 Mar 2024`` (``str``; see ``timefmt.short_date``).
RelativeTimeRole = _USER + 7
#: The tags, lowercase and sorted (``tuple[str, ...]``).
TagsRole = _USER + 8
#: Whether a reply is streaming into the conversation right now (``bool``).
StreamingRole = _USER + 9
#: Whether the branch was closed with ``/kill`` (``bool``); such rows are dimmed.
ClosedRole = _USER + 10
#: Whether the conversation is in the Trash (``bool``).
TrashedRole = _USER + 11
#: The second line of the row: ``agent · N messages · date``, made safe like the title (``str``;
#: the id is in the tooltip and the menu's "Copy id").
DetailRole = _USER + 12
#: Search results only: the matching text around the hit (``str``); ``None`` elsewhere.
SnippetRole = _USER + 13
#: Search results only: the id of the matching event (``int``) or ``None`` (title match).
EventIdRole = _USER + 14
#: Search results only: the words searched for (``str``).
QueryRole = _USER + 15
#: Whether the conversation is pinned (``bool``).
PinnedRole = _USER + 16
#: The group a top-level row belongs to: ``Pinned``, ``Today``, ``Yesterday``, ``Previous
#: 7 days``, ``Previous 30 days`` or a month (``str``).
GroupRole = _USER + 17
#: The conversation list only: a group's header row says its text (``str``); ``None`` on
#: every other row. A header is a row of its own, as tall as a conversation's.
HeaderRole = _USER + 18
#: Why the conversation was branched (issue 25): ``None`` for a root, else
#: ``BRANCH_FORK``, ``BRANCH_COMPARE`` (deliberate branches: a branch glyph) or
#: ``BRANCH_EDIT``, ``BRANCH_RETRY`` (alternatives of a turn, folded into the row of
#: the conversation they are versions of) (``str | None``).
BranchRole = _USER + 19
#: The conversation tree only: how many versions the row stands for — itself and the
#: alternatives (edits, retries) folded under it; ``0`` when it has none (``int``).
VersionsRole = _USER + 20
#: The conversation list only: how deep the row is nested (``int``: 0 for a top-level
#: row, 1 for its forks...); the delegate indents by it.
DepthRole = _USER + 21
#: The conversation list only: ``None`` when nothing is nested under the row, else
#: whether what is (forks, versions) is shown below it (``bool``).
ExpandedRole = _USER + 22
#: The conversation list only: ``True`` on the gap row, which stands for conversations
#: not read yet (after End, between the newest pages and the oldest).
GapRole = _USER + 23

PINNED = "Pinned"

UNTITLED = "Untitled"


#: The most tags a row's tooltip and accessible text name (the rest are counted).
TAGS_SAID = 12


def tags_said(tags: Sequence[str]) -> str:
    """``tags a, b, c`` — or the first ``TAGS_SAID`` and ``and 99,988 more``: a tooltip
    costs what it shows, whatever the number of tags."""
    said = ", ".join(chip_label(t) for t in tags[:TAGS_SAID])
    rest = len(tags) - TAGS_SAID
    return f"tags {said} and {rest:,} more" if rest > 0 else f"tags {said}"


def branch_of(conv: Conversation) -> str | None:
    """Why ``conv`` was branched (``None``: a root); a fork from before reasons were
    kept is a deliberate one."""
    if conv.parent is None:
        return None
    return conv.branch_reason or BRANCH_FORK


def is_alternative(conv: Conversation) -> bool:
    """Whether ``conv`` is an alternative of a turn (an edit or a retry), not a branch."""
    return branch_of(conv) in ALTERNATIVE_REASONS


#: What an alternative's row says it is, before its counts (short: the row is narrow).
ALTERNATIVE_WORDS = {"edit": "edited", "retry": "retried"}
#: What a screen reader hears a branch is.
_BRANCH_SAID = {
    "edit": "edited version",
    "retry": "retried reply",
    "fork": "a branch",
    "compare": "a compared model's branch",
}


def versions_text(count: int) -> str:
    """The small count on a row with alternatives: ``3 versions``."""
    return f"{count:,} versions"


def versions_said(count: int) -> str:
    """The count in words, for the row's tooltip and screen readers."""
    return f"{versions_text(count)} (edited or retried), expand the row to list them"


def title_of(conv: Conversation) -> str:
    """The title as shown: one line, control and bidi characters visible."""
    return line(conv.title) if conv.title else UNTITLED


def count_text(count: int, in_context: int | None = None) -> str:
    """``12 messages``, or ``12 messages · 8 in context`` when only 8 of them are in the
    context: words read at a glance (issue 25; the old ``8/12 msgs`` was not)."""
    if in_context is not None and in_context != count:
        return f"{messages(count)} · {in_context:,} in context"
    return messages(count)


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
    conv: Conversation,
    now: float,
    in_context: int | None = None,
    inherited: int | None = None,
) -> str:
    """``agent · N messages · date`` (no agent: ``N messages · date``; a fork:
    ``N messages · M in this branch``)."""
    parts = [conv.agent] if conv.agent else []
    if is_alternative(conv):
        parts.insert(0, ALTERNATIVE_WORDS.get(branch_of(conv) or "", "version"))
    count = conv.message_count
    parts.append(branch_count_text(count, inherited, in_context) or count_text(count, in_context))
    parts.append(short_date(conv.updated_at, now))
    return line(" · ".join(parts))


def group_of(conv: Conversation, now: float) -> str:
    """The header a top-level row is listed under (pins only count outside the Trash)."""
    if conv.pinned and conv.trashed_at is None:
        return PINNED
    return date_group(conv.updated_at, now)


def description_of(
    conv: Conversation,
    now: float,
    streaming: bool,
    in_context: int | None = None,
    inherited: int | None = None,
) -> str:
    """One sentence for screen readers (plain text; :func:`tooltip_of` for tooltips)."""
    parts = [title_of(conv), f"id {conv.id}"]
    reason = branch_of(conv)
    if reason is not None:
        parts.append(_BRANCH_SAID.get(reason, "a branch"))
    if conv.pinned:
        parts.append("pinned")
    if conv.agent:
        parts.append(f"agent {conv.agent}")
    parts.append(count_sentence(conv.message_count, in_context))
    if inherited:
        parts.append(branch_count_sentence(conv.message_count, inherited))
    parts.append(f"updated {short_date(conv.updated_at, now)}")
    if conv.tags:
        parts.append(tags_said(conv.tags))
    if conv.status == STATUS_KILLED:
        parts.append("closed")
    if conv.trashed_at is not None:
        parts.append(f"moved to the Trash {relative(conv.trashed_at, now)}")
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
        return short_date(conv.updated_at, now)
    if role == TagsRole:
        return tuple(conv.tags)
    if role == StreamingRole:
        return streaming
    if role == ClosedRole:
        return conv.status == STATUS_KILLED
    if role == TrashedRole:
        return conv.trashed_at is not None
    if role == DetailRole:
        if conv.trashed_at is not None:  # the Trash view: when it was trashed comes first
            return line(f"trashed {relative(conv.trashed_at, now)} · ") + detail_of(
                conv, now, in_context, inherited
            )
        return detail_of(conv, now, in_context, inherited)
    if role == PinnedRole:
        return conv.pinned
    if role == GroupRole:
        return group_of(conv, now)
    if role == BranchRole:
        return branch_of(conv)
    if role == Qt.ItemDataRole.ToolTipRole:
        return tooltip_of(conv, now, streaming, in_context=in_context, inherited=inherited)
    if role == Qt.ItemDataRole.AccessibleTextRole:
        return description_of(conv, now, streaming, in_context, inherited)
    return None


def sort_key(conv: Conversation) -> tuple[float, str]:
    """The listing order's key (``list_conversations`` sorts by it, descending)."""
    return (conv.updated_at, conv.id)


def place_key(conv: Conversation) -> tuple[bool, float, str]:
    """The tree's top-level order (descending): pinned rows first, then the listing's."""
    return (conv.pinned and conv.trashed_at is None, conv.updated_at, conv.id)
