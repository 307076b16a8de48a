"""``/model provider/model`` from the command line (issue 20, item 1): the move is
checked against the target provider's own list, kept for good, and shown by
``conv show`` and ``conv context`` alike."""

from __future__ import annotations

from tests.cli.conftest import Cli
from tests.cli.test_run import local, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer

__all__ = ["local", "wire_server", "wire_server_session"]


def test_model_provider_slash_model_moves_a_conversation(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("from local"))
    conv = cli.new_id("hello")
    tags = {"models": [{"name": "qwen2.5", "model": "qwen2.5"}]}
    local.route("/api/tags", Reply.json(tags), method="GET")

    refused = cli("run", "-c", conv, "/model", "llama/mock-gpt")  # local's, not llama's
    assert refused.code == 1 and "Unknown model 'mock-gpt' at llama" in refused.err
    moved = cli.ok("run", "-c", conv, "/model", "llama/qwen2.5")
    assert "Switched to model: qwen2.5 (llama)" in moved.out

    local.replay("lightrag-ollama-chat-stream.ndjson")
    cli.ok("run", "-c", conv, "and now?")
    assert local.requests[-1].path == "/api/chat"
    assert local.bodies("/api/chat")[-1]["model"] == "qwen2.5"
    shown = cli.ok("conv", "show", conv, "--json").json
    context = cli.ok("conv", "context", conv, "--json").json
    assert (shown["provider"], shown["model"]) == ("llama", "qwen2.5")
    assert (context["provider"], context["model"]) == ("llama", "qwen2.5")
    assert "model qwen2.5 (llama)" in cli.ok("conv", "show", conv).out
