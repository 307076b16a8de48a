"""What the command line prints cannot drive the terminal (issue 8, item 11).

Titles, labels, model names and server error bodies are escaped (``\\x1b``); the
model's reply text is raw only when stdout is not a terminal.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

from tests.cli.conftest import Cli
from tests.cli.test_run import local, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer

__all__ = ["local", "wire_server", "wire_server_session"]

TITLE = "\x1b]0;owned\x07\x1b[2Jclean"
CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


def _no_controls(text: str) -> None:
    for char in CONTROLS:
        assert char not in text, repr(text)


def test_titles_labels_and_models_are_escaped(cli: Cli, local: WireServer) -> None:
    conv = cli.new_id("/title", TITLE)
    cli.ok("run", "-c", conv, "/mark", "\x1b[31mred\x1b[0m \u202eevil")
    local.route("/v1/chat/completions", sse_reply("fine"))
    cli.ok("run", "-c", conv, "-m", "\x1b]0;model\x07", "hi")
    outputs = [
        cli.ok("conv", "list"),
        cli.ok("conv", "show", conv),
        cli.ok("conv", "search", "clean"),
        cli.ok("conv", "tree", conv),
        cli.ok("run", "-c", conv, "/title"),
        cli.ok("run", "-c", conv, "/sessions"),
        cli.ok("run", "-c", conv, "/rewind"),
    ]
    for result in outputs:
        _no_controls(result.out)
        _no_controls(result.err)
    shown = cli.ok("conv", "show", conv).out
    assert "\\x1b]0;owned\\x07\\x1b[2Jclean" in shown
    assert "/mark \\x1b[31mred\\x1b[0m ⟨U+202E⟩evil" in shown
    # JSON means the same text, escaped as JSON
    data = cli.ok("conv", "show", conv, "--json")
    _no_controls(data.out)
    assert data.json["title"] == TITLE


def test_server_error_bodies_are_one_escaped_line(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", Reply.error(400, "bad \x1b]0;t\x07\x1b[2J\x9b2J\nrequest"))
    result = cli("run", "hello")
    assert result.code == 3
    _no_controls(result.err)
    errors = [line for line in result.err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "bad" in errors[0]


def test_reply_text_is_raw_to_a_pipe(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("\x1b[1mbold\x1b[0m"))
    assert cli.ok("run", "hi").out == "\x1b[1mbold\x1b[0m\n"
    assert cli.ok("conv", "show", "-l").out.endswith("[Assistant] \x1b[1mbold\x1b[0m\n")


def _in_terminal(cli: Cli, *args: str) -> str:
    """Run ``ikgui ARGS`` with stdout and stderr on a pseudo-terminal; what it showed."""
    leader, follower = pty.openpty()
    env = dict(os.environ, IKGUI_HOME=str(cli.home))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ikgui", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    shown = b""
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 20)
            if not ready:
                break
            try:
                piece = os.read(leader, 65536)
            except OSError:  # the follower side closed: the process is done
                break
            if not piece:
                break
            shown += piece
    finally:
        os.close(leader)
        proc.wait(timeout=20)
    return shown.decode("utf-8", "replace")


def test_reply_text_is_escaped_on_a_terminal(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("\x1b]0;title\x07", "\x1b[2Jgone"))
    shown = _in_terminal(cli, "run", "hi")
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b]0;title\\x07\\x1b[2Jgone" in shown
    assert "\x1b" not in _in_terminal(cli, "conv", "show", "-l")


def test_markdown_export_and_import_lines_are_escaped_on_a_terminal(
    cli: Cli, local: WireServer, tmp_path: object
) -> None:
    conv = cli.new_id("/title", TITLE)
    local.route("/v1/chat/completions", sse_reply("\x1b[2Jwiped"))
    cli.ok("run", "-c", conv, "hi")
    shown = _in_terminal(cli, "conv", "export", conv, "--format", "md")
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b[2Jwiped" in shown
    # to a pipe, a Markdown export is the stored text as it is
    assert "\x1b[2Jwiped" in cli.ok("conv", "export", conv, "--format", "md").out
    exported = cli.ok("conv", "export", conv).out
    document = cli.home / "again.json"
    document.write_text(exported.replace(conv, "\\u001b]0;x\\u0007"), encoding="utf-8")
    imported = _in_terminal(cli, "conv", "import", str(document))
    assert "Imported 1 conversation" in imported and "\x1b" not in imported
    assert "\\x1b]0;x\\x07 (not a valid id)" in imported
