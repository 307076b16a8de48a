"""A tool server's question during a call (MCP elicitation) on the command line (SPEC
§12): ``ikgui run`` asks it field by field on a terminal (a pty) and declines it without
one; the question and its answer are recorded with the call's result, so ``conv show``
(text and ``--json``), both exports and an import show them. The server is the suite's
own (``survey``, ``insist``), started for real."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Cli
from tests.cli.test_tools_run import CHAT, configure
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.mcp_servers import faulty_server
from tests.support.tool_streams import Model, openai_calls, openai_text
from tests.support.wire_server import WireServer

__all__ = ["wire_server", "wire_server_session"]


def calling(server: WireServer, tool: str) -> Model:
    model = Model("openai", openai_calls(("c1", tool, "{}")), openai_text("Done."))
    server.route(CHAT, model)
    return model


def _prompted(err: str) -> bool:
    """A question waits on stderr: its last line (no newline yet) is a field's prompt."""
    last = err.rsplit("\n", 1)[-1]
    return last.endswith(": ") and (" — " in last or "[y]es" in last)


def on_a_terminal(cli: Cli, answers: list[str], *args: str) -> tuple[int, str, str]:
    """``ikgui run ARGS`` with a terminal (a pty) as its standard input: each answer
    typed once its prompt is on stderr."""
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
    assert process.stderr is not None
    err = ""
    for answer in answers:
        while not _prompted(err):
            char = process.stderr.read(1)
            assert char, f"no question came: {err}"
            err += char
        os.write(controller, (answer + "\n").encode())
        err += "<" + answer + ">\n"
    out, rest = process.communicate(timeout=60)
    os.close(controller)
    return process.returncode, out, err + rest


def test_on_a_terminal_asked_field_by_field_bad_answers_asked_again(
    cli: Cli, wire_server: WireServer
) -> None:
    configure(cli, wire_server, faulty_server())
    model = calling(wire_server, "faulty__survey")
    typed = [
        "",  # name: required, asked again
        "Ada",
        "nope",  # email: not an address, asked again
        "ada@example.org",
        "",  # age: optional, skipped
        "tall",  # height: not a number
        "1.62",
        "",  # subscribe: its default (no)
        "Green",  # colour: by its label
        "basil, cheese",
    ]
    code, out, err = on_a_terminal(cli, typed, "--allow", "faulty.survey", "survey me")
    assert code == 0, err
    assert out == "Done.\n"
    assert "The tool server faulty asks: Tell us about yourself" in err
    assert "(Type !decline to refuse to answer.)" in err
    assert "Your name (required) — text, at least 2 characters: <>\n  It is required." in err
    assert "Email — text (email): <nope>\n  It must be an email address." in err
    assert "Age — a whole number from 0 to 150: <>" in err
    assert "  In metres\nHeight (m) — a number: <tall>\n  It must be a number." in err
    assert "Subscribe — yes or no, default false: <>" in err
    assert "Colour (required) — one of Red, Green, Blue: <Green>" in err
    assert (
        "Toppings — one or more of cheese, olives, basil (separated by commas): <basil, cheese>"
        in err
    )
    content = {
        "name": "Ada",
        "email": "ada@example.org",
        "height": 1.62,
        "subscribe": False,
        "colour": "green",
        "toppings": ["basil", "cheese"],
    }
    tool = model.seen[1]["messages"][-1]
    assert json.loads(tool["content"]) == {"action": "accept", "content": content}
    conv = err.strip().splitlines()[-1]
    [result] = [
        e
        for e in cli.ok("conv", "show", conv, "--json").json["scrollback"]
        if e["kind"] == "tool_result"
    ]
    [question] = result["data"]["questions"]
    assert question["action"] == "accept" and question["content"] == content


def test_on_a_terminal_a_line_declines_and_the_server_goes_on(
    cli: Cli, wire_server: WireServer
) -> None:
    configure(cli, wire_server, faulty_server())
    model = calling(wire_server, "faulty__insist")
    code, _out, err = on_a_terminal(cli, ["purple", "!decline"], "--allow", "faulty.*", "go")
    assert code == 0, err
    assert "Colour (required) — one of red, blue: <purple>\n  Choose one of red, blue." in err
    assert model.seen[1]["messages"][-1]["content"] == "went on with no colour after decline"


def test_without_a_terminal_declined_and_recorded_everywhere(
    cli: Cli, wire_server: WireServer, tmp_path: Path
) -> None:
    configure(cli, wire_server, faulty_server())
    model = calling(wire_server, "faulty__insist")
    result = cli("run", "--allow", "faulty.insist", "go")
    assert result.code == 0, result.err
    assert model.seen[1]["messages"][-1]["content"] == "went on with no colour after decline"
    conv = result.err.strip().splitlines()[-1]
    shown = cli.ok("conv", "show", conv, "--json").json["scrollback"]
    [data] = [e["data"] for e in shown if e["kind"] == "tool_result"]
    [question] = data["questions"]
    assert question["message"] == "Pick a colour" and question["action"] == "decline"
    assert question["note"] == "no one was there to answer"
    assert question["schema"]["required"] == ["colour"]
    said = 'Asked: "Pick a colour" → declined (no one was there to answer)'
    text = cli.ok("conv", "show", conv).out
    assert "[tool result] faulty.insist: ok in " in text and f"\n  ? {said}\n" in text
    md = cli.ok("conv", "export", conv, "--format", "md").out
    assert '*Asked: "Pick a colour" → declined \\(no one was there to answer\\)*' in md
    path = tmp_path / "asked.json"
    path.write_text(cli.ok("conv", "export", conv).out, encoding="utf-8")
    other = Cli(tmp_path / "other", cli.capsys)
    other.ok("conv", "import", str(path))
    again = other.ok("conv", "show", conv, "--json").json["scrollback"]
    assert next(e["data"] for e in again if e["kind"] == "tool_result")["questions"] == [question]
    assert f"\n  ? {said}\n" in other.ok("conv", "show", conv).out


def test_on_a_terminal_hostile_text_in_the_question_drives_nothing(
    cli: Cli, wire_server: WireServer
) -> None:
    configure(cli, wire_server, faulty_server())
    model = calling(wire_server, "faulty__hostile_question")
    code, _out, err = on_a_terminal(cli, ["two"], "--allow", "faulty.*", "go")
    assert code == 0, err
    assert "\x1b" not in err and "\x07" not in err
    assert "The tool server faulty asks: <h1>Big</h1> " in err
    assert json.loads(model.seen[1]["messages"][-1]["content"])["content"] == {"pick": "two"}
