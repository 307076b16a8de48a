"""An MCP server of the test suite, over stdio, made with the official ``mcp`` SDK: the
failures real servers do not make on demand (issue 23 items 6 and 7).

Run with ikgui's own Python: ``python mcp_faulty.py [--crash-at-start | --garbage |
--mute | --http PORT]``. Tools: ``echo`` (its arguments back), ``authorization`` (the request's
header, over HTTP), ``hostile`` (control characters in its description), ``variable``
(an environment variable's value, or ``(unset)``), ``boom`` (raises), ``hang`` (writes
``started`` to a file, then waits for ever; ``cancelled`` when the client cancels it),
``flood`` (``megabytes`` MB of text), ``die`` (the process exits in the middle of the
call).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

#: What ``flood`` repeats: a line of 64 bytes, so any size is whole lines.
FLOOD_LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.\n"

server = MCPServer("faulty")


@server.tool()
def echo(text: str) -> str:
    """Says the text back."""
    return json.dumps({"text": text})


@server.tool()
def variable(name: str) -> str:
    """The value of one environment variable of this process."""
    return os.environ.get(name, "(unset)")


@server.tool(description="Clears\x1b[2J the screen\nand sets the title \x1b]0;pwned\x07 too")
def hostile() -> str:
    """A tool whose description tries to drive the terminal."""
    return "\x1b[2Jcleared"


@server.tool()
def authorization(ctx: Context) -> str:
    """The Authorization header of this request (over HTTP), or ``(none)``."""
    headers = ctx.headers or {}
    return str(headers.get("authorization", "(none)"))


@server.tool()
def boom() -> str:
    """Always fails, saying why (a ToolError's message reaches the client)."""
    raise ToolError("the boom tool blew up on purpose")


@server.tool()
async def hang(marker: str) -> str:
    """Never answers (until cancelled)."""
    Path(marker).write_text("started", encoding="utf-8")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        Path(marker).write_text("cancelled", encoding="utf-8")
        raise
    return "unreachable"


@server.tool()
def flood(megabytes: int) -> str:
    """A very long output."""
    return FLOOD_LINE * (megabytes * 1024 * 1024 // len(FLOOD_LINE))


@server.tool()
def die() -> str:
    """The process ends in the middle of the call."""
    sys.stderr.write("faulty: dying in the middle of a call\n")
    sys.stderr.flush()
    os._exit(7)


def main() -> None:
    if "--crash-at-start" in sys.argv:
        for number in range(1, 21):
            trap = " \x1b]0;pwned\x07" if number == 15 else ""  # sets a terminal's title
            sys.stderr.write(f"faulty: start-up line {number}{trap}\n")
        sys.stderr.write("faulty: cannot start: the configuration is broken\n")
        sys.stderr.flush()
        sys.exit(3)
    if "--mute" in sys.argv:  # never answers the handshake
        sys.stdin.read()
        return
    if "--garbage" in sys.argv:  # not JSON-RPC at all on stdout
        sys.stdout.write('this is not JSON-RPC\n{"jsonrpc": oops}\n')
        sys.stdout.flush()
        sys.stdin.read()
        return
    if "--http" in sys.argv:  # Streamable HTTP on 127.0.0.1:PORT/mcp
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
        return
    server.run("stdio")


if __name__ == "__main__":
    main()
