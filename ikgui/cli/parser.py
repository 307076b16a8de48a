"""The command line's grammar: every ``ikgui`` command and option (argparse).

Kept apart from the commands themselves so that parsing a command line loads none of
them: ``ikgui conv list`` never imports what ``ikgui run`` needs (the session, asyncio,
the providers), which :mod:`ikgui.cli.main` imports only for ``run`` and ``keys``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from ikgui import __version__
from ikgui.cli.db import add_db_parser
from ikgui.cli.folders import add_folder_parsers
from ikgui.cli.output import error
from ikgui.cli.view import add_tag_and_pin_parsers
from ikgui.domain.library.listing import MAX_COUNT


class Parser(argparse.ArgumentParser):
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


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of every command; given the command line ``argv``, of the ``conv``
    subcommand it names only (a new process parses one line: building the ~20 parsers
    of the others costs ~6 ms, most of it gettext looking for argparse's translations)."""
    named = list(argv[:2])
    parser, complete = _build(named)
    return parser if complete else _build([])[0]


class _Branch:
    """Subcommands of which only ``name``'s parser is built (``None``: all of them)."""

    def __init__(self, action: Any, name: str | None) -> None:
        self.action = action
        self.name = name
        self.found = name is None

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if self.name is None or self.name in (name, *kwargs.get("aliases", ())):
            self.found = True
            return self.action.add_parser(name, **kwargs)
        return _Unbuilt()


class _Unbuilt:
    """Stands for the parser of a command the line does not name: takes its arguments
    and subcommands, builds nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self


def _build(named: list[str]) -> tuple[argparse.ArgumentParser, bool]:
    """The parser for a line starting with ``named``, and whether the ``conv`` subcommand
    it names exists (if not, the line needs every parser: its error lists them)."""
    parser = Parser(
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
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    # Every command stays (the usage of an error lists them); of ``conv``'s subcommands
    # only the one named, if it is named.
    named_conv = named[1] if len(named) > 1 and named[0] in ("conv", "c") else ""
    csub = _Branch(None, named_conv if named_conv[:1].isalpha() else None)

    _add_run_parser(sub)
    _add_conv_parser(sub, csub)
    add_db_parser(sub)
    _add_tools_parser(sub)
    return parser, csub.found


def _add_conv_parser(sub: Any, csub: _Branch) -> None:
    conv = sub.add_parser("conv", aliases=["c"], help="browse and manage conversations")
    csub.action = conv.add_subparsers(dest="conv_command", parser_class=Parser)
    lst = csub.add_parser("list", help="list conversations, newest first")
    lst.add_argument("-n", type=count, default=None, help="show at most N")
    lst.add_argument("-a", "--agent")
    lst.add_argument(
        "-t",
        "--tag",
        action="append",
        help="with this tag or one under it (a folder; repeat: all of them)",
    )
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
    add_folder_parsers(csub)
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


def _add_tools_parser(sub: Any) -> None:
    tools = sub.add_parser(
        "tools", help="start the MCP tool servers of config.toml and list their tools"
    )
    tools.add_argument("names", nargs="*", metavar="NAME", help="only these servers")
    tools.add_argument("--json", action="store_true")


def _add_run_parser(sub: Any) -> None:
    run = sub.add_parser("run", help="send a message or run a slash command")
    run.add_argument(
        "-c",
        "--continue",
        dest="cont",
        nargs="?",
        const="",
        default=None,
        metavar="REF",
        help="continue the last conversation, or REF",
    )
    run.add_argument("--cid", help="continue the conversation with exactly this id")
    run.add_argument("-a", "--agent", help="use this agent from config.toml")
    run.add_argument("-p", "--provider", help="use this provider from config.toml")
    run.add_argument("-m", "--model", help="use this model")
    run.add_argument(
        "-P",
        "--project",
        metavar="FOLDER",
        help="start the conversation in this folder, with its project's settings "
        "(-a, -p and -m win)",
    )
    run.add_argument("--no-save", action="store_true", help="do not keep this exchange")
    run.add_argument("--no-stream", action="store_true", help="print the reply when complete")
    run.add_argument("--json", action="store_true", help="print reply, usage and cost as JSON")
    run.add_argument("-q", "--quiet", action="store_true", help="print only the reply")
    run.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="PATTERN",
        help="run tool calls that match without asking: server.tool or server.* (repeat)",
    )
    run.add_argument("--no-tools", action="store_true", help="offer the model no tools")
    run.add_argument(
        "-A",
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="send this file with the message: an image, a PDF or a text file (repeat)",
    )
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print the working prompt a reply sets (or why it set none) to stderr",
    )
    run.add_argument("text", nargs=argparse.REMAINDER, help="the message, or a /command")

    keys = sub.add_parser("keys", help="API keys and other secrets in the system keyring")
    keys.add_argument("action", choices=("set", "delete", "status"))
    keys.add_argument(
        "provider",
        nargs="?",
        help="a provider's name in config.toml, database (its password), mcp.SERVER.VARIABLE "
        "(a tool server's secret_env) or mcp.SERVER (a tool server's token)",
    )
