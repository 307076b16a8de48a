"""The three wire forms of tool use (SPEC §12), end to end: ``ikgui run`` offers a real
MCP server's tools in the provider's form, the wire server streams a reply asking for
two calls at once (OpenAI ``tool_calls`` deltas, Anthropic ``tool_use`` blocks with
``input_json_delta``, Ollama ``message.tool_calls``), both run on the server, and the
next request carries the calls and their results in that provider's form, under the
names the model was offered."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.cli.conftest import Cli
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.mcp_servers import config_table, faulty_server
from tests.support.tool_streams import (
    Model,
    anthropic_calls,
    anthropic_text,
    ollama_calls,
    ollama_text,
    openai_calls,
    openai_text,
)
from tests.support.wire_server import CHAT_PATHS, WireServer, load_recording

__all__ = ["wire_server", "wire_server_session"]

FORMS: dict[str, tuple[Callable[..., bytes], Callable[[str], bytes], str]] = {
    "openai": (openai_calls, openai_text, "/v1"),
    "anthropic": (anthropic_calls, anthropic_text, ""),
    "ollama": (ollama_calls, ollama_text, ""),
}


def configure(cli: Cli, server: WireServer, kind: str, tools: str = "my-tools") -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f"""
[defaults]
provider = "model"
model = "tiny"

[providers.model]
kind = "{kind}"
base_url = "{server.url}{FORMS[kind][2]}"
api_key_env = "IKGUI_TEST_WIRE_KEY"

