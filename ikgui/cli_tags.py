"""``ikgui conv tags``, ``tag-rename`` and ``tag-delete``: tags across conversations.

``conv tags`` lists every tag with the number of conversations carrying it (those in
the Trash counted apart); a rename (a merge when the new name is in use) or a delete
changes every conversation in one transaction (:mod:`ikgui.domain.library`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ikgui.cli_output import print_json, say
from ikgui.domain import library
from ikgui.domain.ids import normalize_tag
from ikgui.domain.safetext import one_line

if TYPE_CHECKING:
    from ikgui.cli import Env


def add_tag_parsers(csub: Any) -> None:
    """The three subcommands, on ``ikgui conv``'s subparsers."""
    tags = csub.add_parser("tags", help="list every tag with its number of conversations")
    tags.add_argument("--json", action="store_true")
    rename = csub.add_parser(
        "tag-rename", help="rename a tag on every conversation (merges into an existing one)"
    )
    rename.add_argument("old")
    rename.add_argument("new")
    csub.add_parser("tag-delete", help="remove a tag from every conversation").add_argument("tag")


def _noun(count: int) -> str:
    return "conversation" if count == 1 else "conversations"


def cmd_tags(env: Env, args: argparse.Namespace) -> int:
    live = dict(env.store.tag_counts())
    trashed = dict(env.store.tag_counts(trashed=True))
    names = sorted(set(live) | set(trashed))
    if args.json:
        print_json(
            [{"tag": n, "count": live.get(n, 0), "trashed": trashed.get(n, 0)} for n in names]
        )
        return 0
    if not names:
        say("No tags.")
        return 0
    width = max(len(n) for n in names)
    for name in names:
        extra = f"  (+{trashed[name]} in the Trash)" if trashed.get(name) else ""
        say(f"{one_line(name).ljust(width)}  {live.get(name, 0):>5}{extra}")
    return 0


def cmd_tag_rename(env: Env, args: argparse.Namespace) -> int:
    merging = normalize_tag(args.new) in env.store.all_tags()
    changed = library.rename_tag(env.store, args.old, args.new)
    old, new = normalize_tag(args.old), normalize_tag(args.new)
    verb = "Merged" if merging and old != new else "Renamed"
    say(f"{verb} '{old}' into '{new}' on {changed} {_noun(changed)}")
    return 0


def cmd_tag_delete(env: Env, args: argparse.Namespace) -> int:
    changed = library.delete_tag(env.store, args.tag)
    say(f"Removed '{normalize_tag(args.tag)}' from {changed} {_noun(changed)}")
    return 0


TAG_COMMANDS = {"tags": cmd_tags, "tag-rename": cmd_tag_rename, "tag-delete": cmd_tag_delete}
