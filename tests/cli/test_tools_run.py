"""``ikgui run`` with tools (SPEC §12) against real MCP servers and a real HTTP server
streaming a model's tool calls: asked on a terminal, denied without one unless
``--allow``, ``--no-tools``, one stderr line per call and result, exit codes."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.config.loading import load_settings
from ikgui.domain.settings import ToolServerSettings
from tests.cli.conftest import Cli
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.mcp_servers import (
    children_of,
    config_table,
    faulty_server,
    filesystem_server,
    process_alive,
)
from tests.support.tool_streams import Model, openai_calls, openai_text
from tests.support.waiting import wait_for
from tests.support.wire_server import WireServer

__all__ = ["wire_server", "wire_server_session"]

CHAT = "/v1/chat/completions"


def configure(cli: Cli, server: WireServer, *tools: ToolServerSettings, extra: str = "") -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    text = f"""
[defaults]
provider = "local"
model = "mock-gpt"

[providers.local]
kind = "openai"
base_url = "{server.url}/v1"
api_key_env = "IKGUI_TEST_LOCAL_KEY"
{extra}
"""
    text += "\n".join(config_table(tool) for tool in tools)
    (cli.home / "config.toml").write_text(text, encoding="utf-8")


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "plan.txt").write_text("Ship on Friday.\nTell Ada.\n", encoding="utf-8")
    return folder


@pytest.fixture
def no_children() -> Iterator[None]:
    """Every server a run starts is stopped when it ends."""
    before = children_of()
    yield
    assert not [pid for pid in children_of() - before if process_alive(pid)]


def kinds(cli: Cli, conv: str) -> list[str]:
    return [e["kind"] for e in cli.ok("conv", "show", conv, "--json").json["scrollback"]]


def test_allow_runs_the_call_on_the_real_server_and_the_model_reads_the_file(
    cli: Cli, wire_server: WireServer, notes: Path, no_children: None
) -> None:
    configure(cli, wire_server, filesystem_server(notes, "files"))
    path = json.dumps({"path": str(notes / "plan.txt")})
    model = Model(
        "openai", openai_calls(("call_1", "files__read_text_file", path)), openai_text("Friday.")
    )
    wire_server.route(CHAT, model)
    result = cli("run", "--allow", "files.read_text_file", "When", "do", "we", "ship?")
    assert result.code == 0, result.err
    assert result.out == "Friday.\n"
    lines = result.err.splitlines()
    assert lines[0] == f"Tool call: files.read_text_file {path.replace(',', ', ')}"
    assert lines[1].startswith("Tool result: files.read_text_file ok in ")
    assert lines[1].endswith("s (+1 lines): Ship on Friday.")
    # The model was offered the server's tools, then read the file through ikgui.
    offered = [t["function"]["name"] for t in model.seen[0]["tools"]]
    assert "files__read_text_file" in offered
    second = model.seen[1]["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "files__read_text_file"
    assert second[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "Ship on Friday.\nTell Ada.\n",
    }
    conv = lines[-1]
    assert kinds(cli, conv) == [
        "user",
        "assistant",
        "tool_call",
        "tool_approval",
        "tool_result",
        "assistant",
    ]
    approval = cli.ok("conv", "show", conv, "--json").json["scrollback"][3]["data"]
    assert approval == {"tool_call_id": "call_1", "decision": "once", "by": "user"}


def test_without_a_terminal_a_call_is_denied_and_the_model_told(
    cli: Cli, wire_server: WireServer, no_children: None
) -> None:
    configure(cli, wire_server, faulty_server())
    model = Model(
        "openai",
        openai_calls(("c1", "faulty__echo", '{"text": "hi"}')),
        openai_text("I may not."),
    )
    wire_server.route(CHAT, model)
    # A pattern for another tool allows nothing here.
    result = cli("run", "--allow", "faulty.boom", "echo hi")
    assert result.code == 0, result.err
    assert result.out == "I may not.\n"
    assert "Tool result: faulty.echo failed: Denied by the user: no one was there" in result.err
    assert model.seen[1]["messages"][-1]["content"] == (
        "Denied by the user: no one was there to allow it"
    )
    # server.* allows every tool of the server.
    wire_server.route(
        CHAT,
        Model(
            "openai",
            *[openai_calls(("c2", "faulty__echo", '{"text": "yo"}')), openai_text("Done.")],
        ),
    )
    again = cli("run", "--allow", "faulty.*", "echo yo")
    assert again.code == 0 and again.out == "Done.\n"
    assert "Tool result: faulty.echo ok in " in again.err and '{"text": "yo"}' in again.err


def test_no_tools_offers_none_and_starts_no_server(
    cli: Cli, wire_server: WireServer, notes: Path
) -> None:
    configure(cli, wire_server, filesystem_server(notes, "files"))
    model = Model("openai", openai_text("Plain."))
    wire_server.route(CHAT, model)
    before = children_of()
    result = cli("run", "--no-tools", "hi")
    assert result.code == 0 and result.out == "Plain.\n"
    assert "tools" not in model.seen[0]
    assert children_of() - before == set()


def test_the_round_limit_exits_1_with_one_line(
    cli: Cli, wire_server: WireServer, no_children: None
) -> None:
    configure(cli, wire_server, faulty_server(), extra="\n[limits]\ntool_rounds = 2\n")
    wire_server.route(CHAT, Model("openai", openai_calls(("c", "faulty__echo", '{"text": "x"}'))))
    result = cli("run", "--allow", "faulty.echo", "loop")
    assert result.code == 1
    assert result.err.count("Tool call: faulty.echo") == 3  # the third is never run
    assert result.err.count("Tool result: faulty.echo ok") == 2
    assert "Error: Stopped after 2 rounds of tool calls ([limits] tool_rounds)." in result.err
    assert "Traceback" not in result.err


def test_a_server_that_fails_to_start_is_one_line_and_the_request_goes_on(
    cli: Cli, wire_server: WireServer, tmp_path: Path
) -> None:
    configure(cli, wire_server, ToolServerSettings("ghost", str(tmp_path / "nothing-here")))
    model = Model("openai", openai_text("Without tools."))
    wire_server.route(CHAT, model)
    result = cli("run", "hi")
    assert result.code == 0 and result.out == "Without tools.\n"
    assert result.err.splitlines()[0].startswith("Warning: tool server ghost failed: ")
    assert "tools" not in model.seen[0]


def _on_a_terminal(cli: Cli, answers: list[str], *args: str) -> tuple[int, str, str]:
    """``ikgui run ARGS`` in a new process whose standard input is a terminal (a pty):
    each answer is typed once the question before it is on stderr."""
    controller, terminal = pty.openpty()
    env = dict(os.environ, IKGUI_HOME=str(cli.home))
    process = subprocess.Popen(
        [sys.executable, "-m", "ikgui", "run", *args],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    os.close(terminal)
    assert process.stderr is not None and process.stdout is not None
    err = ""
    for answer in answers:
        while not err.endswith(("[n]o: ", "(optional): ")):
            char = process.stderr.read(1)
            assert char, f"no question came: {err}"
            err += char
        os.write(controller, (answer + "\n").encode())
        err += "<" + answer + ">\n"
    out, rest = process.communicate(timeout=60)
    os.close(controller)
    return process.returncode, out, err + rest


def test_on_a_terminal_always_is_written_to_config_and_no_with_a_note(
    cli: Cli, wire_server: WireServer, no_children: None
) -> None:
    configure(cli, wire_server, faulty_server())
    both = openai_calls(("c1", "faulty__echo", '{"text": "one"}'), ("c2", "faulty__boom", "{}"))
    model = Model("openai", both, openai_text("Noted."))
    wire_server.route(CHAT, model)
    code, out, err = _on_a_terminal(cli, ["maybe", "a", "n", "not that one"], "two tools")
    assert code == 0, err
    assert out == "Noted.\n"
    questions = [line for line in err.splitlines() if line.startswith("Allow ")]
    assert questions[0] == (
        'Allow faulty.echo {"text": "one"}? [o]nce, [c]onversation, [a]lways, [n]o: <maybe>'
    )
    assert questions[1].endswith("[a]lways, [n]o: <a>")  # asked again after "maybe"
    assert questions[2].startswith("Allow faulty.boom {}? ")
    assert "Note for the model (optional): <not that one>" in err
    messages = model.seen[1]["messages"]
    assert messages[-2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": '{"text": "one"}'},
        {"role": "tool", "tool_call_id": "c2", "content": "Denied by the user: not that one"},
    ]
    assert load_settings(cli.home / "config.toml").tool_servers["faulty"].always_allow == ("echo",)
    # Next time, without a terminal, config.toml allows it.
    wire_server.route(
        CHAT,
        Model("openai", openai_calls(("c3", "faulty__echo", '{"text": "3"}')), openai_text("k")),
    )
    conv = cli.ok("run", "again").err.strip().splitlines()[-1]
    approval = cli.ok("conv", "show", conv, "--json").json["scrollback"][3]["data"]
    assert approval == {"tool_call_id": "c3", "decision": "always", "by": "config"}


def _started(cli: Cli, *args: str) -> subprocess.Popen[str]:
    """``ikgui run ARGS`` in a new process on a terminal (a pty), stdin to be typed."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "ikgui", "run", *args],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, IKGUI_HOME=str(cli.home)),
        text=True,
    )
    os.close(terminal)
    process.controller = controller  # type: ignore[attr-defined]
    return process


