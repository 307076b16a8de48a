"""Folders, smart folders and projects across the store (SPEC §15): the tree with its
counts, a folder renamed, moved or deleted (every tag under it, in one transaction, with
what changed for an undo), smart folders saved and counted, projects' settings.

A folder is a tag path (:mod:`ikgui.domain.folders`): renaming ``work`` to ``job`` renames
``work`` and every ``work/…`` tag, merging where the new name is in use; deleting it takes
those tags off their conversations, never the conversations. A project's settings move
with its folder and go with it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ikgui.domain.errors import UserError
from ikgui.domain.folders import (
    SEPARATOR,
    Folder,
    Project,
    SmartFolder,
    carries_all,
    folder_tree,
    is_under,
    moved,
    project_of,
)
from ikgui.domain.library.conversations import TagEdit, rename_tag
from ikgui.domain.ports import Store
from ikgui.domain.state.ids import normalize_tag, normalize_tags
from ikgui.domain.text.safe import one_line

#: The longest smart folder name, in characters.
SMART_NAME_LENGTH = 64
#: How many hits a smart folder's count reads at most (its count says "N+" past it).
SMART_COUNT_LIMIT = 10_000


def tree(store: Store, *, trashed: bool = False) -> list[Folder]:
    """The folder tree with its counts (every folder in one read of the tags, projects'
    folders shown even while empty)."""
    counts = store.folder_counts(trashed=trashed)
    return folder_tree(counts, [p.folder for p in store.projects()])


@dataclass(frozen=True)
class FolderEdit:
    """A folder renamed, moved or deleted: each tag under it as a :class:`TagEdit`
    (outermost first), and the projects it moved or removed as they were, so
    :func:`undo_folder_edit` gives back exactly what it took."""

    old: str
    new: str | None  # ``None``: the folder was deleted
    edits: tuple[TagEdit, ...]
    projects: tuple[Project, ...] = ()

    @property
    def count(self) -> int:
        """How many conversations were in the folder (each once)."""
        return len({c for e in self.edits for c in (*e.moved, *e.merged)})

    @property
    def conversations(self) -> tuple[str, ...]:
        """The ids of the conversations it changed, sorted."""
        return tuple(sorted({c for e in self.edits for c in (*e.moved, *e.merged)}))

    def describe(self) -> str:
        """What it did, for an Undo entry: "move of folder 'a' to 'b/a'"."""
        if self.new is None:
            return f"delete of folder '{self.old}'"
        return f"rename of folder '{self.old}' to '{self.new}'"


def _depth_first(tags: list[str]) -> list[str]:
    """Outermost first: a folder moved under its own parent (``a/b`` → ``a``) renames
    ``a/b`` before ``a/b/b`` takes its name."""
    return sorted(tags, key=lambda t: (t.count(SEPARATOR), t))


def rename_folder(store: Store, old: str, new: str) -> FolderEdit:
    """Rename (or move: ``work`` → ``clients/work``) the folder ``old`` and every tag
    under it, in one transaction, merging where a new name is in use; its projects move
    with it. Returns what changed, for an undo."""
    source, target = normalize_tag(old), normalize_tag(new)
    if source == target:
        raise UserError(f"The folder is already named '{source}'")
    if is_under(target, source):
        raise UserError(f"Cannot move the folder '{source}' into itself")
    with store.transaction():
        tags = store.tags_under(source)
        kept = [p for p in store.projects() if is_under(p.folder, source)]
        if not tags and not kept:
            raise UserError(f"No conversation has the tag '{source}'")
        edits = _renamed(store, source, target, tags)
        for project in kept:
            store.delete_project(project.folder)
        for project in kept:
            store.put_project(replace(project, folder=moved(project.folder, source, target)))
    return FolderEdit(source, target, edits, tuple(kept))


def _renamed(store: Store, source: str, target: str, tags: list[str]) -> tuple[TagEdit, ...]:
    """Each tag of the folder renamed: in one statement when the folder moves beside or
    below another (``Store.move_tags``), tag by tag, outermost first, when it moves up
    into its own parent's place (``a/b`` → ``a``: ``a/b/b`` takes ``a/b``'s name)."""
    if is_under(source, target):
        return tuple(
            rename_tag(store, tag, moved(tag, source, target)) for tag in _depth_first(tags)
        )
    if not tags:
        return ()
    in_use = set(store.tags_under(target))
    changed = store.move_tags(source, target)
    return tuple(
        TagEdit(
            tag,
            moved(tag, source, target),
            tuple(changed[tag][0]),
            tuple(changed[tag][1]),
            merging=moved(tag, source, target) in in_use,
        )
        for tag in _depth_first(list(changed))
    )


def delete_folder(store: Store, name: str) -> FolderEdit:
    """Take the folder ``name`` and every tag under it off every conversation (the
    conversations stay), and its projects' settings, in one transaction. Returns what
    changed, for an undo."""
    folder = normalize_tag(name)
    with store.transaction():
        having = store.folder_members(folder)
        kept = [p for p in store.projects() if is_under(p.folder, folder)]
        if not having and not kept:
            raise UserError(f"No conversation has the tag '{folder}'")
        pairs = [(conv, tag) for tag, convs in having.items() for conv in convs]
        store.change_tag_pairs(pairs, [])
        edits = tuple(TagEdit(tag, None, tuple(having[tag])) for tag in _depth_first(list(having)))
        for project in kept:
            store.delete_project(project.folder)
    return FolderEdit(folder, None, edits, tuple(kept))


def undo_folder_edit(store: Store, edit: FolderEdit) -> int:
    """Reverse ``edit`` in one transaction: each conversation it moved loses the new
    name and gets the old back, each it merged gets the old back beside the new it had;
    its projects are put back where they were. Returns how many tags were given back."""
    remove = [
        (conv, e.new)
        for e in edit.edits
        if e.new is not None and e.new != e.old
        for conv in e.moved
    ]
    add = [(conv, e.old) for e in edit.edits for conv in (*e.moved, *e.merged)]
    with store.transaction():  # every pair taken away first: a/b/b → a/b and back
        restored = store.change_tag_pairs(remove, add)
        for project in edit.projects:
            if edit.new is not None:
                store.delete_project(moved(project.folder, edit.old, edit.new))
            store.put_project(project)
    return restored


# -- smart folders ---------------------------------------------------------------------


def smart_name(name: str) -> str:
    """A smart folder's name as kept: one line, not blank, at most 64 characters."""
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > SMART_NAME_LENGTH or one_line(cleaned) != cleaned:
        raise UserError(
            f"Invalid smart folder name '{one_line(name)[:SMART_NAME_LENGTH]}': use one line "
            f"of up to {SMART_NAME_LENGTH} characters"
        )
    return cleaned


