"""A conversation's branches (issue 12 item 3): its parent, its siblings and their forks,
its own forks and theirs (the whole subtree, issue 20), each with the message it branched
at as one line of words, for the window's Branches view and ``/branches``."""

from __future__ import annotations

from dataclasses import dataclass

from ikgui.domain.commands.registry import CommandResult
from ikgui.domain.events import STATUS_KILLED, Conversation, Kind
from ikgui.domain.ports import Store
from ikgui.domain.session.session import Session
from ikgui.domain.text.plainline import plain_line
from ikgui.domain.text.safe import one_line

#: How much of the message a fork branched at is shown.
EXCERPT_LENGTH = 60
#: The toolbar action's tooltip.
BRANCHES_TIP = "This conversation's parent, siblings and forks, with where each branched"
PARENT, THIS, SIBLING, CHILD = "parent", "this", "sibling", "child"
#: A fork of one of this conversation's forks (or deeper); a fork of a sibling (or deeper).
DESCENDANT, SIBLING_FORK = "descendant", "sibling's fork"


@dataclass(frozen=True)
class Branch:
    conversation: Conversation
    #: ``parent``, ``this``, ``sibling``, ``child``, ``descendant`` or ``sibling's fork``.
    relation: str
    #: Where this conversation branched off its parent: the start of the message it
    #: carries last, as one line of words (``""`` for a root or when nothing came
    #: before the fork).
    fork_point: str
    #: How deep in the tree shown (the parent, or a root, is 0).
    depth: int = 0


def fork_point_excerpt(store: Store, conv: Conversation) -> str:
    """The start of the last message ``conv`` carries from its ancestors (one line;
    ``""`` for a root or a fork made before any message)."""
    upto, parent_id = conv.fork_event_id, conv.parent
    seen = {conv.id}
    while parent_id is not None and upto is not None and parent_id not in seen:
        seen.add(parent_id)
        for event in reversed(store.events(parent_id, upto=upto)):
            if event.kind == Kind.USER or (event.kind == Kind.ASSISTANT and event.content):
                cut = one_line(plain_line(event.content, EXCERPT_LENGTH))
                return ("You: " if event.kind == Kind.USER else "Reply: ") + cut
        parent = store.get_conversation(parent_id)
        if parent is None or parent.fork_event_id is None:
            break
        upto, parent_id = min(upto, parent.fork_event_id), parent.parent
    return ""


def branch_family(store: Store, conv_id: str) -> list[Branch]:
    """The parent (if any), then its forks in creation order with ``conv_id`` among them
    (``this``, else ``sibling``), each followed by its whole subtree (depth first, each
    level in creation order); conversations in the Trash are left out, with what is
    under them."""
    conv = store.get_conversation(conv_id)
    if conv is None:
        return []
    parent = store.get_conversation(conv.parent) if conv.parent else None
    family: list[Branch] = []
    if parent is not None:
        family.append(Branch(parent, PARENT, fork_point_excerpt(store, parent)))
        same_level = _live(store.children(parent.id))
        depth = 1
    else:
        same_level, depth = [conv], 0
    below = _subtrees(store, [c.id for c in same_level])
    for other in same_level:
        mine = other.id == conv.id
        family.append(
            Branch(other, THIS if mine else SIBLING, fork_point_excerpt(store, other), depth)
        )
        family.extend(_under(store, other.id, below, depth + 1, CHILD if mine else SIBLING_FORK))
    return family


#: What a node of the branch map is (issue 25): the family's root, or why it was made.
ROOT = "root"
#: The states a node of the branch map is in.
OPEN, CLOSED, TRASHED = "open", "closed", "in the Trash"
#: A family deeper than this is treated as broken (a cycle) when finding its root.
MAX_CHAIN = 10_000


@dataclass(frozen=True)
class MapNode:
    """One conversation of a family's branch map (the window's Branches view)."""

    conversation: Conversation
    #: ``root``, or why it was branched: ``fork``, ``edit``, ``retry``, ``compare``.
    kind: str
    #: Where it branched off its parent, one line of words (``""``: a root, or nothing
    #: came before the fork).
    fork_point: str
    #: Its depth in the tree (the root is 0).
    depth: int
    #: Whether it is the conversation the map was asked for.
    current: bool

    @property
    def state(self) -> str:
        """``open``, ``closed`` (``/kill``) or ``in the Trash``."""
        conv = self.conversation
        if conv.trashed_at is not None:
            return TRASHED
        return CLOSED if conv.status == STATUS_KILLED else OPEN


def family_root(store: Store, conv: Conversation) -> Conversation:
    """The root of ``conv``'s family (the oldest ancestor still stored)."""
    seen = {conv.id}
    while conv.parent is not None and len(seen) < MAX_CHAIN:
        parent = store.get_conversation(conv.parent)
        if parent is None or parent.id in seen:
            break
        seen.add(parent.id)
        conv = parent
    return conv


def family_map(store: Store, conv_id: str) -> list[MapNode]:
    """The whole family of ``conv_id`` as a tree, depth first from its root: every
    fork, fork of a fork and alternative (edit, retry, compared model), in the Trash or
    not, each level in creation order (one query per level for the forks)."""
    conv = store.get_conversation(conv_id)
    if conv is None:
        return []
    root = family_root(store, conv)
    below: dict[str, list[Conversation]] = {}
    level = [root.id]
    while level:
        children = store.children_of(level)
        fresh = {key: _oldest_first(value) for key, value in children.items() if key not in below}
        below.update(fresh)
        level = [c.id for kids in fresh.values() for c in kids if c.id not in below]
    out: list[MapNode] = []
    seen: set[str] = set()
    stack: list[tuple[Conversation, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        kind = ROOT if node.parent is None or depth == 0 else (node.branch_reason or "fork")
        point = fork_point_excerpt(store, node) if depth else ""
        out.append(MapNode(node, kind, point, depth, node.id == conv_id))
        stack.extend((kid, depth + 1) for kid in reversed(below.get(node.id, [])))
    return out


def _oldest_first(convs: list[Conversation]) -> list[Conversation]:
    return sorted(convs, key=lambda c: (c.created_at, c.id))


def _subtrees(store: Store, roots: list[str]) -> dict[str, list[Conversation]]:
    """The live forks of every conversation under ``roots``, one query per level."""
    found: dict[str, list[Conversation]] = {}
    level = roots
    while level:
        children = {key: _live(value) for key, value in store.children_of(level).items()}
        found.update(children)
        level = [c.id for kids in children.values() for c in kids if c.id not in found]
    return found


def _under(
    store: Store, conv_id: str, below: dict[str, list[Conversation]], depth: int, relation: str
) -> list[Branch]:
    """The subtree under ``conv_id``, depth first; its forks are ``relation``, theirs
    (for this conversation's) ``descendant``."""
    deeper = DESCENDANT if relation == CHILD else relation
    out: list[Branch] = []
    for child in below.get(conv_id, []):
        out.append(Branch(child, relation, fork_point_excerpt(store, child), depth))
        out.extend(_under(store, child.id, below, depth + 1, deeper))
    return out


def _live(convs: list[Conversation]) -> list[Conversation]:
    return sorted((c for c in convs if c.trashed_at is None), key=lambda c: (c.created_at, c.id))


def format_branches(family: list[Branch]) -> str:
    """``/branches``: one line per branch, indented by depth, the current one starred."""
    lines = []
    for branch in family:
        conv = branch.conversation
        indent = "  " * branch.depth
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
