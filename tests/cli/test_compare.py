"""``ikgui run --compare`` and ``/compare`` against a real HTTP server on 127.0.0.1 and a
real SQLite file (SPEC §14): each answer is a branch forked at the same event, with
its model, titled "<title> · <model>"; one failing model does not stop the others."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli
from tests.cli.test_run import local, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import ReceivedRequest, Reply, WireServer

__all__ = ["local", "wire_server", "wire_server_session"]


def by_model(request: ReceivedRequest) -> Reply:
    """Each model answers in its own words; ``broken`` fails."""
    model = request.json()["model"]
    if model == "broken":
        return Reply.error(500, "the broken model is down")
    return sse_reply(f"{model} says", " hello")


def test_run_compare_prints_each_answer_under_its_model_and_branch(
    cli: Cli, local: WireServer
) -> None:
    local.route("/v1/chat/completions", sse_reply("Paris."))
    parent = cli.new_id("capital of France?")
    local.route("/v1/chat/completions", by_model)
    result = cli("run", "-c", parent, "--compare", "mock-gpt,other-model", "and of Italy?")
    assert result.code == 0, result.err
    shown = cli.ok("conv", "show", parent, "--json").json
    kids = [e["data"]["child_id"] for e in shown["scrollback"] if e["kind"] == "fork"]
    assert len(kids) == 2
    assert result.out == (
        f"=== local/mock-gpt · {kids[0]} ===\nmock-gpt says hello\n\n"
        f"=== local/other-model · {kids[1]} ===\nother-model says hello\n"
    )
    # each answer is a branch at the same event, holding the message and its answer
    first, second = (cli.ok("conv", "show", k, "--json").json for k in kids)
    assert first["fork_event_id"] == second["fork_event_id"] is not None
    assert first["title"] == "capital of France? · mock-gpt"
    assert second["title"] == "capital of France? · other-model"
    assert second["model"] == "other-model"
    # the parent's context is untouched; each branch's model received it all
    assert cli.notices(parent) == ["user: capital of France?", "assistant: Paris."]
    assert cli.notices(kids[1]) == [
        "user: capital of France?",
        "assistant: Paris.",
        "user: and of Italy?",
        "assistant: other-model says hello",
    ]
    sent = {b["model"]: b["messages"] for b in local.bodies("/v1/chat/completions")[1:]}
    assert set(sent) == {"mock-gpt", "other-model"}
    assert sent["other-model"][-1] == {"role": "user", "content": "and of Italy?"}
    # each answer's message has the other answers as its alternatives
    mine = [i for i in second["scrollback"] if i["kind"] == "user"][-1]
    assert [(a["conversation"], a["chosen"]) for a in mine["alternatives"]] == [
        (kids[0], False),
        (kids[1], True),
    ]
    assert first["branch_reason"] == second["branch_reason"] == "compare"
    # continuing in a branch keeps its model (replayed, not the parent's)
    local.route("/v1/chat/completions", by_model)
    follow = cli.ok("run", "-c", kids[1], "more?")
    assert follow.out == "other-model says hello\n"


def test_one_failing_model_does_not_stop_the_others(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", by_model)
    result = cli("run", "--compare", "broken,mock-gpt,claude/claude-x", "hi")
    assert result.code == 3
    blocks = result.out.split("\n\n")
    assert blocks[0].startswith("=== local/broken · ")
    assert "Error: " in blocks[0] and "broken model is down" in blocks[0]
    assert blocks[1].endswith("mock-gpt says hello\n") or blocks[1].endswith("mock-gpt says hello")
    assert blocks[2].startswith("=== claude/claude-x · ")  # (the server speaks no Anthropic)
    data = cli("run", "--json", "--compare", "mock-gpt,other-model", "hi").json
    assert [a["reply"] for a in data["answers"]] == [
        "mock-gpt says hello",
        "other-model says hello",
    ]
    assert data["answers"][0]["usage"] == {"input": 5, "output": 7}


def test_compare_needs_two_models_and_a_message(cli: Cli, local: WireServer) -> None:
    one = cli("run", "--compare", "mock-gpt", "hi")
    assert one.code != 0 and "Usage: /compare MODEL MODEL" in one.err
    command = cli("run", "--compare", "a,b", "/help")
    assert command.code != 0 and "not a command" in command.err
    # not a configured provider: a model name with a slash, at the current provider
    slashed = cli("run", "--compare", "nowhere/x,mock-gpt", "hi")
    assert slashed.out.startswith("=== local/nowhere/x · ") and slashed.code == 3


def test_slash_compare_sends_the_next_message_only(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", by_model)
    parent = cli.new_id("first")
    armed = cli.ok("run", "-c", parent, "/compare", "mock-gpt", "llama/tiny")
    assert "The next message goes to: local/mock-gpt, llama/tiny" in armed.out


def test_compare_on_postgresql(
    cli: Cli, local: WireServer, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answers stream at once into branches of a PostgreSQL database (each reply's
    saves go through the database thread): the same branches, titles and models."""
    monkeypatch.setenv("IKGUI_DATABASE_URL", pg_url)
    local.route("/v1/chat/completions", by_model)
    result = cli("run", "--compare", "mock-gpt,other-model,broken", "hello there")
    assert result.code == 3, result.err
    parent = result.err.strip().splitlines()[-1]
    shown = cli.ok("conv", "show", parent, "--json").json
    kids = [e["data"]["child_id"] for e in shown["scrollback"] if e["kind"] == "fork"]
    assert len(kids) == 3
    answers = [cli.notices(k)[-1] for k in kids[:2]]
    assert answers == ["assistant: mock-gpt says hello", "assistant: other-model says hello"]
    titles = [cli.ok("conv", "show", k, "--json").json["title"] for k in kids]
    assert titles == [f"hello there · {m}" for m in ("mock-gpt", "other-model", "broken")]
    assert shown["title"] == "hello there"  # the new conversation is named by its question
