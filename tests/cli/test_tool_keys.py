"""``ikgui keys set|delete|status mcp.<name>.<VAR>`` and ``mcp.<name>`` (SPEC §12): a tool
server's secrets live in the keyring (or the environment), and the host hands them to
the real server — and nothing else of ikgui's environment."""

from __future__ import annotations

import asyncio
import io
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from ikgui.app.wiring import tool_host
from ikgui.config.loading import load_settings
from ikgui.domain.settings import ToolServerSettings
from ikgui.local.keys import KeyStore
from tests.cli.conftest import Cli
from tests.support.mcp_servers import FAULTY, config_table, faulty_server
from tests.support.memkeyring import MemoryKeyring
from tests.support.waiting import wait_for

SECRET = "svc-0123456789-very-secret"


def configure(cli: Cli, *servers: ToolServerSettings) -> Path:
    cli.home.mkdir(parents=True, exist_ok=True)
    path = cli.home / "config.toml"
    path.write_text("\n".join(config_table(s) for s in servers), encoding="utf-8")
    return path


async def call(config: Path, server: str, tool: str, **arguments: str) -> str:
    """Run one tool through the host the window and the command line build."""
    host = tool_host(load_settings(config), KeyStore())
    try:
        outcome = await host.call(server, tool, arguments)
    finally:
        await host.close()
    assert outcome.success, outcome
    return outcome.output


async def test_a_secret_set_for_a_server_reaches_it_and_nothing_else_does(
    cli: Cli, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = configure(cli, faulty_server(secret_env=("SERVICE_TOKEN",)))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own-key")
    monkeypatch.setattr(sys, "stdin", io.StringIO(SECRET + "\n"))
    result = cli.ok("keys", "set", "mcp.faulty.SERVICE_TOKEN")
    assert result.out == "Stored mcp.faulty.SERVICE_TOKEN in the system keyring.\n"
    assert result.err == ""
    assert memory_keyring.secrets[("ikgui", "mcp.faulty.SERVICE_TOKEN")] == SECRET
    assert SECRET not in config.read_text(encoding="utf-8")

    assert await call(config, "faulty", "variable", name="SERVICE_TOKEN") == SECRET
    assert await call(config, "faulty", "variable", name="OPENAI_API_KEY") == "(unset)"

    status = cli.ok("keys", "status").out
    assert "mcp.faulty.SERVICE_TOKEN: stored in the system keyring" in status
    assert SECRET not in status

    # The environment variable of that name stands in for it (and wins, as for providers).
    monkeypatch.setenv("SERVICE_TOKEN", "from-the-environment")
    assert await call(config, "faulty", "variable", name="SERVICE_TOKEN") == (
        "from-the-environment"
    )
    assert cli.ok("keys", "status", "mcp.faulty.SERVICE_TOKEN").out == (
        "mcp.faulty.SERVICE_TOKEN: set by the environment variable SERVICE_TOKEN\n"
    )
    monkeypatch.delenv("SERVICE_TOKEN")

    assert cli.ok("keys", "delete", "mcp.faulty.SERVICE_TOKEN").out == (
        "Deleted mcp.faulty.SERVICE_TOKEN.\n"
    )
    assert ("ikgui", "mcp.faulty.SERVICE_TOKEN") not in memory_keyring.secrets
    assert await call(config, "faulty", "variable", name="SERVICE_TOKEN") == "(unset)"
    assert "not set: use `ikgui keys set mcp.faulty.SERVICE_TOKEN` (or export SERVICE_TOKEN)" in (
        cli.ok("keys", "status").out
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """The suite's MCP server over Streamable HTTP on 127.0.0.1: its URL."""
    port = free_port()
    log = (tmp_path / "http.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, str(FAULTY), "--http", str(port)], stdout=log, stderr=subprocess.STDOUT
    )

    def listening() -> bool:
        if proc.poll() is not None:
            raise AssertionError((tmp_path / "http.log").read_text())
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    try:
        wait_for(listening, 60)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


async def test_an_http_servers_token_is_sent_as_a_bearer(
    cli: Cli, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch, http_server: str
) -> None:
    config = configure(cli, ToolServerSettings("web", url=http_server))
    assert await call(config, "web", "authorization") == "(none)"
    monkeypatch.setattr(sys, "stdin", io.StringIO("tok-abc\n"))
    assert cli.ok("keys", "set", "mcp.web").out == "Stored mcp.web in the system keyring.\n"
    assert await call(config, "web", "authorization") == "Bearer tok-abc"
    assert "mcp.web: stored in the system keyring" in cli.ok("keys", "status").out
    # The command line's host reads it too (in a thread: it runs a loop of its own).
    listed = await asyncio.to_thread(cli, "tools", "web")
    assert listed.code == 0 and listed.out.startswith("web: running, ")


def test_names_that_cannot_work_are_said_before_storing(
    cli: Cli, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(cli, faulty_server(secret_env=("SERVICE_TOKEN",)))
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n"))
    unlisted = cli.ok("keys", "set", "mcp.faulty.OTHER")
    assert unlisted.err == (
        "Warning: the tool server faulty gets OTHER only once it is listed: add "
        'secret_env = ["OTHER"] under [mcp.faulty] in config.toml.\n'
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n"))
    token = cli.ok("keys", "set", "mcp.faulty")
    assert token.err.startswith("Warning: the tool server faulty is started with a command")
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n"))
    unknown = cli.ok("keys", "set", "mcp.nowhere.TOKEN")
    assert unknown.err == (
        "Warning: 'nowhere' is not a tool server in config.toml yet ([mcp.nowhere]).\n"
    )
    bad = cli("keys", "set", "mcp.bad name.X")
    assert bad.code == 2 and bad.err.startswith("Error: Usage: ikgui keys set mcp.SERVER.VARIABLE")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    empty = cli("keys", "set", "mcp.faulty.SERVICE_TOKEN")
    assert empty.code == 2 and ("ikgui", "mcp.faulty.SERVICE_TOKEN") not in memory_keyring.secrets


def test_without_a_keyring_a_secret_is_refused_pointing_at_the_environment(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    configure(cli, faulty_server(secret_env=("SERVICE_TOKEN",)))
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        monkeypatch.setattr(sys, "stdin", io.StringIO("x\n"))
        result = cli("keys", "set", "mcp.faulty.SERVICE_TOKEN")
        assert result.code == 1
        assert result.err == (
            "Error: No system keyring is available here, so mcp.faulty.SERVICE_TOKEN cannot "
            "be kept. Export SERVICE_TOKEN in ikgui's environment instead.\n"
        )
    finally:
        keyring.set_keyring(previous)
