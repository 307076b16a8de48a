"""``ikgui tools`` (SPEC §12): the configured MCP servers, each started, with its state
and its tools; a server that fails says why, with the last lines of its stderr (exit 1).

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
from ikgui.cli.output import print_json, say, width
from ikgui.domain.errors import UserError
from ikgui.domain.library.listing import cut
from ikgui.domain.text.safe import one_line
from ikgui.domain.tools import FAILED, RUNNING, ServerState

if TYPE_CHECKING:
    from ikgui.cli.env import Env
    from ikgui.domain.settings import ToolServerSettings


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
