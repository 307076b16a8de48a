"""A conversation's branches (issue 12 item 3): its parent, its siblings and its own
forks, each with the message it branched at, for the window's Branches view and
``/branches``."""

from __future__ import annotations

from dataclasses import dataclass

from ikgui.domain.commands import CommandResult
from ikgui.domain.events import STATUS_KILLED, Conversation, Kind
from ikgui.domain.ports import Store
from ikgui.domain.safetext import one_line
from ikgui.domain.session import Session

#: How much of the message a fork branched at is shown.
EXCERPT_LENGTH = 60
#: The toolbar action's tooltip.
BRANCHES_TIP = "This conversation's parent, siblings and forks, with where each branched"
PARENT, THIS, SIBLING, CHILD = "parent", "this", "sibling", "child"


@dataclass(frozen=True)
class Branch:
    conversation: Conversation
    #: ``parent``, ``this``, ``sibling`` or ``child``.
    relation: str
    #: Where this conversation branched off its parent: the start of the message it
    #: carries last (``""`` for a root or when nothing came before the fork).
    fork_point: str


def fork_point_excerpt(store: Store, conv: Conversation) -> str:
    """The start of the last message ``conv`` carries from its ancestors (one line;
    ``""`` for a root or a fork made before any message)."""
    upto, parent_id = conv.fork_event_id, conv.parent
    seen = {conv.id}
    while parent_id is not None and upto is not None and parent_id not in seen:
        seen.add(parent_id)
        for event in reversed(store.events(parent_id, upto=upto)):
            if event.kind == Kind.USER or (event.kind == Kind.ASSISTANT and event.content):
                text = one_line(event.content)
                cut = text[:EXCERPT_LENGTH] + ("…" if len(text) > EXCERPT_LENGTH else "")
                return ("You: " if event.kind == Kind.USER else "Reply: ") + cut
        parent = store.get_conversation(parent_id)
        if parent is None or parent.fork_event_id is None:
            break
        upto, parent_id = min(upto, parent.fork_event_id), parent.parent
    return ""


def branch_family(store: Store, conv_id: str) -> list[Branch]:
    """The parent (if any), then its forks in creation order with ``conv_id`` among them
    (``this``, else ``sibling``), then ``conv_id``'s own forks; conversations in the Trash
    are left out."""
    conv = store.get_conversation(conv_id)
    if conv is None:
        return []
    parent = store.get_conversation(conv.parent) if conv.parent else None
    family: list[Branch] = []
    if parent is not None:
        family.append(Branch(parent, PARENT, fork_point_excerpt(store, parent)))
        same_level = _live(store.children(parent.id))
    else:
        same_level = [conv]
    for other in same_level:
        relation = THIS if other.id == conv.id else SIBLING
        family.append(Branch(other, relation, fork_point_excerpt(store, other)))
        if other.id == conv.id:
            for child in _live(store.children(conv.id)):
                family.append(Branch(child, CHILD, fork_point_excerpt(store, child)))
    return family


def _live(convs: list[Conversation]) -> list[Conversation]:
    return sorted((c for c in convs if c.trashed_at is None), key=lambda c: (c.created_at, c.id))


def format_branches(family: list[Branch]) -> str:
    """``/branches``: one line per branch, the current one starred."""
    lines = []
    for branch in family:
        conv = branch.conversation
        indent = "    " if branch.relation == CHILD else ""
        if branch.relation in (THIS, SIBLING) and family[0].relation == PARENT:
            indent = "  "
        star = " *" if branch.relation == THIS else ""
        closed = " [closed]" if conv.status == STATUS_KILLED else ""
        title = one_line(conv.title or "Untitled")
        at = f"  (at: {branch.fork_point})" if branch.fork_point else ""
        lines.append(f"{indent}{branch.relation}: {title}{star}{closed}  {conv.id}{at}")
    return "\n".join(lines)


def branches_command(session: Session) -> CommandResult:
    """``/branches`` (the window's toolbar action opens the Branches view instead)."""
    if not session.saved:
        return CommandResult(f"{session.conversation.id} *  (not saved yet)", store=False)
    return CommandResult(format_branches(branch_family(session.store, session.conversation.id)))
