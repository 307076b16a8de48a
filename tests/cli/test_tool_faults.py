"""Bad input around tool use (issue 23 item 7) on the command line: a model that asks for
a tool it was not offered or sends arguments that are not JSON; a server that dies
mid-call, hangs past its ``timeout`` or returns 10 MB; an ``ikgui run`` killed in the
middle of a call. Each gives one clear line, the conversation goes on, nothing is lost,
no traceback — and a call a crash interrupted is shown as interrupted, never run again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Cli
from tests.cli.test_tools_run import CHAT, configure, kinds
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.mcp_servers import children_of, faulty_server, process_alive
from tests.support.tool_streams import Model, openai_calls, openai_text
from tests.support.waiting import wait_for
from tests.support.wire_server import WireServer

__all__ = ["wire_server", "wire_server_session"]


def results(cli: Cli, conv: str) -> list[dict[str, object]]:
    shown = cli.ok("conv", "show", conv, "--json").json["scrollback"]
    return [e["data"] for e in shown if e["kind"] == "tool_result"]


def test_a_model_asking_for_what_was_not_offered_or_with_broken_arguments(
    cli: Cli, wire_server: WireServer
) -> None:
    configure(cli, wire_server, faulty_server())
    reply = openai_calls(
        ("c1", "shell__run", '{"cmd": "rm -rf ~"}'),
        ("c2", "faulty__echo", '{"text": "unfinished'),
    )
    model = Model("openai", reply, openai_text("Sorry."))
    wire_server.route(CHAT, model)
    result = cli("run", "--allow", "faulty.*", "--allow", "shell.*", "go")
    assert result.code == 0, result.err
    assert result.out == "Sorry.\n"
    assert "Traceback" not in result.err
    first, second = results(cli, result.err.strip().splitlines()[-1])
    assert first["output"] == "Refused by ikgui: no tool named shell__run was offered"
    assert second["output"] == "Refused by ikgui: its arguments are not a JSON object"
    assert not first["success"] and not second["success"]
    assert [m["content"] for m in model.seen[1]["messages"][-2:]] == [
        first["output"],
        second["output"],
    ]


def test_a_server_dying_hanging_or_flooding_is_one_line_each_and_the_talk_goes_on(
    cli: Cli, wire_server: WireServer, tmp_path: Path
) -> None:
    configure(cli, wire_server, faulty_server(), faulty_server("slow", timeout=1))
    marker = tmp_path / "hang-marker"
    reply = openai_calls(
        ("c1", "faulty__die", "{}"),
        ("c2", "slow__hang", f'{{"marker": "{marker}"}}'),
        ("c3", "faulty__flood", '{"megabytes": 10}'),
    )
    model = Model("openai", reply, openai_text("Noted."))
    wire_server.route(CHAT, model)
    result = cli("run", "--allow", "faulty.*", "--allow", "slow.*", "go")
    assert result.code == 0, result.err
    assert result.out == "Noted.\n"
    assert "Traceback" not in result.err
    lines = [line for line in result.err.splitlines() if line.startswith("Tool result:")]
    assert len(lines) == 3 and all(len(line) <= 160 for line in lines)
    assert lines[0].startswith("Tool result: faulty.die failed")
    assert "Timed out after 1 s" in lines[1]
    assert lines[2].startswith("Tool result: faulty.flood ok")
    died, hung, flood = results(cli, result.err.strip().splitlines()[-1])
    assert not died["success"] and not hung["success"]
    assert len(str(flood["output"])) > 10_000_000  # stored whole
    sent = model.seen[1]["messages"][-1]["content"]
    assert len(sent.encode()) < 110 * 1024 and "more bytes of this tool's output" in sent


def test_a_call_interrupted_by_a_crash_is_shown_as_such_and_never_run_again(
    cli: Cli, wire_server: WireServer, tmp_path: Path
) -> None:
    configure(cli, wire_server, faulty_server())
    marker = tmp_path / "hang-marker"
    model = Model(
        "openai",
        openai_calls(("c1", "faulty__hang", f'{{"marker": "{marker}"}}')),
        openai_text("Back again."),
    )
    wire_server.route(CHAT, model)
    before = children_of()
    process = subprocess.Popen(
        [sys.executable, "-m", "ikgui", "run", "--allow", "faulty.hang", "wait"],
        env=dict(os.environ, IKGUI_HOME=str(cli.home)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    wait_for(lambda: marker.exists() and marker.read_text() == "started")
    # The server may run in a process group of its own (the SDK's choice): once ikgui is
    # killed it sees its input end and exits by itself, writing to the marker as it goes.
    servers = children_of(process.pid)
    os.killpg(process.pid, signal.SIGKILL)  # ikgui dies at once
    process.wait()
    wait_for(lambda: not [p for p in servers | (children_of() - before) if process_alive(p)])
    marker.unlink()
    conv = cli.ok("conv", "list", "--json").json[0]["id"]
    assert kinds(cli, conv)[-3:] == ["assistant", "tool_call", "tool_approval"]
    # The next start opens it: the call gets its result, which says why.
    cli.ok("run", "-c", conv, "/mark", "after")
    (interrupted,) = results(cli, conv)
    assert interrupted["output"] == "Interrupted: ikgui stopped before it finished"
    assert interrupted["success"] is False
    assert (
        "[tool result] faulty.hang: failed\n  | Interrupted: ikgui stopped"
        in cli.ok("conv", "show", conv).out
    )
    # The next request is well-formed, and the call never ran again.
    again = cli("run", "-c", conv, "so?")
    assert again.code == 0, again.err
    assert again.out == "Back again.\n"
    messages = model.seen[-1]["messages"]
    assert messages[-2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "Interrupted: ikgui stopped before it finished",
    }
    assert not marker.exists()


def test_a_request_never_carries_a_call_without_a_result(
    cli: Cli, wire_server: WireServer, tmp_path: Path
) -> None:
    """An imported conversation whose last call has no result: the send gives it one."""
    import json

    configure(cli, wire_server)
    events = [
        {"id": 1, "kind": "user", "content": "hi", "data": None},
        {"id": 2, "kind": "assistant", "content": "", "data": {}},
        {"id": 3, "kind": "tool_call", "content": "", "data": {"id": "x1", "name": "f"}},
    ]
    document = {
        "format": "ikgui",
        "version": 1,
        "conversations": [{"id": "chat-open", "events": events}],
    }
    path = tmp_path / "open.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    cli.ok("conv", "import", str(path))
    model = Model("openai", openai_text("Fine."))
    wire_server.route(CHAT, model)
    result = cli("run", "--no-tools", "-c", "chat-open", "go on")
    assert result.code == 0, result.err
    assert model.seen[0]["messages"][-2:] == [
        {
            "role": "tool",
            "tool_call_id": "x1",
            "content": "Interrupted: ikgui stopped before it finished",
        },
        {"role": "user", "content": "go on"},
    ]
