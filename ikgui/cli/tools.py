"""``ikgui tools`` (SPEC §12): the configured MCP servers, each started, with its state
and its tools; a server that fails says why, with the last lines of its stderr (exit 1).
And ``ikgui keys set|delete|status mcp.<name>[.<VAR>]``: the servers' secrets.

What a server says of itself (its tools' names and descriptions, its stderr) is
untrusted text: one line each, through :mod:`ikgui.cli.output`'s terminal-safe
printing. The host runs the servers on a thread of its own and stops them all before
the command returns, whatever happened.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

from ikgui.app.wiring import tool_host
from ikgui.cli.output import error, print_json, say, width
from ikgui.config.tools import NAME, VARIABLE
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.library.listing import cut
from ikgui.domain.text.safe import one_line
from ikgui.domain.tools import FAILED, RUNNING, ServerState

if TYPE_CHECKING:
    from ikgui.cli.env import Env
    from ikgui.domain.settings import Settings, ToolServerSettings


def cmd_tools(env: Env, args: argparse.Namespace) -> int:
    configured = env.settings.tool_servers
    if not configured:
        say(f"No tool servers are configured: add one as [mcp.<name>] in {env.paths.config}.")
        return 0
    for name in args.names:
        if name not in configured:
            raise UserError(
                f"There is no tool server named {name} in {env.paths.config} "
                f"(it has: {', '.join(configured)})"
            )
    chosen = [configured[name] for name in (args.names or configured)]
    states = asyncio.run(_start(env, [s.name for s in chosen if s.enabled]))
    if args.json:
        print_json([_as_json(server, states.get(server.name)) for server in chosen])
    else:
        for number, server in enumerate(chosen):
            if number:
                say()
            _show(server, states.get(server.name))
    return 1 if any(state.state == FAILED for state in states.values()) else 0


async def _start(env: Env, names: list[str]) -> dict[str, ServerState]:
    host = tool_host(env.settings, env.keys)
    try:
        return {state.name: state for state in await host.start(names)}
    finally:
        await host.close()


def _show(server: ToolServerSettings, state: ServerState | None) -> None:
    columns = width()
    if state is None:
        say(cut(f"{server.name}: turned off (enabled = false)  {server.where}", columns))
        return
    if state.state != RUNNING:
        say(f"{server.name}: failed: {one_line(state.reason or 'it did not start')}")
        say(cut(f"  {server.where}", columns))
        for line in state.stderr:
            say(cut(f"  | {one_line(line)}", columns))
        return
    count = len(state.tools)
    noun = "tool" if count == 1 else "tools"
    say(cut(f"{server.name}: running, {count} {noun}  {server.where}", columns))
    names = [one_line(tool.name) for tool in state.tools]
    name_width = min(max((len(n) for n in names), default=0), 40)
    for name, tool in zip(names, state.tools, strict=True):
        # A description is often paragraphs: its words on the one line.
        line = f"  {name.ljust(name_width)}  {one_line(' '.join(tool.description.split()))}"
        say(cut(line.rstrip(), columns))


def _as_json(server: ToolServerSettings, state: ServerState | None) -> dict[str, Any]:
    return {
        "name": server.name,
        "where": server.where,
        "state": "off" if state is None else state.state,
        "reason": None if state is None else state.reason,
        "stderr": [] if state is None else list(state.stderr),
        "tools": [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in (state.tools if state is not None else ())
        ],
    }


# -- ikgui keys … mcp.<name>[.<VAR>] ----------------------------------------------------
KEY_PREFIX = "mcp."


def key_entries(settings: Settings) -> list[tuple[str, str | None]]:
    """The keyring entries the configured servers read, each with the environment
    variable that may stand in for it: ``mcp.<name>.<VAR>`` for each of ``secret_env``,
    and ``mcp.<name>`` (no variable) for the token of a server reached at a url."""
    entries: list[tuple[str, str | None]] = []
    for server in settings.tool_servers.values():
        entries.extend((f"mcp.{server.name}.{v}", v) for v in server.secret_env)
        if server.url is not None:
            entries.append((f"mcp.{server.name}", None))
    return entries


def cmd_tool_key(env: Env, action: str, entry: str) -> int:
    """``ikgui keys set|delete|status mcp.<name>[.<VAR>]``."""
    name, _, variable = entry.removeprefix(KEY_PREFIX).partition(".")
    if not NAME.match(name) or (variable and not VARIABLE.match(variable)):
        raise UsageError(
            f"Usage: ikgui keys {action} mcp.SERVER.VARIABLE (a variable listed in the "
            "server's secret_env) or mcp.SERVER (the token of a server reached at a url)"
        )
    server = env.settings.tool_servers.get(name)
    if server is None:
        error(f"Warning: '{name}' is not a tool server in config.toml yet ([mcp.{name}]).")
    elif variable and variable not in server.secret_env:
        error(
            f"Warning: the tool server {name} gets {variable} only once it is listed: add "
            f'secret_env = ["{variable}"] under [mcp.{name}] in config.toml.'
        )
    elif not variable and server.url is None:
        error(
            f"Warning: the tool server {name} is started with a command, so it takes no "
            f"token: give its secrets as mcp.{name}.VARIABLE."
        )
    keys = env.keys
    if action == "status":
        say(f"{entry}: {keys.status(entry, variable or None)}")
        return 0
    if action == "delete":
        say(f"Deleted {entry}." if keys.delete(entry) else f"Nothing was stored as {entry}.")
        return 0
    if not keys.available:
        instead = f" Export {variable} in ikgui's environment instead." if variable else ""
        raise UserError(f"No system keyring is available here, so {entry} cannot be kept.{instead}")
    what = f"{variable} for the tool server {name}" if variable else f"Token for {name}"
    secret = _read_secret(f"{what} (input is hidden): ")
    if not secret:
        raise UsageError("Nothing given: nothing was stored")
    if keys.set(entry, secret) != "keyring":
        raise UserError("The system keyring refused the secret; it was not stored.")
    say(f"Stored {entry} in the system keyring.")
    return 0


def _read_secret(prompt: str) -> str:
    import getpass
    import sys

    if sys.stdin.isatty():
        return getpass.getpass(prompt).strip()
    return sys.stdin.readline().strip()
