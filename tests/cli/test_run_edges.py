"""``ikgui run`` and ``ikgui conv`` at their edges (issue 8, items 12-16 and 18), against
the real wire server and a real database."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Cli
from tests.cli.test_run import _start_slow, local, sse, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.waiting import wait_for
from tests.support.wire_server import Reply, WireServer

__all__ = ["local", "wire_server", "wire_server_session"]

SSE = (("content-type", "text/event-stream"),)


def _delta(text: str) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"content": text}}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _limits(cli: Cli, text: str) -> None:
    config = cli.home / "config.toml"
    config.write_text(config.read_text(encoding="utf-8") + f"\n[limits]\n{text}\n", "utf-8")


# -- item 12 -----------------------------------------------------------------------
def test_an_endless_reply_is_cut_at_the_configured_limit(cli: Cli, local: WireServer) -> None:
    _limits(cli, "reply_minutes = 0.02")  # 1.2 seconds
    local.route(
        "/v1/chat/completions",
        Reply(headers=SSE, fault="endless", repeat=_delta("la "), pause=0.02),
    )
    result = cli("run", "sing")  # (the server would go on for 30 s)
    assert result.code == 3
    assert result.out.startswith("la la ")
    errors = [line for line in result.err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "reply_minutes" in errors[0]
    _user, reply, error = cli.ok("conv", "show", "-l", "--json").json["scrollback"]
    assert reply["content"].startswith("la la ") and reply["content"].endswith("(stopped)")
    assert reply["content"].removesuffix(" (stopped)") == result.out.rstrip("\n")
    assert (error["kind"], error["data"]["category"]) == ("error", "limit")


def test_limits_in_config_are_checked(cli: Cli, local: WireServer) -> None:
    _limits(cli, 'reply_mb = "lots"\nreply_minutes = 0\nspeed = 3')
    warnings = cli.ok("conv", "list").err.splitlines()
    assert any("limits.reply_mb must be a number above 0" in w for w in warnings)
    assert any("limits.reply_minutes must be a number above 0" in w for w in warnings)
    assert any("unknown setting limits.speed" in w for w in warnings)


# -- item 13 -----------------------------------------------------------------------
def test_sigterm_stops_the_reply_like_ctrl_c(cli: Cli, local: WireServer) -> None:
    proc = _start_slow(cli, local, "count")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 143, err
    assert "(stopped)" in err and "Traceback" not in err
    reply = cli.ok("conv", "show", "-l", "--json").json["scrollback"][-1]
    assert reply["data"]["interrupted"] is True and "streaming" not in reply["data"]
    assert reply["content"] == ("word0 " + out).removesuffix("\n") + " (stopped)"


def test_an_empty_cid_is_an_error(cli: Cli, local: WireServer) -> None:
    cli.new_id("/mark", "a")
    result = cli("run", "--cid", "", "hello")
    assert (result.code, result.err.strip()) == (2, "Error: --cid needs a conversation id")
    assert len(cli.ok("conv", "list", "--json").json) == 1
    assert local.requests == []


def test_garbage_is_not_a_model_reply(cli: Cli, local: WireServer) -> None:
    junk = bytes(range(14, 256)) * 8
    local.route("/v1/chat/completions", Reply(body=junk, headers=SSE))
    result = cli("run", "hello")
    assert result.code == 3
    (line,) = [x for x in result.err.splitlines() if x.startswith("Error: ")]
    assert "not a model reply" in line and "mid-stream" not in line


def test_deleting_twice_says_it_is_already_in_the_trash(cli: Cli) -> None:
    conv = cli.new_id("/mark", "a")
    cli.ok("conv", "delete", conv)
    again = cli("conv", "delete", conv)
    assert again.code == 1
    assert again.err.strip() == (
        f"Error: {conv} is already in the Trash (ikgui conv restore {conv} brings it back, "
        "ikgui conv clean removes it for good)"
    )


# -- item 14 -----------------------------------------------------------------------
def test_model_and_provider_flags_with_c_are_one_off(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("one"))
    conv = cli.new_id("-m", "m1", "first")
    assert cli.ok("conv", "show", conv, "--json").json["model"] == "m1"

    local.route("/v1/chat/completions", sse_reply("two"))
    cli.ok("run", "-c", "-m", "m2", "bigger question")
    assert local.bodies()[-1]["model"] == "m2"
    shown = cli.ok("conv", "show", conv, "--json").json
    assert shown["model"] == "m1"
    assert shown["scrollback"][-1]["data"]["model"] == "m2"  # the reply says who answered

    cli.ok("run", "-c", "back to normal")
    assert local.bodies()[-1]["model"] == "m1"

    local.replay("lightrag-ollama-chat-stream.ndjson")
    cli.ok("run", "-c", "-p", "llama", "once")
    assert local.requests[-1].path == "/api/chat"
    assert cli.ok("conv", "show", conv, "--json").json["provider"] == "local"
    # /model still changes it for good
    cli.ok("run", "-c", "/model", "tiny")
    local.route("/v1/chat/completions", sse_reply("three"))
    cli.ok("run", "-c", "after")
    assert local.bodies()[-1]["model"] == "tiny"
    # a fork made under a one-off model keeps the conversation's own
    local.route("/v1/chat/completions", sse_reply("branch"))
    cli.ok("run", "-c", conv, "-m", "m2", "/fork", "try this")
    assert local.bodies()[-1]["model"] == "m2"  # the one-off still served its request
    child = cli.ok("conv", "show", "-l", "--json").json
    assert child["parent"] == conv and child["model"] == "tiny"


# -- item 15 -----------------------------------------------------------------------
def test_show_prints_times_tokens_and_cost(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("Hi"))
    conv = cli.new_id("hello")
    lines = cli.ok("conv", "show", conv).out.splitlines()
    assert lines[2].startswith("created 2") and "  updated 2" in lines[2]
    assert lines[2].endswith("5 in / 7 out · $0.0000")
    empty = cli.new_id("/mark", "x")
    assert cli.ok("conv", "show", empty).out.splitlines()[2].endswith("no tokens yet")


# -- item 16 -----------------------------------------------------------------------
def test_a_rewind_shows_its_marks_label_even_if_it_was_written_without(cli: Cli) -> None:
    conv = cli.new_id("/mark", "checkpoint")
    cli.ok("run", "-c", conv, "/prompt", "x")
    assert cli.ok("run", "-c", conv, "/rewind").out.strip() == "Rewound to checkpoint"
    with sqlite3.connect(cli.home / "ikgui.db") as db:  # as an older version wrote it
        db.execute("UPDATE event SET data = json_remove(data, '$.target_label')")
    shown = cli.ok("conv", "show", conv, "--json").json
    assert shown["scrollback"][-1]["content"] == "Rewound to checkpoint"
    assert cli.ok("conv", "show", conv).out.rstrip().endswith("-- Rewound to checkpoint")


# -- item 18 -----------------------------------------------------------------------
def test_fork_with_a_prompt_prints_the_child_before_the_reply(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("Summary."))
    parent = cli.new_id("/mark", "start")
    env = dict(os.environ, IKGUI_HOME=str(cli.home))
    done = subprocess.run(
        [sys.executable, "-m", "ikgui", "run", "-c", parent, '/fork "summarize this"'],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream: the order as a terminal shows it
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Forked child ") and lines[0].endswith(f"from {parent}")
    assert lines[1] == "Summary."
    # --json still carries the command's output with the reply
    local.route("/v1/chat/completions", Reply(body=sse("Again."), headers=SSE))
    data = cli.ok("run", "-c", parent, "--json", "/fork again").json
    assert data["output"].startswith("Forked child ") and data["reply"] == "Again."


def test_an_empty_prompt_says_it_was_cleared(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "a cat")
    assert cli.ok("run", "-c", conv, '/prompt ""').out.strip() == "Working prompt cleared"
    assert cli.ok("conv", "show", conv, "--json").json["working_prompt"] == ""
    assert cli.ok("run", "-c", conv, '/prompt ""').out.strip() == "Working prompt unchanged"


# -- item 10 (the reply side of a closed pipe) -----------------------------------------
def test_run_into_a_closed_pipe_stops_the_reply_quietly(cli: Cli, local: WireServer) -> None:
    pieces = [f"word{i} " for i in range(400)]
    chunks = (*(_delta(p) for p in pieces), b"data: [DONE]\n\n")
    local.route("/v1/chat/completions", Reply(chunks=chunks, headers=SSE, pause=0.02))
    env = dict(os.environ, IKGUI_HOME=str(cli.home))
    script = (
        f'"{sys.executable}" -m ikgui run count | head -c 20; echo "status=${{PIPESTATUS[0]}}" >&2'
    )
    done = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout == "word0 word1 word2 wo"
    assert done.stderr.strip() == "status=141", done.stderr
    # It did not read the other 7 seconds of the reply: the server saw it leave mid-way.
    wait_for(lambda: local.client_gone == 1)
    reply = cli.ok("conv", "show", "-l", "--json").json["scrollback"][-1]
    assert reply["data"]["interrupted"] is True and "streaming" not in reply["data"]
    assert reply["content"].startswith("word0 word1 word2 ") and "word399" not in reply["content"]


def test_limits_survive_the_settings_dialog_saving_the_config(tmp_path: Path) -> None:
    from ikgui.config.loading import load_settings, save_settings

    path = tmp_path / "config.toml"
    path.write_text("[limits]\nreply_minutes = 90\nreply_mb = 2.5\n", encoding="utf-8")
    settings = load_settings(path)
    assert settings.problems == []
    assert (settings.reply_seconds, settings.reply_bytes) == (5400, 2_500_000)
    save_settings(settings, path)
    again = load_settings(path)
    assert (again.reply_seconds, again.reply_bytes) == (5400, 2_500_000)
    defaults = load_settings(tmp_path / "none.toml")
    save_settings(defaults, path)
    assert "[limits]" not in path.read_text(encoding="utf-8")
