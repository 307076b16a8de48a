"""The MCP host (ikgui/tools/host.py) against real MCP servers, started for real.

``mcp-server-time`` and ``mcp-server-git`` (PyPI), ``server-everything`` and
``server-filesystem`` (npm), installed by the tests themselves
(tests/support/mcp_servers.py), and the suite's own faulty server for the failures.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from ikgui.domain.settings import ToolServerSettings
from ikgui.domain.tools import FAILED, RUNNING, STOPPED
from ikgui.tools import McpHost
from tests.support.mcp_faulty import FLOOD_LINE
from tests.support.mcp_servers import (
    children_of,
    everything_server,
    everything_through_npm,
    faulty_server,
    filesystem_server,
    git_server,
    process_alive,
    time_server,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.asyncio

HostMaker = Callable[..., McpHost]


@pytest.fixture
async def make_host() -> AsyncIterator[HostMaker]:
    """``make_host(server, …, secrets=…)``: a host over these servers, closed after."""
    hosts: list[McpHost] = []

    def make(*servers: ToolServerSettings, **options: object) -> McpHost:
        host = McpHost({s.name: s for s in servers}, **options)  # type: ignore[arg-type]
        hosts.append(host)
        return host

    yield make
    for host in hosts:
        await host.close()


async def test_a_real_server_starts_lists_its_tools_and_runs_a_call(make_host: HostMaker) -> None:
    host = make_host(time_server())
    assert [s.state for s in host.states()] == [STOPPED]  # started on first need only
    [state] = await host.start(["time"])
    assert state.state == RUNNING, state
    names = {tool.name for tool in state.tools}
    assert {"get_current_time", "convert_time"} <= names
    tool = next(t for t in state.tools if t.name == "get_current_time")
    assert tool.qualified == "time.get_current_time"
    assert tool.input_schema["type"] == "object" and "timezone" in tool.input_schema["properties"]

    outcome = await host.call("time", "get_current_time", {"timezone": "Europe/Paris"})
    assert outcome.success, outcome
    assert json.loads(outcome.output)["timezone"] == "Europe/Paris"


async def test_the_npm_servers_start_and_answer(make_host: HostMaker, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("The meeting is on Thursday.\n", encoding="utf-8")
    host = make_host(everything_server(), filesystem_server(tmp_path))
    states = await host.start(["everything", "files"])
    assert [s.state for s in states] == [RUNNING, RUNNING], states
    assert "echo" in {t.name for t in states[0].tools}
    assert "read_text_file" in {t.name for t in states[1].tools}

    echoed = await host.call("everything", "echo", {"message": "hello there"})
    assert echoed.success and "hello there" in echoed.output
    read = await host.call("files", "read_text_file", {"path": str(tmp_path / "notes.txt")})
    assert read == type(read)("The meeting is on Thursday.\n", True)
    # Outside the allowed folder: the server refuses; an unsuccessful outcome, one reason.
    refused = await host.call("files", "read_text_file", {"path": "/etc/hostname"})
    assert not refused.success and "denied" in refused.output.lower()


async def test_git_server_reads_a_real_repository(make_host: HostMaker, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "a.txt").write_text("a\n", encoding="utf-8")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "First commit of the test"], check=True)
    host = make_host(git_server(repo))
    outcome = await host.call("git", "git_log", {"repo_path": str(repo)})
    assert outcome.success, outcome
    assert "First commit of the test" in outcome.output


async def test_a_failing_call_and_an_unknown_tool_are_unsuccessful_outcomes(
    make_host: HostMaker,
) -> None:
    host = make_host(faulty_server())
    failed = await host.call("faulty", "boom", {})
    assert not failed.success and "the boom tool blew up on purpose" in failed.output
    unknown = await host.call("faulty", "no_such_tool", {})
    assert not unknown.success and "no_such_tool" in unknown.output
    assert "\n" not in unknown.output
    nowhere = await host.call("nowhere", "echo", {})
    assert nowhere == type(nowhere)("There is no tool server named nowhere.", False)
    # The server is still there for the next call.
    again = await host.call("faulty", "echo", {"text": "still here"})
    assert again.success and json.loads(again.output) == {"text": "still here"}


async def test_a_missing_program_fails_with_one_line(make_host: HostMaker, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-mcp-server")
    host = make_host(ToolServerSettings("ghost", missing))
    [state] = await host.start(["ghost"])
    assert state.state == FAILED
    assert state.reason == f"Its program was not found ({missing})."
    outcome = await host.call("ghost", "anything", {})
    assert not outcome.success
    assert outcome.output == f"The tool server ghost is not available: {state.reason}"


async def test_a_server_crashing_at_start_keeps_its_last_stderr_lines(
    make_host: HostMaker,
) -> None:
    host = make_host(faulty_server("faulty", "--crash-at-start"))
    [state] = await host.start(["faulty"])
    assert (state.state, state.reason) == (FAILED, "It ended before it answered.")
    assert state.stderr[-1] == "faulty: cannot start: the configuration is broken"
    assert state.stderr[0] == "faulty: start-up line 10"  # the last 12 lines, in order
    assert len(state.stderr) == 12


async def test_a_server_speaking_no_json_rpc_fails_with_a_reason(make_host: HostMaker) -> None:
    host = make_host(faulty_server("faulty", "--garbage"))
    [state] = await host.start(["faulty"])
    assert state.state == FAILED, state
    # At once, with what it wrote (not after the start's time limit).
    assert state.reason == (
        "It wrote something that is not MCP (JSON-RPC) on its standard output: this is not JSON-RPC"
    )


async def test_a_server_that_never_answers_fails_at_the_start_limit(make_host: HostMaker) -> None:
    before = children_of()
    host = make_host(faulty_server("faulty", "--mute"), start_seconds=2)
    [state] = await host.start(["faulty"])
    assert (state.state, state.reason) == (FAILED, "It did not answer within 2 s.")
    # Its process is not left behind.
    await wait_until(lambda: not [p for p in children_of() - before if process_alive(p)], 30)


async def test_callers_at_once_share_one_start(make_host: HostMaker) -> None:
    before = children_of()
    host = make_host(faulty_server())
    states, first, second = await asyncio.gather(
        host.start(["faulty"]),
        host.call("faulty", "echo", {"text": "one"}),
        host.call("faulty", "echo", {"text": "two"}),
    )
    assert states[0].state == RUNNING and first.success and second.success
    assert len([p for p in children_of() - before if process_alive(p)]) == 1


async def test_a_hang_past_the_timeout_fails_in_those_words(
    make_host: HostMaker, tmp_path: Path
) -> None:
    marker = tmp_path / "hang"
    host = make_host(faulty_server(timeout=1))
    await host.start(["faulty"])
    outcome = await host.call("faulty", "hang", {"marker": str(marker)})
    assert outcome == type(outcome)("Timed out after 1 s", False)
    assert marker.read_text(encoding="utf-8") in ("started", "cancelled")
    again = await host.call("faulty", "echo", {"text": "after"})  # the server stays usable
    assert again.success


async def test_ten_megabytes_of_output_arrive_whole(make_host: HostMaker) -> None:
    host = make_host(faulty_server())
    outcome = await host.call("faulty", "flood", {"megabytes": 10})
    assert outcome.success
    lines = 10 * 1024 * 1024 // len(FLOOD_LINE)
    assert len(outcome.output) == lines * len(FLOOD_LINE)
    assert outcome.output == FLOOD_LINE * lines


async def test_a_server_dying_mid_call_fails_the_call_and_says_so(make_host: HostMaker) -> None:
    host = make_host(faulty_server())
    await host.start(["faulty"])
    outcome = await asyncio.wait_for(host.call("faulty", "die", {}), 60)
    assert outcome == type(outcome)("The tool server faulty stopped during the call.", False)
    state = host.states()[0]
    assert state.state == FAILED and state.reason == "It stopped.", state
    assert "faulty: dying in the middle of a call" in state.stderr
    # The next call starts it again.
    again = await host.call("faulty", "echo", {"text": "back"})
    assert again.success, again


async def test_cancelling_the_awaiting_task_ends_the_call(
    make_host: HostMaker, tmp_path: Path
) -> None:
    marker = tmp_path / "hang"
    host = make_host(faulty_server())
    await host.start(["faulty"])
    task = asyncio.ensure_future(host.call("faulty", "hang", {"marker": str(marker)}))
    await wait_until(marker.exists, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The server heard of it (notifications/cancelled) and ended the tool's work.
    await wait_until(lambda: marker.read_text(encoding="utf-8") == "cancelled", 30)
    again = await host.call("faulty", "echo", {"text": "next"})
    assert again.success


async def test_close_stops_every_server_process(make_host: HostMaker, tmp_path: Path) -> None:
    before = children_of()
    npm = everything_through_npm()
    host = make_host(time_server(), everything_server(), faulty_server(), npm)
    states = await host.start(["time", "everything", "faulty", npm.name])
    assert all(s.state == RUNNING for s in states), states
    started = children_of() - before
    assert len(started) >= 6  # npm's server is npm, a shell and node
    await host.close()
    await wait_until(lambda: not any(process_alive(pid) for pid in started), 30)
    assert [s.state for s in host.states()] == [STOPPED] * 4


async def test_a_server_gets_only_its_own_environment(
    make_host: HostMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own-key")
    monkeypatch.setenv("IKGUI_TEST_SHARED", "from the environment")
    seen: list[tuple[str, str]] = []

    def secrets(entry: str, variable: str) -> str | None:
        seen.append((entry, variable))
        return {"mcp.faulty.SERVICE_TOKEN": "token-from-the-keyring"}.get(entry) or os.environ.get(
            variable
        )

    settings = faulty_server(
        env=(("GREETING", "hello"),), secret_env=("SERVICE_TOKEN", "IKGUI_TEST_SHARED")
    )
    host = make_host(settings, secrets=secrets)

    async def variable(name: str) -> str:
        outcome = await host.call("faulty", "variable", {"name": name})
        assert outcome.success, outcome
        return outcome.output

    assert await variable("OPENAI_API_KEY") == "(unset)"
    assert await variable("GREETING") == "hello"
    assert await variable("SERVICE_TOKEN") == "token-from-the-keyring"
    assert await variable("IKGUI_TEST_SHARED") == "from the environment"
    assert await variable("PATH") == os.environ["PATH"]
    assert ("mcp.faulty.SERVICE_TOKEN", "SERVICE_TOKEN") in seen
