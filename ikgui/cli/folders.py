"""``ikgui conv folders`` and ``ikgui conv project`` (SPEC §15): the folder tree with its
counts and the smart folders (saved, renamed, deleted here), and a folder's project
settings, shown or set.

Folders are nested tags, so ``conv tag-rename`` and ``conv tag-delete`` rename and
delete folders (:mod:`ikgui.cli.view`); ``ikgui run -P FOLDER`` starts a conversation in
a project (:mod:`ikgui.cli.run`).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING, Any

from ikgui.cli.output import print_json, say
from ikgui.domain.attachments import size_text
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.folders import Folder, Project, SmartFolder
from ikgui.domain.library import folders
from ikgui.domain.text.safe import one_line

if TYPE_CHECKING:
    from ikgui.cli.env import Env


def add_folder_parsers(csub: Any) -> None:
    """``conv folders`` and ``conv project``, on ``ikgui conv``'s subparsers."""
    tree = csub.add_parser(
        "folders",
        help="the folder tree (nested tags) with counts, and the smart folders",
        description="Without options: every folder with its conversations and every smart "
        "folder with its count. --save NAME [--search TEXT] [-t TAG...] saves a smart "
        "folder (a search with tags); --rename OLD NEW and --delete NAME change one.",
    )
    tree.add_argument("--json", action="store_true")
    tree.add_argument("--save", metavar="NAME", help="save a smart folder under this name")
    tree.add_argument("--search", default="", metavar="TEXT", help="its words to search for")
    tree.add_argument(
        "-t", "--tag", action="append", default=[], help="its tag filter (repeat: all of them)"
    )
    tree.add_argument("--rename", nargs=2, metavar=("OLD", "NEW"), help="rename a smart folder")
    tree.add_argument("--delete", metavar="NAME", help="delete a smart folder")
    project = csub.add_parser(
        "project",
        help="show or set a folder's project settings",
        description="With no option, shows the folder's settings. Each option sets one "
        "(an empty value unsets it); --clear unsets all of them first.",
    )
    project.add_argument("folder")
    project.add_argument("--agent", help="the agent of its new conversations")
    project.add_argument("--provider", help="their provider")
    project.add_argument("--model", help="their model")
    project.add_argument(
        "--system", metavar="TEXT", help="its system prompt (read at each request)"
    )
    project.add_argument(
        "--tools",
        metavar="LIST",
        help="the tools offered: server or server.tool names, comma-separated; "
        "'none' for none, 'default' for the agent's",
    )
    project.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="a file sent with the first message of each new conversation (repeat)",
    )
    project.add_argument("--clear", action="store_true", help="unset every setting first")
    project.add_argument("--json", action="store_true")


# -- conv folders -----------------------------------------------------------------------


def cmd_folders(env: Env, args: argparse.Namespace) -> int:
    store = env.store
    if sum(bool(x) for x in (args.save, args.rename, args.delete)) > 1:
        raise UsageError("give one of --save, --rename and --delete")
    if (args.search or args.tag) and not args.save:
        raise UsageError("--search and -t go with --save NAME")
    if args.save:
        saved = folders.save_smart_folder(store, args.save, args.search, args.tag)
        say(f"Saved the smart folder '{one_line(saved.name)}' ({_filter_text(saved)})")
        return 0
    if args.rename:
        renamed = folders.rename_smart_folder(store, *args.rename)
        say(f"Renamed the smart folder to '{one_line(renamed.name)}'")
        return 0
    if args.delete:
        gone = folders.delete_smart_folder(store, args.delete)
        say(f"Deleted the smart folder '{one_line(gone.name)}' (no conversation was changed)")
        return 0
    tree = folders.tree(store)
    smart = folders.smart_counts(store)
    if args.json:
        print_json(
            {
                "folders": [_folder_json(f) for root in tree for f in root.walk()],
                "smart_folders": [
                    {"name": f.name, "search": f.search, "tags": list(f.tags), "count": n}
                    for f, n in smart
                ],
            }
        )
        return 0
    _print_tree(tree, smart)
    return 0


def _folder_json(folder: Folder) -> dict[str, Any]:
    return {"path": folder.path, "count": folder.count, "project": folder.project}