def save_smart_folder(
    store: Store, name: str, search: str = "", tags: list[str] | tuple[str, ...] = ()
) -> SmartFolder:
    """Save the search ``search`` with the tag filter ``tags`` as the smart folder
    ``name`` (replacing one of that name). Raises when it would match everything."""
    folder = SmartFolder(smart_name(name), " ".join(search.split()), tuple(normalize_tags(tags)))
    if not folder.search and not folder.tags:
        raise UserError("A smart folder needs words to search for or tags to filter by")
    store.put_smart_folder(folder)
    return folder


def _smart(store: Store, name: str) -> SmartFolder:
    wanted = " ".join(name.split())
    for folder in store.smart_folders():
        if folder.name == wanted:
            return folder
    raise UserError(f"No smart folder '{one_line(name)}'")


def rename_smart_folder(store: Store, old: str, new: str) -> SmartFolder:
    with store.transaction():
        folder = replace(_smart(store, old), name=smart_name(new))
        store.put_smart_folder(folder, replacing=_smart(store, old).name)
    return folder


def delete_smart_folder(store: Store, name: str) -> SmartFolder:
    """Remove a smart folder (never a conversation); returns it, for an undo
    (:func:`Store.put_smart_folder` puts it back)."""
    with store.transaction():
        folder = _smart(store, name)
        store.delete_smart_folder(folder.name)
    return folder


def smart_count(store: Store, folder: SmartFolder) -> int:
    """How many conversations (not in the Trash) a smart folder shows now: its tag
    filter counted in the store, or its search's hits that pass the filter."""
    if not folder.search:
        return store.count_conversations(folder.tags)
    hits = store.search(folder.search, SMART_COUNT_LIMIT)
    return sum(
        1
        for h in hits
        if h.conversation.trashed_at is None and carries_all(h.conversation.tags, folder.tags)
    )


def smart_counts(store: Store) -> list[tuple[SmartFolder, int]]:
    """Every smart folder with its live count."""
    return [(f, smart_count(store, f)) for f in store.smart_folders()]


# -- projects --------------------------------------------------------------------------


def project(store: Store, folder: str) -> Project:
    """``folder``'s settings (a project that sets nothing when it has none)."""
    path = normalize_tag(folder)
    found = store.projects([path])
    return found[0] if found else Project(path)


def project_in(store: Store, folder: str) -> Project | None:
    """The project a conversation started in ``folder`` belongs to: the folder's own,
    or the nearest one above it (``work/acme/q3`` in the project ``work/acme``)."""
    return project_of((normalize_tag(folder),), store.projects())


def set_project(store: Store, settings: Project) -> Project:
    """Keep ``settings`` as their folder's (its files stored already); one that sets
    nothing removes the project. Returns it as kept."""
    kept = replace(settings, folder=normalize_tag(settings.folder))
    store.put_project(kept)
    return kept