def test_ctrl_c_at_the_question_or_during_the_call_exits_130_and_keeps_the_log(
    cli: Cli, wire_server: WireServer, tmp_path: Path, no_children: None
) -> None:
    configure(cli, wire_server, faulty_server())
    marker = tmp_path / "marker"
    wire_server.route(
        CHAT,
        Model("openai", openai_calls(("c1", "faulty__hang", json.dumps({"marker": str(marker)})))),
    )
    # At the question.
    process = _started(cli, "wait")
    assert process.stderr is not None
    err = ""
    while not err.endswith("[n]o: "):
        char = process.stderr.read(1)
        assert char, err
        err += char
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=60)
    os.close(process.controller)  # type: ignore[attr-defined]
    assert process.returncode == 130, err + rest
    assert "Traceback" not in rest and not marker.exists()
    conv = cli.ok("conv", "list", "--json").json[0]["id"]
    shown = cli.ok("conv", "show", conv, "--json").json["scrollback"]
    assert [e["kind"] for e in shown][-2:] == ["tool_call", "tool_result"]
    assert shown[-1]["data"]["output"] == "Cancelled"
    # During the call: it is cancelled on the server too.
    process = _started(cli, "--allow", "faulty.hang", "-c", conv, "again")
    wait_for(lambda: marker.exists() and marker.read_text() == "started")
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=60)
    os.close(process.controller)  # type: ignore[attr-defined]
    assert process.returncode == 130, rest
    assert "Traceback" not in rest
    shown = cli.ok("conv", "show", conv, "--json").json["scrollback"]
    assert shown[-1]["kind"] == "tool_result" and shown[-1]["data"]["output"] == "Cancelled"


