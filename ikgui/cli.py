"""The ``ikgui`` command line (SPEC §9): ``ikgui run …`` and ``ikgui conv …``.

It runs the same domain session as the window and never imports Qt, so calls start
in a fraction of a second. Errors are one ``Error: `` line on stderr; exit codes:
0 ok, 1 a user-level error, 2 usage, 3 a provider error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ikgui import __version__
from ikgui.cli_db import add_db_parser, cmd_db, print_paths
from ikgui.cli_output import error, print_json, reply, say
from ikgui.cli_run import add_run_parser, cmd_keys, cmd_run
from ikgui.cli_view import (
    PIN_COMMANDS,
    TAG_COMMANDS,
    add_tag_and_pin_parsers,
    cmd_context,
    cmd_show,
    conv_json,
)
from ikgui.config import load_settings
from ikgui.domain import exchange, library
from ikgui.domain.command_handlers import build_tree, default_registry
from ikgui.domain.errors import IkguiError, UserError
from ikgui.domain.ids import resolve_ref
from ikgui.domain.listing import MAX_COUNT, format_listing, format_tree
from ikgui.domain.ports import Store
from ikgui.domain.safetext import one_line
from ikgui.domain.session import Session
from ikgui.domain.settings import Settings
from ikgui.domain.timefmt import parse_age
from ikgui.keys import KeyStore
from ikgui.paths import Paths, resolve
from ikgui.wiring import Providers, recover

if TYPE_CHECKING:
    from ikgui.storage import PeeweeStore


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        error(f"Error: {message}")
        raise SystemExit(2)


def count(text: str) -> int:
    """An argparse type: a whole number from 0 to :data:`MAX_COUNT`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"give a number from 0 to {MAX_COUNT}, not {text}")
    return value


