"""A closed branch refuses ``ikgui run -c`` (exit 1, one exact line and a hint) until
``ikgui conv reopen`` (or ``/reopen``) reopens it; the reopening is an event in the
parent's log, and ``conv show`` agrees with what was done (issue 12, item 4)."""

from __future__ import annotations

from tests.cli.conftest import Cli
from tests.cli.test_run import local, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer

__all__ = ["local", "wire_server", "wire_server_session"]


def closed_branch(cli: Cli, local: WireServer) -> tuple[str, str]:
    local.route("/v1/chat/completions", sse_reply("First", " answer"))
    root = cli.new_id("hello")
    child = cli.ok("run", "-c", root, "/fork").err.strip().splitlines()[-1]
    assert cli.ok("run", "-c", child, "/kill").out.strip() == f"Closed {child}"
    return root, child


def test_run_in_a_closed_branch_exits_1_and_sends_nothing(cli: Cli, local: WireServer) -> None:
    _, child = closed_branch(cli, local)
    asked = len(local.bodies("/v1/chat/completions"))
    events = cli.ok("conv", "show", child, "--json").json["scrollback"]

    refused = cli("run", "-c", child, "more", "please")
    assert refused.code == 1 and refused.out == ""
    first, hint = refused.err.strip().splitlines()
    assert first == f"Error: Conversation is closed: {child}"
    assert hint == f"Hint: reopen it with /reopen or `ikgui conv reopen {child}`"
    assert len(local.bodies("/v1/chat/completions")) == asked  # the model was not asked
    assert cli.ok("conv", "show", child, "--json").json["scrollback"] == events

    marked = cli("run", "-c", child, "/mark", "x")  # a command that would append
    assert (marked.code, marked.err.splitlines()[0]) == (1, first)
    assert cli.ok("conv", "show", child, "--json").json["scrollback"] == events


def test_conv_reopen_restores_it_and_replay_agrees(cli: Cli, local: WireServer) -> None:
    root, child = closed_branch(cli, local)
    assert cli.ok("conv", "show", child, "--json").json["status"] == "killed"
    assert cli.ok("conv", "reopen", child[-4:]).out.strip() == f"Reopened {child}"
    shown = cli.ok("conv", "show", child, "--json").json
    assert shown["status"] == "active"
    root_log = cli.ok("conv", "show", root, "--json").json["scrollback"]
    assert [(e["kind"], e["content"]) for e in root_log[-2:]] == [
        ("agent_killed", f"Closed {child}"),
        ("agent_reopened", f"Reopened {child}"),
    ]
    assert root_log[-1]["data"] == {"target": child, "reopened_by": "user", "from": child}

    local.route("/v1/chat/completions", sse_reply("Second", " answer"))
    assert cli.ok("run", "-c", child, "more").out == "Second answer\n"
    assert cli.ok("conv", "tree", root).out.rstrip().endswith("2 live, 0 closed")

    again = cli("conv", "reopen", child)
    assert (again.code, again.err.strip()) == (1, f"Error: Conversation is not closed: {child}")


def test_slash_reopen_from_the_parent(cli: Cli, local: WireServer) -> None:
    root, child = closed_branch(cli, local)
    assert cli.ok("run", "-c", root, f"/reopen {child}").out.strip() == f"Reopened {child}"
    assert cli.ok("conv", "show", child, "--json").json["status"] == "active"


def test_no_save_is_refused_too(cli: Cli, local: WireServer) -> None:
    _, child = closed_branch(cli, local)
    refused = cli("run", "-c", child, "--no-save", "more")
    assert refused.code == 1
    assert refused.err.splitlines()[0] == f"Error: Conversation is closed: {child}"
