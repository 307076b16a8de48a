"""The rules of tool use (SPEC §12), each in one place: the names the model sees, which
tools a conversation offers, the standing grants its log holds, the decisions a user
makes, and how much of a tool's output the model reads.

Pure functions over settings, server states and events: the tool loop
(:mod:`ikgui.domain.session.tool_loop`), ``/tools``, the window and ``ikgui run`` all ask
here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ikgui.domain.events import Event, Kind
from ikgui.domain.settings import Settings
from ikgui.domain.tools import ServerState, ToolInfo

#: A decision about one call: run it this once, for the rest of the conversation, always
#: (written into ``always_allow``), or not.
ONCE, CONVERSATION, ALWAYS, DENY = "once", "conversation", "always", "deny"
DECISIONS = (ONCE, CONVERSATION, ALWAYS, DENY)
#: Who decided: the user (asked, or ``ikgui run --allow``), a grant standing in this
#: conversation, or ``always_allow`` in config.toml.
BY_USER, BY_CONVERSATION, BY_CONFIG = "user", "conversation", "config"
#: What a denied call's result says to the model.
DENIED = "Denied by the user"
#: Who refuses a call the rules forbid (a tool not offered, arguments not an object),
#: and what its result says.
BY_IKGUI = "ikgui"
REFUSED = "Refused by ikgui"
#: The names providers accept for a tool: letters, digits, ``_`` and ``-``, at most 64.
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_NAME_MAX = 64


def wire_name(server: str, tool: str) -> str:
    """The name the model sees for ``server``'s ``tool``: ``server__tool``, made of the
    characters every provider accepts. The same server and tool always give the same
    name, so a conversation's earlier calls keep meaning the same tool."""
    name = _NAME_CHARS.sub("_", f"{server}__{tool}")
    if len(name) <= _NAME_MAX and name == f"{server}__{tool}":
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: _NAME_MAX - 9]}_{digest}"


def choice_for(
    settings: Settings, agent: str | None, project: tuple[str, ...] | None = None
) -> tuple[str, ...] | None:
    """The configured choice of tools (server names or ``server.tool``): the project's
    (``project``: its ``tools``, SPEC §15), else the agent's, else ``[defaults] tools``;
    None: every enabled server."""
    if project is not None:
        return project
    own = settings.agent(agent)
    if own is not None and own.tools is not None:
        return own.tools
    return settings.default_tools


@dataclass
class ToolMemory:
    """What a conversation's log says about its tools, folded by replay: its own
    ``/tools on|off`` switches and the grants standing in it (both outlive a clear: the
    clear event carries them, as it carries the model)."""

    switches: dict[str, bool] = field(default_factory=dict)
    grants: set[str] = field(default_factory=set)
    #: ``server.tool`` of each call, by call id (what a decision refers to).
    calls: dict[str, str] = field(default_factory=dict)

    def take(self, event: Event) -> None:
        """Fold one event in."""
        data = event.data
        if event.kind == Kind.TOOL_CALL:
            server, name = data.get("server"), data.get("name")
            if isinstance(server, str) and isinstance(name, str):
                self.calls[str(data.get("id"))] = f"{server}.{name}"
        elif (
            event.kind == Kind.TOOL_APPROVAL
            and data.get("decision") == CONVERSATION
            and not data.get("imported")  # a file's decision is a record, not a grant
        ):
            qualified = self.calls.get(str(data.get("tool_call_id")))
            if qualified is not None:
                self.grants.add(qualified)
        elif event.kind == Kind.COMMAND and data.get("command") == "tools" and data.get("ok"):
            name, on, revoke = data.get("name"), data.get("on"), data.get("revoke")
            if isinstance(name, str) and isinstance(on, bool):
                self.switches[name] = on
            if isinstance(revoke, str):
                self.grants = {
                    g for g in self.grants if g != revoke and g.split(".", 1)[0] != revoke
                }
        elif event.kind == Kind.CLEAR:
            switches, grants = data.get("tool_switches"), data.get("tool_grants")
            if isinstance(switches, dict):
                self.switches = {
                    k: v for k, v in switches.items() if isinstance(k, str) and isinstance(v, bool)
                }
            if isinstance(grants, list):
                self.grants = {g for g in grants if isinstance(g, str)}

    def carried(self) -> dict[str, Any]:
        """What a clear event carries so that replay, which starts there, keeps them."""
        found: dict[str, Any] = {}
        if self.switches:
            found["tool_switches"] = dict(self.switches)
        if self.grants:
            found["tool_grants"] = sorted(self.grants)
        return found