class Env:
    """What every command needs: paths, settings and the store (opened on first use, so
    that ``ikgui keys`` and ``ikgui db`` work whatever the chosen store's state)."""

    def __init__(self, home: Path | None = None) -> None:
        self.paths: Paths = resolve(home)
        self.settings: Settings = load_settings(self.paths.config)
        for problem in self.settings.problems:
            if problem != self.settings.storage_problem:  # opening the store says it
                error(f"Warning: {problem}")
        self.keys = KeyStore()
        self._store: PeeweeStore | None = None
        self._providers: Providers | None = None

    @property
    def store(self) -> PeeweeStore:
        if self._store is None:
            from ikgui.store_choice import open_chosen_store

            store = open_chosen_store(self.paths, self.settings, self.keys)
            if store.read_only is not None:
                error(f"Warning: {store.read_only}.")
            else:
                recover(store)
            self._store = store
        return self._store

    @property
    def providers(self) -> Providers:
        if self._providers is None:
            self._providers = Providers(self.settings, self.keys)
        return self._providers

    def session(self, store: Store | None = None) -> Session:
        return Session(
            store or self.store,
            self.settings,
            registry=default_registry(),
            provider_factory=self.providers,
            model_lister=self.providers.known_models,
            export_dir=self.paths.exports,
        )

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ikgui",
        description="A desktop workbench for conversations with language models.",
        epilog="With no arguments, ikgui opens its window. IKGUI_HOME=DIR keeps the "
        "database and config.toml in DIR; IKGUI_DATABASE_URL=postgresql://user@host/db "
        "uses a PostgreSQL database instead of the SQLite file.",
    )
    parser.add_argument("--version", action="version", version=f"ikgui {__version__}")
    parser.add_argument(
        "--paths", action="store_true", help="print where ikgui keeps its database and config"
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window offscreen on a throwaway database, check, exit",
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    add_run_parser(sub)
    _add_conv_parser(sub)
    add_db_parser(sub)
    return parser


def _add_conv_parser(sub: Any) -> None:
    conv = sub.add_parser("conv", aliases=["c"], help="browse and manage conversations")
    csub = conv.add_subparsers(dest="conv_command", parser_class=_Parser)
    lst = csub.add_parser("list", help="list conversations, newest first")
    lst.add_argument("-n", type=count, default=None, help="show at most N")
    lst.add_argument("-a", "--agent")
    lst.add_argument("-t", "--tag", action="append", help="with this tag (repeat: all of them)")
    lst.add_argument("--trash", action="store_true", help="list the Trash")
    lst.add_argument("--json", action="store_true")
    for name, text in (
        ("show", "show a conversation's scrollback"),
        ("context", "what the model would receive next"),
    ):
        p = csub.add_parser(name, help=text)
        p.add_argument("ref", nargs="?")
        p.add_argument("-l", "--last", action="store_true", help="the last conversation")
        p.add_argument("--json", action="store_true")
    csub.add_parser("tree", help="the fork tree").add_argument("ref")
    csub.add_parser("search", help="full-text search").add_argument("words", nargs="+")
    title = csub.add_parser("title", help="set the title")
    title.add_argument("ref")
    title.add_argument("text", nargs="+")
    tag = csub.add_parser("tag", help="add (+t) or remove (-t) tags", prefix_chars="\0")
    tag.add_argument("ref")
    tag.add_argument("changes", nargs="*")
    add_tag_and_pin_parsers(csub)
    csub.add_parser("delete", help="move to the Trash").add_argument("ref")
    csub.add_parser("restore", help="bring back from the Trash").add_argument("ref")
    csub.add_parser("reopen", help="reopen a closed branch").add_argument("ref")
    clean = csub.add_parser("clean", help="remove Trash entries for good")
    clean.add_argument(
        "--older", default=None, help="only those trashed longer ago (30m 12h 7d 2w)"
    )
    clean.add_argument(
        "--forks", action="store_true", help="also remove forks that inherit from them"
    )
    export = csub.add_parser("export", help="export as JSON (lossless) or Markdown")
    export.add_argument("ref")
    export.add_argument("--format", choices=("json", "md"), default="json")
    export.add_argument("-o", "--output", help="write to this file instead of stdout")
    csub.add_parser("import", help="import an ikgui or orcx JSON file").add_argument("file")


# -- ikgui conv ------------------------------------------------------------------


def cmd_list(env: Env, args: argparse.Namespace) -> int:
    rows = env.store.list_conversations(
        args.n, agent=args.agent, tags=args.tag or (), trashed=args.trash
    )
    if args.json:
        print_json(
            [conv_json(env.store, c.id, with_state=False, settings=env.settings) for c in rows]
        )
    else:
        say(format_listing(rows, time.time()))
    return 0


def cmd_tree(env: Env, args: argparse.Namespace) -> int:
    conv_id = resolve_ref(env.store, args.ref)
    say(format_tree(build_tree(env.store, conv_id), conv_id))
    return 0


def cmd_search(env: Env, args: argparse.Namespace) -> int:
    hits = env.store.search(" ".join(args.words))
    if not hits:
        say("No matches.")
        return 0
    width = max(len(h.conversation.id) for h in hits)
    for hit in hits:
        title = one_line(hit.conversation.title or "-")
        say(f"{hit.conversation.id.ljust(width)}  {title}  {one_line(hit.snippet)}".rstrip())
    return 0


def cmd_title(env: Env, args: argparse.Namespace) -> int:
    conv = library.rename(env.store, resolve_ref(env.store, args.ref), " ".join(args.text))
    say(f"Title set to: {one_line(conv.title or '')}")
    return 0


def cmd_tag(env: Env, args: argparse.Namespace) -> int:
    conv_id = resolve_ref(env.store, args.ref)
    words = [w for arg in args.changes for w in arg.replace(",", " ").split()]
    conv = library.retag(env.store, conv_id, words)
    say("Tags: " + (", ".join(conv.tags) if conv.tags else "(none)"))
    return 0


def cmd_delete(env: Env, args: argparse.Namespace) -> int:
    conv_id = resolve_ref(env.store, args.ref)
    before = env.store.get_conversation(conv_id)
    if before is not None and before.trashed_at is not None:
        raise UserError(
            f"{conv_id} is already in the Trash (ikgui conv restore {conv_id} brings it back, "
            "ikgui conv clean removes it for good)"
        )
    conv = library.trash(env.store, conv_id, time.time())
    say(f"Moved {conv.id} to the Trash (ikgui conv restore {conv.id} brings it back)")
    return 0


def cmd_restore(env: Env, args: argparse.Namespace) -> int:
    conv = library.restore(env.store, resolve_ref(env.store, args.ref))
    say(f"Restored {conv.id}")
    return 0


def cmd_reopen(env: Env, args: argparse.Namespace) -> int:
    session = env.session()
    session.open(resolve_ref(env.store, args.ref))
    say(f"Reopened {session.reopen().id}")  # as the window's Reopen: from the branch itself
    return 0


def cmd_clean(env: Env, args: argparse.Namespace) -> int:
    age = parse_age(args.older) if args.older else 0.0
    removed, refusals = library.clean(env.store, time.time(), age, args.forks)
    for line in refusals:
        error(f"Error: {line}")
    if removed:
        say(f"Removed {len(removed)} conversation{'s' if len(removed) != 1 else ''}")
    elif not refusals:
        say("Nothing to clean.")
    return 1 if refusals else 0


def cmd_export(env: Env, args: argparse.Namespace) -> int:
    conv_id = resolve_ref(env.store, args.ref)
    if args.output:
        path = exchange.write_export(env.store, conv_id, args.format, Path(args.output))
        say(f"Exported to {path}", err=True)
    elif args.format == "md":
        # Mostly the model's own text: raw to a pipe or file, escaped on a terminal.
        reply(exchange.export_markdown(env.store, conv_id))
    else:
        print_json(exchange.export_json(env.store, [conv_id]))
    return 0


def cmd_import(env: Env, args: argparse.Namespace) -> int:
    try:
        raw = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(
            f"Cannot read {args.file}: {getattr(exc, 'strerror', None) or exc}"
        ) from exc
    try:
        document = json.loads(raw)
    except RecursionError as exc:
        raise UserError(f"{args.file} is not valid JSON (nested too deeply)") from exc
    except ValueError as exc:
        raise UserError(f"{args.file} is not JSON: {exc}") from exc
    result = exchange.import_document(env.store, document, time.time())
    noun = "conversation" if len(result.ids) == 1 else "conversations"
    say(f"Imported {len(result.ids)} {noun}: {', '.join(result.ids)}")
    for line in result.renamed:
        say(line)
    return 0


CONV_COMMANDS = {
    "list": cmd_list,
    "show": cmd_show,
    "context": cmd_context,
    "tree": cmd_tree,
    "search": cmd_search,
    "title": cmd_title,
    "tag": cmd_tag,
    "delete": cmd_delete,
    "restore": cmd_restore,
    "reopen": cmd_reopen,
    "clean": cmd_clean,
    "export": cmd_export,
    "import": cmd_import,
    **TAG_COMMANDS,
    **PIN_COMMANDS,
}


def main(argv: Sequence[str] | None = None, home: Path | None = None) -> int:
    """Run one command; every failure ends as one ``Error: `` line and an exit code."""
    try:
        return _main(argv, home)
    except BrokenPipeError:
        return _pipe_closed()
    except KeyboardInterrupt:
        error("Error: interrupted")
        return 130
    except OverflowError as exc:  # a number too big for SQLite or a float
        error(f"Error: a number is too large ({exc})")
        return 2
    except Exception as exc:
        # The last line of defence: a bug must still not show a traceback.
        error(f"Error: ikgui failed unexpectedly ({type(exc).__name__}: {exc})")
        return 1


def _pipe_closed() -> int:
    """stdout's reader went away (``ikgui conv list | head``): stop quietly, as ``cat``
    does. Later writes, and the interpreter's flush at exit, go to the null device."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a real file (tests): nothing will flush to the pipe
    return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by the pipe


def _main(argv: Sequence[str] | None, home: Path | None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.paths:
        return print_paths(resolve(home))
    if args.command is None:
        parser.print_help()
        return 0
    env: Env | None = None
    try:
        env = Env(home)
        if args.command == "run":
            return cmd_run(env, args)
        if args.command == "keys":
            return cmd_keys(env, args)
        if args.command == "db":
            return cmd_db(env, args)
        return CONV_COMMANDS[args.conv_command or "list"](env, _with_list_defaults(args))
    except IkguiError as exc:
        error(exc.line)
        if exc.hint:
            error(exc.hint)
        return exc.exit_code
    finally:
        if env is not None:
            env.close()


def _with_list_defaults(args: argparse.Namespace) -> argparse.Namespace:
    if args.conv_command is None:
        for name, value in (
            ("n", None),
            ("agent", None),
            ("tag", None),
            ("trash", False),
            ("json", False),
        ):
            setattr(args, name, value)
    return args
