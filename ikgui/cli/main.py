"""The ``ikgui`` command line (SPEC §9): ``ikgui run …`` and ``ikgui conv …``.

It runs the same domain session as the window and never imports Qt, so calls start
in a fraction of a second. Errors are one ``Error: `` line on stderr; exit codes:
0 ok, 1 a user-level error, 2 usage, 3 a provider error.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ikgui.cli.db import cmd_db, print_paths
from ikgui.cli.env import Env
from ikgui.cli.folders import FOLDER_COMMANDS
from ikgui.cli.output import error, print_json, reply, say, width
from ikgui.cli.parser import build_parser
from ikgui.cli.view import PIN_COMMANDS, TAG_COMMANDS, cmd_context, cmd_show, conv_json
from ikgui.domain.errors import IkguiError, UserError
from ikgui.domain.library import conversations as library
from ikgui.domain.library.listing import cut, format_listing, format_tree, tag_summary
from ikgui.domain.state.ids import resolve_ref
from ikgui.domain.text.safe import one_line
from ikgui.domain.text.times import parse_age
from ikgui.local.paths import resolve

if TYPE_CHECKING:
    pass


# -- ikgui conv ------------------------------------------------------------------


def cmd_list(env: Env, args: argparse.Namespace) -> int:
    if not args.json:  # the table reads only what it shows
        rows = env.store.listing_rows(
            args.n, agent=args.agent, tags=args.tag or (), trashed=args.trash
        )
        say(format_listing(rows, time.time(), width()))
        return 0
    convs = env.store.list_conversations(
        args.n, agent=args.agent, tags=args.tag or (), trashed=args.trash
    )
    print_json([conv_json(env.store, c.id, with_state=False, settings=env.settings) for c in convs])
    return 0


def cmd_tree(env: Env, args: argparse.Namespace) -> int:
    conv_id = resolve_ref(env.store, args.ref)
    say(format_tree(library.build_tree(env.store, conv_id), conv_id))
    return 0


def cmd_search(env: Env, args: argparse.Namespace) -> int:
    hits = env.store.search(" ".join(args.words))
    if not hits:
        say("No matches.")
        return 0
    id_width = max(len(h.conversation.id) for h in hits)
    columns = width()
    for hit in hits:
        title = cut(one_line(hit.conversation.title or "-"), columns // 2)
        line = f"{hit.conversation.id.ljust(id_width)}  {title}  {one_line(hit.snippet)}"
        say(cut(line.rstrip(), columns))
    return 0


def cmd_title(env: Env, args: argparse.Namespace) -> int:
    conv = library.rename(env.store, resolve_ref(env.store, args.ref), " ".join(args.text))
    say(f"Title set to: {one_line(conv.title or '')}")
    return 0


def cmd_tag(env: Env, args: argparse.Namespace) -> int:
    conv_id = resolve_ref(env.store, args.ref)
    words = [w for arg in args.changes for w in arg.replace(",", " ").split()]
    conv = library.retag(env.store, conv_id, words)
    say("Tags: " + (tag_summary(conv.tags) if conv.tags else "(none)"))
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
    from ikgui.domain.library import exchange

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
    from ikgui.domain.library import exchange

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
    for line in [*result.renamed, *result.cut]:
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
    **FOLDER_COMMANDS,
}


def main(argv: Sequence[str] | None = None, home: Path | None = None) -> int:
    """Run one command; every failure ends as one ``Error: `` line and an exit code."""
    try:
        return _main(argv, home)
    except BrokenPipeError:
        return _pipe_closed()
    except KeyboardInterrupt as exc:
        error("Error: interrupted")
        return 143 if getattr(exc, "signum", None) == signal.SIGTERM else 130
    except OverflowError as exc:  # a number too big for SQLite or a float
        error(f"Error: a number is too large ({exc})")
        return 2
    except Exception as exc:
        # The last line of defence: a bug must still not show a traceback (it goes to
        # the log file, for a bug report).
        error(f"Error: ikgui failed unexpectedly ({type(exc).__name__}: {exc})")
        _log_crash(exc, home)
        return 1


def _log_crash(exc: Exception, home: Path | None) -> None:
    """The traceback of an unexpected error, in the log file; one line says where."""
    try:
        from ikgui.local.log import log_crash  # (logging.handlers: only when something failed)

        where = log_crash(resolve(home).data_dir, "ikgui (command line) failed unexpectedly", exc)
    except Exception:  # the log cannot make matters worse than the error itself
        where = None
    if where is not None:
        error(f"The details are in {where}")


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
    line = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(line)
    args = parser.parse_args(line)
    if (bad := _undecodable(args)) is not None:
        error(
            f"Error: the argument {bad} is not valid text (its bytes are not UTF-8): "
            "give text arguments as UTF-8"
        )
        return 2
    if args.paths:
        return print_paths(resolve(home))
    if args.command is None:
        parser.print_help()
        return 0
    env: Env | None = None
    try:
        env = Env(home)
        if args.command in ("run", "keys"):
            from ikgui.cli.run import cmd_keys, cmd_run  # the session, asyncio, providers

            return (cmd_run if args.command == "run" else cmd_keys)(env, args)
        if args.command == "db":
            return cmd_db(env, args)
        if args.command == "tools":
            from ikgui.cli.tools import cmd_tools  # asyncio, and mcp when a server starts

            return cmd_tools(env, args)
        return CONV_COMMANDS[args.conv_command or "list"](env, _with_list_defaults(args))
    except IkguiError as exc:
        error(exc.line)
        if exc.hint:
            error(exc.hint)
        return exc.exit_code
    finally:
        if env is not None:
            env.close()


#: Arguments that name files: the system's bytes, passed on as they are.
_FILE_ARGUMENTS = ("file", "output", "attach")


def _undecodable(args: argparse.Namespace) -> str | None:
    """The first text argument that is not UTF-8, as it may be shown (``'\\xff'``), or None.

    Python hands such bytes over as lone surrogates, which no database, terminal or JSON
    file takes: every text argument of every command is refused the same way, before
    anything runs. File names are the exception: any bytes may name a file."""
    for name, value in vars(args).items():
        if name in _FILE_ARGUMENTS:
            continue
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    raw = text.encode("utf-8", "surrogateescape")
                    shown = raw.decode("utf-8", "backslashreplace")
                    return f"'{shown[:40]}…'" if len(shown) > 40 else f"'{shown}'"
    return None


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
