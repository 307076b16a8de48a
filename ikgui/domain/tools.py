"""The tool-host port (SPEC §12): the tools of MCP servers as the domain sees them.

The adapter (:mod:`ikgui.tools`) starts the servers, lists their tools and runs calls;
the domain decides which tools a conversation offers, asks the user, and records every
call, decision and result as events. Nothing here knows MCP's wire form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

#: A server's state: not started yet, starting, running, failed (with its reason).
STOPPED, STARTING, RUNNING, FAILED = "stopped", "starting", "running", "failed"


@dataclass(frozen=True)
class ToolInfo:
    """One tool a server offers."""

    server: str
    name: str
    description: str = ""
    #: The JSON Schema of its arguments (an object schema).
    input_schema: dict[str, Any] = field(default_factory=dict)

    @property
    def qualified(self) -> str:
        """``server.tool``: how the user names it (grants, ``/tools``, ``--allow``)."""
        return f"{self.server}.{self.name}"


@dataclass(frozen=True)
class ServerState:
    """What one configured server is doing, for ``/tools``, ``ikgui tools`` and Settings."""

    name: str
    state: str = STOPPED
    tools: tuple[ToolInfo, ...] = ()
    #: Why it failed, in one line (None unless failed).
    reason: str | None = None
    #: The last lines it wrote to its standard error (a failed start shows them).
    stderr: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolOutcome:
    """A call's result: its output as text (untrusted: shown plain, never rich) and
    whether it succeeded."""

    output: str
    success: bool


class ToolHost(Protocol):
    """The configured MCP servers: started on first need, kept running, stopped on close."""

    def states(self) -> list[ServerState]:
        """Every configured server's state, in configuration order."""
        ...

    async def start(self, names: Sequence[str]) -> list[ServerState]:
        """Start the named servers that are not running (all at once) and say how each
        is; a server that fails says why in its state, never raises."""
        ...

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Run one tool; a failure (server gone, time limit, bad reply) is an unsuccessful
        outcome with one line saying why. Cancelling the awaiting task cancels the call."""
        ...

    async def close(self) -> None: ...
