"""Managing conversations as a whole: Trash, restore, clean, rename and tags (one
conversation's, or a tag renamed, merged or deleted across all of them).

These are point-and-click operations in the sidebar and ``ikgui conv`` subcommands;
they change conversation fields, never the event log.
"""

from __future__ import annotations

from dataclasses import dataclass

from ikgui.domain.errors import NotFoundError, UserError
from ikgui.domain.events import Conversation, TreeNode
from ikgui.domain.ports import Store
from ikgui.domain.state.history import lineage
from ikgui.domain.state.ids import normalize_tag
from ikgui.domain.state.rules import user_title_fields


def _get(store: Store, conv_id: str) -> Conversation:
    conv = store.get_conversation(conv_id)
    if conv is None:
        raise UserError(f"Conversation not found: {conv_id}")
    return conv


def trash(store: Store, conv_id: str, now: float) -> Conversation:
    conv = _get(store, conv_id)
    if conv.trashed_at is None:
        store.update_conversation(conv_id, trashed_at=now)
    return _get(store, conv_id)


def restore(store: Store, conv_id: str) -> Conversation:
    conv = _get(store, conv_id)
    if conv.trashed_at is None:
        raise UserError(f"Conversation is not in the Trash: {conv_id}")
    store.update_conversation(conv_id, trashed_at=None)
    return _get(store, conv_id)


def restore_all(store: Store, conv_ids: list[str]) -> list[Conversation]:
    """Restore a selection from the Trash in one transaction; those no longer in it
    (another program restored them) are left alone. Raises if none of them is."""
    with store.transaction():
        trashed = [c for c in map(store.get_conversation, conv_ids) if c and c.trashed_at]
        if not trashed:
            raise UserError(f"Conversation is not in the Trash: {', '.join(conv_ids)}")
        for conv in trashed:
            store.update_conversation(conv.id, trashed_at=None)
    return [_get(store, c.id) for c in trashed]


def rename(store: Store, conv_id: str, title: str) -> Conversation:
    store.update_conversation(conv_id, **user_title_fields(title))
    return _get(store, conv_id)


def apply_tag_changes(current: tuple[str, ...], words: list[str]) -> list[str]:
    """``+tag`` or ``tag`` adds, ``-tag`` removes; the result sorted."""
    tags = set(current)
    for word in words:
        if word.startswith("-"):
            tags.discard(normalize_tag(word[1:]))
        else:
            tags.add(normalize_tag(word[1:] if word.startswith("+") else word))
    return sorted(tags)


def tag_changes(words: list[str]) -> tuple[list[str], list[str]]:
    """``+tag`` or ``tag`` adds, ``-tag`` removes (the last word about a tag wins): the
    tags to add and to remove, sorted; raises on a bad tag."""
    wanted: dict[str, bool] = {}
    for word in words:
        if word.startswith("-"):
            wanted[normalize_tag(word[1:])] = False
        else:
            wanted[normalize_tag(word[1:] if word.startswith("+") else word)] = True
    return sorted(t for t, on in wanted.items() if on), sorted(
        t for t, on in wanted.items() if not on
    )


def retag(store: Store, conv_id: str, changes: list[str]) -> Conversation:
    """Apply ``+a -b`` changes atomically, in one write transaction, so two programs
    tagging one conversation at once both keep theirs. Only the changed tags are
    written: a conversation with 100,000 tags costs no more to tag than one with two."""
    add, remove = tag_changes(changes)  # a bad tag is refused before anything is locked
    with store.transaction():
        if not store.conversation_exists(conv_id):
            raise UserError(f"Conversation not found: {conv_id}")
        store.change_tags(conv_id, add, remove)
    return _get(store, conv_id)


def retag_many(store: Store, conv_ids: list[str], changes: list[str]) -> list[Conversation]:
    """Apply ``+a -b`` changes to every conversation of ``conv_ids`` in one transaction."""
    apply_tag_changes((), changes)  # a bad tag is refused before anything is locked
    with store.transaction():
        return [retag(store, conv_id, changes) for conv_id in conv_ids]


def trash_many(store: Store, conv_ids: list[str], now: float) -> list[Conversation]:
    """Move every conversation of ``conv_ids`` to the Trash in one transaction."""
    with store.transaction():
        return [trash(store, conv_id, now) for conv_id in conv_ids]


def set_pinned(store: Store, conv_ids: list[str], pinned: bool) -> list[Conversation]:
    """Pin (or unpin) every conversation of ``conv_ids`` in one transaction: all of them
    or, when one does not exist, none. Returns them as stored now."""
    with store.transaction():
        try:
            store.set_pinned(conv_ids, pinned)
        except NotFoundError as exc:
            raise UserError(str(exc)) from exc
        return [_get(store, conv_id) for conv_id in dict.fromkeys(conv_ids)]


def pin(store: Store, conv_ids: list[str]) -> list[Conversation]:
    return set_pinned(store, conv_ids, True)


def unpin(store: Store, conv_ids: list[str]) -> list[Conversation]:
    return set_pinned(store, conv_ids, False)