def test_on_a_terminal_conversation_grants_the_tool_in_that_conversation_only(
    cli: Cli, wire_server: WireServer, no_children: None
) -> None:
    configure(cli, wire_server, faulty_server())
    echo = openai_calls(("c1", "faulty__echo", '{"text": "one"}'))
    wire_server.route(CHAT, Model("openai", echo, openai_text("One.")))
    code, out, err = _on_a_terminal(cli, ["c"], "first")
    assert code == 0 and out == "One.\n", err
    conv = err.strip().splitlines()[-1]
    # Continued without a terminal: the grant stands, nothing is asked.
    again = openai_calls(("c2", "faulty__echo", '{"text": "two"}'))
    wire_server.route(CHAT, Model("openai", again, openai_text("Two.")))
    result = cli.ok("run", "-c", conv, "second")
    assert "Tool result: faulty.echo ok" in result.err
    decision = cli.ok("conv", "show", conv, "--json").json["scrollback"][-3]["data"]
    assert (decision["decision"], decision["by"]) == ("conversation", "conversation")
    # Another conversation has no such grant (and no terminal: denied).
    wire_server.route(CHAT, Model("openai", again, openai_text("No.")))
    other = cli.ok("run", "elsewhere")
    assert "Tool result: faulty.echo failed: Denied by the user" in other.err
    assert load_settings(cli.home / "config.toml").tool_servers["faulty"].always_allow == ()