def remembered(events: Iterable[Event]) -> ToolMemory:
    memory = ToolMemory()
    for event in events:
        memory.take(event)
    return memory


def switched(events: Iterable[Event]) -> dict[str, bool]:
    """The conversation's own ``/tools on|off NAME`` commands, latest last: name → on."""
    return remembered(events).switches


def chosen(
    settings: Settings,
    agent: str | None,
    switches: dict[str, bool],
    project: tuple[str, ...] | None = None,
) -> tuple[set[str], set[str]]:
    """The servers and the ``server.tool`` names a conversation offers: the configured
    choice (its project's, its agent's, the defaults'; every enabled server when none is
    set), then its own switches."""
    choice = choice_for(settings, agent, project)
    servers: set[str] = set()
    tools: set[str] = set()
    if choice is None:
        servers = {n for n, s in settings.tool_servers.items() if s.enabled}
    else:
        for entry in choice:
            (tools if "." in entry else servers).add(entry)
    for name, on in switches.items():
        target = tools if "." in name else servers
        if on:
            target.add(name)
        else:
            target.discard(name)
            if "." not in name:  # off for a server: none of its tools either
                tools = {t for t in tools if t.split(".", 1)[0] != name}
    return servers, tools


def servers_needed(servers: set[str], tools: set[str]) -> list[str]:
    """The servers to start for a choice, in a stable order."""
    return sorted(servers | {t.split(".", 1)[0] for t in tools})


def offered(
    states: Sequence[ServerState], servers: set[str], tools: set[str]
) -> dict[str, ToolInfo]:
    """The tools offered to the model, by the name it sees, from the running servers."""
    found: dict[str, ToolInfo] = {}
    for state in states:
        for info in state.tools:
            if info.server in servers or info.qualified in tools:
                found[wire_name(info.server, info.name)] = info
    return found


def wire_tools(offer: dict[str, ToolInfo]) -> list[dict[str, Any]]:
    """The offer in the domain's (OpenAI) form; providers convert it to theirs."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": info.description[:1024],
                "parameters": info.input_schema or {"type": "object", "properties": {}},
            },
        }
        for name, info in offer.items()
    ]


@dataclass(frozen=True)
class Decision:
    """What was decided about one call, as its ``tool_approval`` event records it."""

    decision: str
    by: str = BY_USER
    note: str | None = None
    #: The arguments the user edited before allowing (None: as the model sent them).
    arguments: Any = None

    @property
    def allowed(self) -> bool:
        return self.decision != DENY

    def data(self, tool_call_id: str) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tool_call_id": tool_call_id,
            "decision": self.decision,
            "by": self.by,
        }
        if self.note:
            data["note"] = self.note
        if self.arguments is not None:
            data["arguments"] = self.arguments
        return data

    def denied_output(self) -> str:
        if self.by == BY_IKGUI:  # refused by rule: no user was asked
            return f"{REFUSED}: {self.note}" if self.note else REFUSED
        return f"{DENIED}: {self.note}" if self.note else DENIED


def grants(events: Iterable[Event]) -> set[str]:
    """The grants standing in a conversation (``server.tool`` names): each "Allow in
    this conversation", until a ``/tools revoke`` of the tool or its server."""
    return remembered(events).grants


def standing(
    settings: Settings, conversation_grants: set[str], server: str, tool: str
) -> Decision | None:
    """The decision a grant makes for a call without asking (None: ask the user)."""
    config = settings.tool_servers.get(server)
    if config is not None and tool in config.always_allow:
        return Decision(ALWAYS, BY_CONFIG)
    if f"{server}.{tool}" in conversation_grants or server in conversation_grants:
        return Decision(CONVERSATION, BY_CONVERSATION)
    return None


def capped(output: str, kilobytes: int) -> str:
    """A tool's output as the model reads it: at most ``kilobytes`` KiB (of UTF-8), with
    a line saying how much was left out (the event keeps it whole)."""
    limit = kilobytes * 1024
    encoded = output.encode("utf-8", errors="replace")
    if len(encoded) <= limit:
        return output
    kept = encoded[:limit].decode("utf-8", errors="ignore")
    left = len(encoded) - len(kept.encode("utf-8"))
    return f"{kept}\n[… {left:,} more bytes of this tool's output were cut here]"


def matches(pattern: str, server: str, tool: str) -> bool:
    """``ikgui run --allow PATTERN``: ``server.tool`` or ``server.*``."""
    if pattern.endswith(".*"):
        return pattern[:-2] == server
    return pattern == f"{server}.{tool}"