def _filter_text(folder: SmartFolder) -> str:
    words = [f'"{folder.search}"'] if folder.search else []
    words += [f"-t {t}" for t in folder.tags]
    return one_line(" ".join(words))


def _print_tree(tree: list[Folder], smart: list[tuple[SmartFolder, int]]) -> None:
    if not tree and not smart:
        say("No folders. Tag conversations with nested tags (work/acme) to make some.")
        return
    if tree:
        rows = [f for root in tree for f in root.walk()]
        labels = ["  " * f.depth + one_line(f.name) for f in rows]
        width = max(len(label) for label in labels)
        say("Folders:")
        for folder, label in zip(rows, labels, strict=True):
            mark = "  (project)" if folder.project else ""
            say(f"  {label.ljust(width)}  {folder.count:>5}{mark}")
    if smart:
        width = max(len(one_line(s.name)) for s, _ in smart)
        say("Smart folders:")
        for saved, count in smart:
            say(f"  {one_line(saved.name).ljust(width)}  {count:>5}  {_filter_text(saved)}")


# -- conv project -----------------------------------------------------------------------


def _unset(value: str) -> str | None:
    return value.strip() or None


def _tools(value: str) -> tuple[str, ...] | None:
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    if names == ("default",):
        return None
    return () if names == ("none",) else names


def _changed(env: Env, args: argparse.Namespace, project: Project) -> Project:
    """``project`` with the options given applied (``--clear`` first)."""
    if args.clear:
        project = Project(project.folder)
    fields: dict[str, Any] = {}
    if args.agent is not None:
        agent = _unset(args.agent)
        if agent is not None and agent not in env.settings.agents:
            raise UserError(f"Unknown agent '{one_line(agent)}'")
        fields["agent"] = agent
    if args.provider is not None:
        provider = _unset(args.provider)
        if provider is not None and provider not in env.settings.providers:
            raise UserError(f"Unknown provider '{one_line(provider)}'")
        fields["provider"] = provider
    if args.model is not None:
        fields["model"] = _unset(args.model)
    if args.system is not None:
        fields["system_prompt"] = args.system if args.system.strip() else None
    if args.tools is not None:
        fields["tools"] = _tools(args.tools)
    if args.attach:
        from ikgui.files import read_file

        read = [read_file(path, env.settings.attachment_mb) for path in args.attach]
        env.store.put_files(read)
        have = {a.sha256 for a in project.files}
        added = tuple(f.attachment for f in read if f.sha256 not in have)
        fields["files"] = project.files + added
    return dataclasses.replace(project, **fields)


def cmd_project(env: Env, args: argparse.Namespace) -> int:
    project = folders.project(env.store, args.folder)
    setting = (
        args.clear
        or args.attach
        or any(
            getattr(args, name) is not None
            for name in ("agent", "provider", "model", "system", "tools")
        )
    )
    if setting:
        project = folders.set_project(env.store, _changed(env, args, project))
    count = env.store.count_conversations([project.folder])
    if args.json:
        print_json(
            {
                "folder": project.folder,
                "agent": project.agent,
                "provider": project.provider,
                "model": project.model,
                "system_prompt": project.system_prompt,
                "tools": None if project.tools is None else list(project.tools),
                "files": [a.data() for a in project.files],
                "conversations": count,
            }
        )
        return 0
    _print_project(project, count, saved=bool(setting))
    return 0


def _print_project(project: Project, count: int, saved: bool) -> None:
    def shown(value: str | None) -> str:
        return one_line(value) if value else "(not set)"

    tools = "(not set)" if project.tools is None else ", ".join(project.tools) or "none"
    files = ", ".join(f"{a.name} ({size_text(a.size)})" for a in project.files) or "none"
    head = "Saved the project" if saved else "Project"
    if project.empty:
        head = "Cleared the project" if saved else "Not a project yet:"
    noun = "conversation" if count == 1 else "conversations"
    say(f"{head} {one_line(project.folder)} ({count} {noun})")
    if project.empty:
        return
    for name, value in (
        ("agent", shown(project.agent)),
        ("provider", shown(project.provider)),
        ("model", shown(project.model)),
        ("system", shown(project.system_prompt)),
        ("tools", one_line(tools)),
        ("files", one_line(files)),
    ):
        say(f"  {name:<9} {value}")


FOLDER_COMMANDS = {"folders": cmd_folders, "project": cmd_project}
