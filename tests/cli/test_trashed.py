"""``ikgui run -c`` refuses a conversation in the Trash (issue 20, item 4): exit 1, one
line and a hint naming ``ikgui conv restore``, nothing written and nothing asked of the
model; ``ikgui conv restore`` makes it take messages again. And ``conv list`` says a
closed branch is closed, as ``conv tree`` and the window do (issue 20, wording)."""

from __future__ import annotations

from tests.cli.conftest import Cli
from tests.cli.test_closed_branch import closed_branch
from tests.cli.test_run import local, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer

__all__ = ["local", "wire_server", "wire_server_session"]


def test_run_in_a_trashed_conversation_exits_1_and_writes_nothing(
    cli: Cli, local: WireServer
) -> None:
    local.route("/v1/chat/completions", sse_reply("First", " answer"))
    conv = cli.new_id("hello")
    cli.ok("conv", "delete", conv)
    asked = len(local.bodies("/v1/chat/completions"))
    events = cli.ok("conv", "show", conv, "--json").json["scrollback"]

    for args in (("more", "please"), ("/mark", "x"), ("--no-save", "more")):
        refused = cli.process("run", "-c", conv, *args)
        assert refused.code == 1 and refused.out == "", refused.err
        assert refused.err.strip().splitlines() == [
            f"Error: Conversation is in the Trash: {conv}",
            f"Hint: restore it with `ikgui conv restore {conv}`",
        ]
    assert len(local.bodies("/v1/chat/completions")) == asked  # the model was not asked
    shown = cli.ok("conv", "show", conv, "--json").json
    assert shown["scrollback"] == events

    assert cli.ok("conv", "restore", conv).out.strip().startswith("Restored")
    local.route("/v1/chat/completions", sse_reply("Second", " answer"))
    assert cli.ok("run", "-c", conv, "more").out == "Second answer\n"


def test_conv_list_says_closed(cli: Cli, local: WireServer) -> None:
    _, child = closed_branch(cli, local)
    line = next(line for line in cli.ok("conv", "list").out.splitlines() if child in line)
    assert line.endswith("[closed]") and "killed" not in line
    root_log = cli.ok(
        "conv", "show", cli.ok("conv", "show", child, "--json").json["parent"], "--json"
    ).json
    kill = next(e for e in root_log["scrollback"] if e["kind"] == "agent_killed")
    assert kill["data"]["killed_by"] == "user" and kill["data"]["from"] == child
