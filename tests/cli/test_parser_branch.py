"""A command line builds, of ``conv``'s subcommands, the parser of the one it names only
(``build_parser``): what it parses, and what it says on an error or for ``-h``, are
those of the full parser."""

from __future__ import annotations

import contextlib
import io

import pytest

from ikgui.cli.parser import build_parser

LINES = [
    ["conv", "list"],
    ["c", "list", "-n", "5", "-t", "work", "--trash"],
    ["conv", "show", "chat-1", "--json"],
    ["conv", "tag", "chat-1", "+a", "-b"],
    ["conv", "tags", "--json"],
    ["conv", "pin", "a", "b"],
    ["conv", "tag-rename", "old", "new"],
    ["conv", "clean", "--older", "2d", "--forks"],
    ["conv", "export", "chat-1", "--format", "md", "-o", "x.md"],
    ["conv"],
    ["run", "-c", "hello", "world"],
    ["keys", "status"],
    ["keys", "set", "mcp.files.TOKEN"],
    ["tools"],
    ["tools", "files", "time", "--json"],
    ["db", "copy", "--to", "postgresql://u@h/db"],
    ["--paths"],
]
FAILING = [
    ["conv", "list", "-n", "many"],
    ["conv", "lst"],
    ["conv", "list", "--bogus"],
    ["nothing"],
    ["conv", "list", "-h"],
    ["conv", "-h"],
    ["db", "-h"],
    ["-h"],
]


def _outcome(line: list[str], full: bool) -> tuple[object, str, str]:
    parser = build_parser() if full else build_parser(line)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = vars(parser.parse_args(line))
        except SystemExit as exc:
            result = exc.code
    return result, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("line", LINES + FAILING, ids=" ".join)
def test_a_lines_parser_parses_and_speaks_as_the_full_one(line: list[str]) -> None:
    assert _outcome(line, full=False) == _outcome(line, full=True)


def test_the_line_of_one_subcommand_builds_only_its_parser() -> None:
    sub = build_parser(["conv", "list"])._subparsers._group_actions[0]  # type: ignore[union-attr]
    assert list(sub.choices) == ["run", "keys", "conv", "c", "db", "tools"]
    conv = sub.choices["conv"]._subparsers._group_actions[0]
    assert list(conv.choices) == ["list"]
