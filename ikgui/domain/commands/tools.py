"""``/tools`` (SPEC §12): the servers this conversation can use, their state and tools,
and the standing grants; ``/tools on|off NAME`` switches a server (or ``server.tool``)
for this conversation for good, ``/tools revoke NAME`` ends a grant it holds.

Switches and revocations are ``command`` events (``{command: "tools", name, on}`` and
``{command: "tools", revoke}``) that replay folds back in (:class:`ToolMemory`), as it
does ``/model``. What a server says of itself is one plain line each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ikgui.domain.commands.registry import CommandResult
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.state import tool_use
from ikgui.domain.text.safe import one_line
from ikgui.domain.tools import FAILED, RUNNING, STARTING, ServerState

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session

USAGE = "Usage: /tools [on NAME | off NAME | revoke NAME]"


def parse_tools(args: str) -> dict[str, Any]:
    words = args.split()
    if not words:
        return {}
    if len(words) != 2 or words[0] not in ("on", "off", "revoke"):
        raise UsageError(USAGE)
    return {"action": words[0], "name": words[1]}


def tools_command(
    session: Session, action: str | None = None, name: str | None = None
) -> CommandResult:
    if action is None or name is None:
        return CommandResult(listing(session))
    if action == "revoke":
        return _revoke(session, name)
    _known(session, name)
    on = action == "on"
    where = f"the tool {name}" if "." in name else f"the tools of {name}"
    said = "offered" if on else "no longer offered"
    return CommandResult(
        f"Tools: {where} {said} in this conversation",
        data={"name": name, "on": on},
        materialize=True,
    )


def _known(session: Session, name: str) -> None:
    servers = session.settings.tool_servers
    server = name.split(".", 1)[0]
    if server not in servers:
        have = ", ".join(servers) or "none are configured"
        raise UserError(f"Unknown tool server '{server}' (servers: {have})")


def _revoke(session: Session, name: str) -> CommandResult:
    grants = session.state.tools.grants
    gone = sorted(g for g in grants if g == name or g.split(".", 1)[0] == name)
    if not gone:
        raise UserError(f"No grant for '{name}' in this conversation")
    return CommandResult(
        f"Revoked: {', '.join(gone)} (asked again from now on)", data={"revoke": name}
    )


def _state_words(state: ServerState | None, enabled: bool) -> str:
    if not enabled:
        return "turned off (enabled = false)"
    if state is None or state.state not in (RUNNING, FAILED, STARTING):
        return "not started yet (starts on first need)"
    if state.state == STARTING:
        return "starting"
    if state.state == FAILED:
        return f"failed: {one_line(state.reason or 'it did not start')}"
    count = len(state.tools)
    return f"running, {count} {'tool' if count == 1 else 'tools'}"


def listing(session: Session) -> str:
    """What ``/tools`` shows: each server (offered here or not, its state, its tools),
    then the grants standing in this conversation and in config.toml."""
    settings = session.settings
    if not settings.tool_servers:
        return "No tool servers are configured (Settings → Tools, or [mcp.<name>] in config.toml)"
    memory = session.state.tools
    project = session.project
    servers, tools = tool_use.chosen(
        settings,
        session.conversation.agent,
        memory.switches,
        project.tools if project is not None else None,
    )
    host = session.tools.host if session.tools is not None else None
    states = {s.name: s for s in host.states()} if host is not None else {}
    lines = ["Tool servers:"]
    for name, config in settings.tool_servers.items():
        state = states.get(name)
        offered = name in servers or any(t.split(".", 1)[0] == name for t in tools)
        mark = "on" if offered and config.enabled else "off"
        lines.append(f"  {name} [{mark}] - {_state_words(state, config.enabled)}")
        if state is not None and state.state == RUNNING:
            for info in state.tools:
                lines.append(f"    {one_line(info.name)}")
    lines.append("Allowed in this conversation: " + (", ".join(sorted(memory.grants)) or "none"))
    always = [f"{n}.{t}" for n, c in settings.tool_servers.items() for t in c.always_allow]
    lines.append("Always allowed: " + (", ".join(always) or "none"))
    return "\n".join(lines)