@dataclass(frozen=True)
class TagEdit:
    """A tag renamed, merged or deleted across conversations, with exactly which
    conversations it changed, so :func:`undo_tag_edit` gives back what it took and
    nothing more."""

    old: str
    new: str | None  # ``None``: the tag was deleted
    #: Had ``old`` and not ``new``: now carry ``new`` instead (a delete: nothing).
    moved: tuple[str, ...]
    #: Had both (a merge): lost ``old``, kept ``new`` as they had it.
    merged: tuple[str, ...] = ()
    #: Whether ``new`` was in use (a merge), even on none of the same conversations.
    merging: bool = False

    @property
    def count(self) -> int:
        """How many conversations had ``old``."""
        return len(self.moved) + len(self.merged)

    def describe(self) -> str:
        """What it did, for an Undo entry: "rename of 'a' to 'b'"."""
        if self.new is None:
            return f"delete of '{self.old}'"
        if self.merging:
            return f"merge of '{self.old}' into '{self.new}'"
        return f"rename of '{self.old}' to '{self.new}'"


def rename_tag(store: Store, old: str, new: str) -> TagEdit:
    """Rename the tag ``old`` to ``new`` on every conversation (Trash included) in one
    transaction; onto a tag in use it is a merge. Returns what changed, for an undo."""
    source, target = normalize_tag(old), normalize_tag(new)
    with store.transaction():  # who had which tag is read where it is changed
        having = store.tagged(source)
        if not having:
            raise UserError(f"No conversation has the tag '{source}'")
        both = set(store.tagged(target)) if target != source else set()
        store.rename_tag(source, target)
    return TagEdit(
        source,
        target,
        tuple(c for c in having if c not in both),
        tuple(c for c in having if c in both),
        merging=bool(both),
    )


def delete_tag(store: Store, name: str) -> TagEdit:
    """Remove the tag ``name`` from every conversation in one transaction; returns what
    changed, for an undo."""
    tag = normalize_tag(name)
    with store.transaction():
        having = store.tagged(tag)
        if not having:
            raise UserError(f"No conversation has the tag '{tag}'")
        store.delete_tag(tag)
    return TagEdit(tag, None, tuple(having))


def undo_tag_edit(store: Store, edit: TagEdit) -> int:
    """Reverse ``edit`` in one transaction: the conversations it moved get ``old`` back
    instead of ``new``, those it merged get ``old`` back beside the ``new`` they already
    had; no other conversation changes. Returns how many got ``old`` back (those deleted
    for good since are skipped)."""
    with store.transaction():
        if edit.new is not None and edit.new != edit.old and edit.moved:
            store.remove_tag(edit.moved, edit.new)
        return store.add_tag([*edit.moved, *edit.merged], edit.old)


def descendants(store: Store, conv_id: str) -> list[Conversation]:
    found: list[Conversation] = []
    stack, seen = [conv_id], {conv_id}
    while stack:
        for child in store.children(stack.pop()):
            if child.id not in seen:
                seen.add(child.id)
                found.append(child)
                stack.append(child.id)
    return found


def clean(
    store: Store, now: float, older_than: float = 0.0, with_forks: bool = False
) -> tuple[list[str], list[str]]:
    """Remove Trash entries trashed at least ``older_than`` seconds ago, for good.

    A conversation whose forks outside the removal would lose their history is
    refused unless ``with_forks``, which removes those forks too. Returns the removed
    ids and one message per refused conversation.
    """
    with store.transaction():  # what is read is what is removed (Empty Trash, conv clean)
        removed = _clean(store, now, older_than, with_forks)
        store.remove_unreferenced_files()  # and files no message and no draft names
        return removed


def _clean(
    store: Store, now: float, older_than: float, with_forks: bool
) -> tuple[list[str], list[str]]:
    candidates = [
        c
        for c in store.list_conversations(None, trashed=True)
        if c.trashed_at is not None and c.trashed_at <= now - older_than
    ]
    chosen = {c.id for c in candidates}
    refusals: list[str] = []
    removing: set[str] = set()
    kept: set[str] = set()
    for conv in candidates:
        forks = [d for d in descendants(store, conv.id) if d.id not in chosen]
        if forks and not with_forks:
            names = ", ".join(sorted(f.id for f in forks))
            refusals.append(
                f"Kept {conv.id}: forks still inherit from it ({names}); "
                "use --forks to remove them too"
            )
            kept.add(conv.id)
            continue
        removing.add(conv.id)
        removing.update(f.id for f in forks)
    # A kept conversation keeps its ancestors too: they hold its history.
    for conv_id in list(kept):
        ancestor = store.get_conversation(conv_id)
        while ancestor is not None and ancestor.parent is not None:
            kept.add(ancestor.parent)
            ancestor = store.get_conversation(ancestor.parent)
    ordered = sorted(removing - kept)
    if ordered:
        store.delete_conversations(ordered)
    return ordered, refusals


def build_tree(store: Store, conv_id: str) -> TreeNode:
    """The fork tree ``conv_id`` belongs to, from its root."""
    conv = lineage(store, conv_id)[0]
    root = TreeNode(conv)
    nodes = {conv.id: root}
    for child in descendants(store, conv.id):
        node = TreeNode(child)
        nodes[child.id] = node
        if child.parent in nodes:
            nodes[child.parent].children.append(node)
    for node in nodes.values():
        node.children.sort(key=lambda n: (n.conversation.created_at, n.conversation.id))
    return root
