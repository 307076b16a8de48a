"""config.toml's tools (SPEC §12): ``[mcp.<name>]`` servers, ``tools`` lists and the
tool limits; every problem is one ``file:line: reason`` and drops only what it names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ikgui.config.loading import load_settings, save_settings
from ikgui.domain.settings import TOOL_OUTPUT_KB, TOOL_ROUNDS, ToolServerSettings

GOOD = """
[defaults]
tools = ["time", "files.read_text_file"]

[agents.coder]
tools = []

[limits]
tool_rounds = 4
tool_output_kb = 250

[mcp.time]
command = "uvx"
args = ["mcp-server-time", "--local-timezone", "UTC"]
env = { TZ = "UTC" }
cwd = "/tmp"
timeout = 30
always_allow = ["get_current_time"]
secret_env = ["SERVICE_TOKEN"]

[mcp.web]
url = "https://example.org/mcp"
enabled = false
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_good_servers_lists_and_limits(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, GOOD))
    assert settings.problems == []
    assert list(settings.tool_servers) == ["time", "web"]
    assert settings.tool_servers["time"] == ToolServerSettings(
        "time",
        command="uvx",
        args=("mcp-server-time", "--local-timezone", "UTC"),
        env=(("TZ", "UTC"),),
        cwd="/tmp",
        timeout=30.0,
        always_allow=("get_current_time",),
        secret_env=("SERVICE_TOKEN",),
    )
    web = settings.tool_servers["web"]
    assert (web.url, web.enabled, web.command, web.timeout) == (
        "https://example.org/mcp",
        False,
        None,
        60.0,
    )
    assert web.where == "https://example.org/mcp"
    assert settings.tool_servers["time"].where == "uvx mcp-server-time --local-timezone UTC"
    assert settings.default_tools == ("time", "files.read_text_file")
    assert settings.agents["coder"].tools == ()  # none
    assert (settings.tool_rounds, settings.tool_output_kb) == (4, 250)


def test_absent_tool_settings_mean_every_server_and_the_default_limits(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, '[agents.coder]\nmodel = "m"\n'))
    assert settings.problems == []
    assert settings.tool_servers == {}
    assert settings.default_tools is None and settings.agents["coder"].tools is None
    assert (settings.tool_rounds, settings.tool_output_kb) == (TOOL_ROUNDS, TOOL_OUTPUT_KB)


BAD = """
[agents.bad]
tools = "time"

[limits]
tool_rounds = 0
tool_output_kb = 1.5

[mcp.ok]
command = "mcp-ok"

[mcp.leaky]
command = "npx"
env = { GITHUB_TOKEN = "ghp-very-secret-value", MODE = "x" }

[mcp.neither]
args = ["x"]

[mcp.both]
command = "x"
url = "http://h/mcp"

[mcp.slow]
command = "x"
timeout = -1
colour = "red"

[mcp."bad name!"]
command = "x"

[mcp.ftp]
url = "ftp://h/mcp"

[mcp.env-list]
command = "x"
env = ["A=1"]
"""


def test_each_bad_table_is_one_problem_on_its_line_and_the_others_stay(tmp_path: Path) -> None:
    path = write(tmp_path, BAD)
    settings = load_settings(path)
    assert settings.problems == [
        f"{path}:14: mcp.leaky.env.GITHUB_TOKEN looks like a secret: keep it out of "
        'config.toml — list it in secret_env = ["GITHUB_TOKEN"] and run: '
        "ikgui keys set mcp.leaky.GITHUB_TOKEN (server not started)",
        f"{path}:16: mcp.neither needs a command (or a url) (ignored)",
        f"{path}:21: mcp.both has both command and url: give one (ignored)",
        f"{path}:26: unknown setting mcp.slow.colour (ignored)",
        f"{path}:25: mcp.slow.timeout must be seconds above 0 (got -1)",
        f"{path}:28: mcp.bad name!: a server's name is letters, digits, - and _ (ignored)",
        f"{path}:32: mcp.ftp.url must start with http:// or https:// (ignored)",
        f'{path}:36: mcp.env-list.env must be a table of NAME = "text" (ignored)',
        f'{path}:3: agents.bad.tools must be a list like ["files", "time.get_current_time"]'
        " (ignored)",
        f"{path}:6: limits.tool_rounds must be a whole number above 0 (got 0)",
        f"{path}:7: limits.tool_output_kb must be a whole number above 0 (got 1.5)",
    ]
    # A secret written into the file is never repeated anywhere.
    assert not any("ghp-very-secret-value" in p for p in settings.problems)
    assert list(settings.tool_servers) == ["ok", "slow", "env-list"]
    assert settings.tool_servers["slow"].timeout == 60.0  # the default, said above
    assert settings.tool_servers["env-list"].env == ()
    assert settings.agents["bad"].tools is None
    assert (settings.tool_rounds, settings.tool_output_kb) == (TOOL_ROUNDS, TOOL_OUTPUT_KB)


def test_mcp_that_is_not_tables_is_one_problem(tmp_path: Path) -> None:
    path = write(tmp_path, 'mcp = "files"\n')
    settings = load_settings(path)
    assert settings.problems == [f"{path}:1: [mcp] must hold one table per server ([mcp.<name>])"]
    assert settings.tool_servers == {}


def test_saving_other_settings_keeps_the_servers(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    before = load_settings(path)
    save_settings(replace(before, theme="dark"), path, before)
    after = load_settings(path)
    assert after.problems == [] and after.theme == "dark"
    assert after.tool_servers == before.tool_servers
    assert after.default_tools == before.default_tools