"""
        + config_table(faulty_server(tools)),
        encoding="utf-8",
    )


def offered_names(kind: str, body: dict[str, Any]) -> list[str]:
    if kind == "anthropic":
        return [tool["name"] for tool in body["tools"]]
    return [tool["function"]["name"] for tool in body["tools"]]


def calls_and_results(
    kind: str, body: dict[str, Any], text: str = "Let me check.", count: int = 2
) -> tuple[list[Any], list[Any]]:
    """(the calls as the next request carries them, their results) in the wire form: a
    reply of ``text`` (may be empty) asking for ``count`` calls."""
    messages = body["messages"]
    if kind == "anthropic":
        asked, answered = messages[-2], messages[-1]
        assert asked["role"] == "assistant" and answered["role"] == "user"
        blocks = asked["content"]
        if text:
            assert blocks[0] == {"type": "text", "text": text}
            blocks = blocks[1:]
        calls = [(b["id"], b["name"], b["input"]) for b in blocks]
        assert all(b["type"] == "tool_use" for b in blocks)
        results = [(b["tool_use_id"], b["content"]) for b in answered["content"]]
        return calls, results
    asked = messages[-1 - count]
    assert asked["role"] == "assistant" and (asked["content"] or "") == text
    calls = []
    for call in asked["tool_calls"]:
        arguments = call["function"]["arguments"]
        calls.append(
            (
                call.get("id"),
                call["function"]["name"],
                json.loads(arguments) if isinstance(arguments, str) else arguments,
            )
        )
    answered = messages[-count:]
    results = [(m.get("tool_call_id") or m.get("tool_name"), m["content"]) for m in answered]
    assert all(m["role"] == "tool" for m in answered)
    return calls, results


@pytest.mark.parametrize("kind", ["openai", "anthropic", "ollama"])
def test_two_calls_in_one_reply_round_trip_in_each_wire_form(
    cli: Cli, wire_server: WireServer, kind: str
) -> None:
    configure(cli, wire_server, kind)
    asks, says, _ = FORMS[kind]
    # "my-tools" has a character providers refuse in a name: the model sees my-tools__echo.
    reply = asks(
        ("call_a", "my-tools__echo", '{"text": "first"}'),
        ("call_b", "my-tools__echo", '{"text": "second"}'),
        text="Let me check.",
    )
    model = Model(kind, reply, says("Both echoed."))
    wire_server.route(CHAT_PATHS[kind], model)
    result = cli("run", "--allow", "my-tools.echo", "echo", "twice")
    assert result.code == 0, result.err
    assert result.out.endswith("Both echoed.\n")
    assert result.err.count("Tool result: my-tools.echo ok") == 2
    assert "my-tools__echo" in offered_names(kind, model.seen[0])
    assert len(model.seen) == 2
    calls, results = calls_and_results(kind, model.seen[1])
    assert [(name, arguments) for _, name, arguments in calls] == [
        ("my-tools__echo", {"text": "first"}),
        ("my-tools__echo", {"text": "second"}),
    ]
    assert [output for _, output in results] == ['{"text": "first"}', '{"text": "second"}']
    if kind == "ollama":  # no ids on Ollama's wire: a result names its tool
        assert [ref for ref, _ in results] == ["my-tools__echo", "my-tools__echo"]
    else:
        assert [ref for ref, _ in results] == ["call_a", "call_b"]
        assert [call_id for call_id, _, _ in calls] == ["call_a", "call_b"]
    shown = cli.ok("conv", "show", "-l", "--json").json["scrollback"]
    stored = [e["data"] for e in shown if e["kind"] == "tool_call"]
    assert [(d["server"], d["name"]) for d in stored] == [("my-tools", "echo")] * 2


#: The documented-form streams in tests/data/wire (its README says where each form is from).
RECORDED = {
    "openai": "docs-openai-tool-calls-stream.txt",
    "anthropic": "docs-anthropic-tool-use-stream.txt",
    "ollama": "docs-ollama-tool-calls.ndjson",
}


@pytest.mark.parametrize("kind", ["openai", "anthropic", "ollama"])
def test_the_recorded_tool_call_streams_run_end_to_end(
    cli: Cli, wire_server: WireServer, kind: str
) -> None:
    configure(cli, wire_server, kind, tools="faulty")
    model = Model(kind, load_recording(RECORDED[kind]).body, FORMS[kind][1]("Done."))
    wire_server.route(CHAT_PATHS[kind], model)
    result = cli("run", "--allow", "faulty.*", "go")
    assert result.code == 0, result.err
    assert result.out == "Let me check.\nDone.\n"
    assert [line.split(" ok")[0] for line in result.err.splitlines()[:4]] == [
        'Tool call: faulty.echo {"text": "first"}',
        'Tool call: faulty.echo {"text": "second"}',
        "Tool result: faulty.echo",
        "Tool result: faulty.echo",
    ]
    _, results = calls_and_results(kind, model.seen[1])
    assert [output for _, output in results] == ['{"text": "first"}', '{"text": "second"}']


#: Tool-call streams recorded from a real server: llama.cpp's llama-server with --jinja,
#: asked with tool_choice "required" (tests/data/wire/README.md says how): whitespace in
#: the arguments as the model wrote it, no text, Anthropic's two blocks left open until
#: the end and a reply cut by max_tokens after two whole calls.
LLAMA_SERVER = {
    "openai": ("llama-server-openai-tool-call-stream.txt", 1),
    "anthropic": ("llama-server-anthropic-tool-use-stream.txt", 2),
}


@pytest.mark.parametrize("kind", sorted(LLAMA_SERVER))
def test_tool_calls_recorded_from_llama_server_run_end_to_end(
    cli: Cli, wire_server: WireServer, kind: str
) -> None:
    name, count = LLAMA_SERVER[kind]
    configure(cli, wire_server, kind, tools="faulty")
    model = Model(kind, load_recording(name).body, FORMS[kind][1]("Done."))
    wire_server.route(CHAT_PATHS[kind], model)
    result = cli("run", "--allow", "faulty.*", "go")
    assert result.code == 0, result.err
    assert result.out == "Done.\n"
    calls = [line for line in result.err.splitlines() if line.startswith("Tool call:")]
    assert calls == ['Tool call: faulty.echo {"text": "hello"}'] * count
    calls_sent, results = calls_and_results(kind, model.seen[1], text="", count=count)
    assert [(name, arguments) for _, name, arguments in calls_sent] == [
        ("faulty__echo", {"text": "hello"})
    ] * count
    assert [output for _, output in results] == ['{"text": "hello"}'] * count
