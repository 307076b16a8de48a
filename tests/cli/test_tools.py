"""``ikgui tools`` (SPEC §12) against real MCP servers named in a real config.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from ikgui.domain.settings import ToolServerSettings
from tests.cli.conftest import Cli
from tests.support.mcp_servers import (
    children_of,
    config_table,
    faulty_server,
    filesystem_server,
    process_alive,
    time_server,
)


def configure(cli: Cli, *servers: ToolServerSettings) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    text = "\n".join(config_table(server) for server in servers)
    (cli.home / "config.toml").write_text(text, encoding="utf-8")


def test_each_server_is_started_and_shown_with_its_tools_or_why_it_failed(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(tmp_path / "no-such-server")
    configure(
        cli,
        time_server(),
        filesystem_server(tmp_path, "files"),
        ToolServerSettings("ghost", missing),
        faulty_server("broken", "--crash-at-start"),
        ToolServerSettings("web", url="http://127.0.0.1:9/mcp", enabled=False),
    )
    before = children_of()
    monkeypatch.setenv("COLUMNS", "400")  # (whatever the terminal running the tests)
    result = cli("tools")
    assert result.code == 1  # one failed
    assert result.err == ""
    blocks = result.out.split("\n\n")
    assert len(blocks) == 5
    time_lines = blocks[0].splitlines()
    assert time_lines[0].startswith("time: running, 2 tools  ")
    assert time_lines[0].endswith("mcp-server-time --local-timezone UTC")
    assert [line.split()[0] for line in time_lines[1:]] == ["get_current_time", "convert_time"]
    assert "Get current time in a specific timezone" in time_lines[1]
    assert blocks[1].startswith("files: running, ")
    assert "\n  read_text_file  " in blocks[1]
    assert blocks[2].splitlines() == [
        f"ghost: failed: Its program was not found ({missing}).",
        f"  {missing}",
    ]
    broken = blocks[3].splitlines()
    assert broken[0] == "broken: failed: It ended before it answered."
    assert broken[-1] == "  | faulty: cannot start: the configuration is broken"
    assert broken[2] == "  | faulty: start-up line 10"
    # What the server wrote is shown, its control characters escaped.
    assert "\x1b" not in result.out and "\x07" not in result.out
    assert "faulty: start-up line 15 \\x1b]0;pwned\\x07" in blocks[3]
    assert blocks[4] == "web: turned off (enabled = false)  http://127.0.0.1:9/mcp\n"
    # Every server it started is stopped again.
    assert not [pid for pid in children_of() - before if process_alive(pid)]


def test_all_running_exits_0_and_server_text_stays_on_its_line(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(cli, faulty_server())
    monkeypatch.setenv("COLUMNS", "400")  # (whatever the terminal running the tests)
    result = cli("tools")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("faulty: running, 12 tools  ")
    hostile = next(line for line in lines if line.startswith("  hostile "))
    assert hostile.endswith("Clears\\x1b[2J the screen and sets the title \\x1b]0;pwned\\x07 too")


def test_json_and_chosen_servers(cli: Cli, tmp_path: Path) -> None:
    configure(cli, time_server(), faulty_server("broken", "--crash-at-start"))
    result = cli("tools", "time", "--json")
    assert result.code == 0, result.err
    [time] = result.json
    assert time["state"] == "running" and time["reason"] is None
    tool = next(t for t in time["tools"] if t["name"] == "get_current_time")
    assert tool["input_schema"]["required"] == ["timezone"]

    failed = cli("tools", "broken", "--json")
    assert failed.code == 1
    [broken] = failed.json
    assert broken["state"] == "failed" and broken["tools"] == []
    assert broken["stderr"][-1] == "faulty: cannot start: the configuration is broken"

    unknown = cli("tools", "nope")
    assert unknown.code == 1
    assert unknown.err.startswith("Error: There is no tool server named nope in ")
    assert unknown.err.rstrip().endswith("(it has: time, broken)")


def test_without_servers_it_says_how_to_add_one(cli: Cli) -> None:
    result = cli.process("tools")
    assert result.code == 0, result.err
    assert result.out == (
        f"No tool servers are configured: add one as [mcp.<name>] in {cli.home / 'config.toml'}.\n"
    )


def test_a_server_writing_garbage_gives_one_line_and_no_traceback(cli: Cli) -> None:
    configure(cli, faulty_server("garbage", "--garbage"))
    result = cli.process("tools")  # a new process: nothing of the test's logging set-up
    assert result.code == 1
    assert result.out.startswith(
        "garbage: failed: It wrote something that is not MCP (JSON-RPC) on its standard "
        "output: this is not JSON-RPC\n"
    )
    assert "Traceback" not in result.err and result.err == ""
