"""Folders, smart folders and projects (SPEC §15): the values and their pure rules.

A folder is a tag path: tags nest with ``/`` (``work/acme``), and a folder holds every
conversation tagged with it or with a tag under it, each once. A smart folder is a saved
search (its words and its tags) under a name. A project is a folder with settings: the
agent, provider, model, system prompt, tools and files a new conversation started in it
takes; its system prompt is read at each request, never copied into a conversation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ikgui.domain.attachments import Attachment

#: What separates a folder path's parts.
SEPARATOR = "/"


def is_under(tag: str, folder: str) -> bool:
    """Whether ``tag`` is the folder ``folder`` or a tag below it."""
    return tag == folder or tag.startswith(folder + SEPARATOR)


def carries_all(tags: Iterable[str], wanted: Sequence[str]) -> bool:
    """Whether a conversation's ``tags`` match a tag filter: each of ``wanted`` is one
    of them or a folder above one (the store's filter, for hits filtered in memory)."""
    have = tuple(tags)
    return all(any(is_under(t, w) for t in have) for w in wanted)


def moved(tag: str, old: str, new: str) -> str:
    """``tag`` after the folder ``old`` became ``new`` (``old/x`` → ``new/x``)."""
    return new + tag[len(old) :] if is_under(tag, old) else tag


@dataclass(frozen=True)
class Folder:
    """One node of the folder tree: its path, the conversations under it (each once),
    whether it is a project, and the folders inside it, sorted by name."""

    path: str
    count: int
    project: bool = False
    children: tuple[Folder, ...] = ()

    @property
    def name(self) -> str:
        """The last part of the path (``acme`` of ``work/acme``)."""
        return self.path.rsplit(SEPARATOR, 1)[-1]

    @property
    def depth(self) -> int:
        """0 for a top-level folder."""
        return self.path.count(SEPARATOR)

    def walk(self) -> Iterable[Folder]:
        """This folder and every folder inside it, depth first, in the tree's order."""
        yield self
        for child in self.children:
            yield from child.walk()


def folder_tree(counts: Iterable[tuple[str, int]], projects: Iterable[str] = ()) -> list[Folder]:
    """The top-level folders, each with its subtree, from every folder's count
    (``Store.folder_counts``); a project's folder is shown even while it is empty."""
    count = dict(counts)
    marked = set(projects)
    for path in list(marked) + list(count):
        parts = path.split(SEPARATOR)
        for depth in range(1, len(parts) + 1):
            count.setdefault(SEPARATOR.join(parts[:depth]), 0)
    below: dict[str, list[str]] = {}
    for path in sorted(count):
        parent = path.rsplit(SEPARATOR, 1)[0] if SEPARATOR in path else ""
        below.setdefault(parent, []).append(path)

    def node(path: str) -> Folder:
        kids = tuple(node(child) for child in below.get(path, ()))
        return Folder(path, count[path], path in marked, kids)

    return [node(path) for path in below.get("", ())]


@dataclass(frozen=True)
class SmartFolder:
    """A saved search: its words (may be empty) and the tags every hit carries."""

    name: str
    search: str = ""
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Project:
    """A folder's settings. ``None`` (or no files): not set, the usual default applies.
    ``tools``: server names or ``server.tool``, as an agent's ``tools``."""

    folder: str
    agent: str | None = None
    provider: str | None = None
    model: str | None = None
    system_prompt: str | None = None
    tools: tuple[str, ...] | None = None
    files: tuple[Attachment, ...] = field(default=())

    @property
    def empty(self) -> bool:
        """Nothing is set (such a project is removed rather than kept)."""
        return (
            self.agent is None
            and self.provider is None
            and self.model is None
            and not self.system_prompt
            and self.tools is None
            and not self.files
        )


def project_of(tags: Iterable[str], projects: Iterable[Project]) -> Project | None:
    """The project a conversation with ``tags`` belongs to: the deepest project folder
    holding one of its tags (the first by name among equals), or none."""
    have = tuple(tags)
    holding = [p for p in projects if any(is_under(t, p.folder) for t in have)]
    # Deepest first, then by name: max() keeps the first of equals.
    ordered = sorted(holding, key=lambda p: p.folder)
    return max(ordered, key=lambda p: p.folder.count(SEPARATOR), default=None)


@dataclass(frozen=True)
class SystemPart:
    """One part of the system prompt a request carries, with where it came from:
    ``agent`` (its ``system_prompt``), ``project`` (its folder's), or ``/system``
    (the conversation's own, which replaces the other two)."""

    source: str
    text: str
    #: The agent's name, the project's folder; "" for ``/system``.
    name: str = ""

    def label(self) -> str:
        """``agent coder``, ``project work/acme``, ``/system``."""
        return f"{self.source} {self.name}".strip()
