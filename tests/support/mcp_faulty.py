"""An MCP server of the test suite, over stdio, made with the official ``mcp`` SDK: the
failures real servers do not make on demand (issue 23 items 6 and 7).

Run with ikgui's own Python: ``python mcp_faulty.py [--crash-at-start | --garbage |
--mute | --http PORT]``. Tools: ``echo`` (its arguments back), ``authorization`` (the request's
header, over HTTP), ``hostile`` (control characters in its description), ``variable``
(an environment variable's value, or ``(unset)``), ``boom`` (raises), ``hang`` (writes
``started`` to a file, then waits for ever; ``cancelled`` when the client cancels it),
``flood`` (``megabytes`` MB of text), ``die`` (the process exits in the middle of the
call); and questions to the user (MCP elicitation): ``survey`` (a form with a field of
every kind; says what came back), ``insist`` (asks, and goes on whatever the answer),
``hostile_question`` (markup and terminal controls in its message and titles),
``visit`` (url mode).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
)

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


#: ``survey``'s form: a field of every kind MCP's form mode has.
SURVEY = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 2},
        "email": {"type": "string", "title": "Email", "format": "email"},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
        "height": {"type": "number", "title": "Height (m)", "description": "In metres"},
        "subscribe": {"type": "boolean", "title": "Subscribe", "default": False},
        "colour": {
            "type": "string",
            "title": "Colour",
            "oneOf": [
                {"const": "red", "title": "Red"},
                {"const": "green", "title": "Green"},
                {"const": "blue", "title": "Blue"},
            ],
        },
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "minItems": 1,
            "items": {"type": "string", "enum": ["cheese", "olives", "basil"]},
        },
    },
    "required": ["name", "colour"],
}


def _said(result: object) -> str:
    return json.dumps(
        {"action": getattr(result, "action", None), "content": getattr(result, "content", None)}
    )


def _asked(ctx: Context, params: ElicitRequestParams) -> ElicitResult | InputRequiredResult:
    """The answer to a question, the protocol's way: at 2026-07-28 (this SDK with
    ikgui's) the call returns the question and the client calls again with the answer."""
    responses = ctx.input_responses or {}
    if "question" in responses:
        return ElicitResult.model_validate(responses["question"], from_attributes=True)
    return InputRequiredResult(input_requests={"question": ElicitRequest(params=params)})


@server.tool()
async def survey(ctx: Context) -> str | InputRequiredResult:
    """Asks the user a form with a field of every kind; says what came back."""
    result = _asked(
        ctx, ElicitRequestFormParams(message="Tell us about yourself", requested_schema=SURVEY)
    )
    return result if isinstance(result, InputRequiredResult) else _said(result)


@server.tool()
async def insist(ctx: Context) -> str | InputRequiredResult:
    """Asks for a colour, then goes on whatever the answer (a decline is ignored)."""
    schema = {
        "type": "object",
        "properties": {"colour": {"type": "string", "title": "Colour", "enum": ["red", "blue"]}},
        "required": ["colour"],
    }
    result = _asked(ctx, ElicitRequestFormParams(message="Pick a colour", requested_schema=schema))
    if isinstance(result, InputRequiredResult):
        return result
    content = result.content or {}
    return f"went on with {content.get('colour', 'no colour')} after {result.action}"


@server.tool()
async def hostile_question(ctx: Context) -> str | InputRequiredResult:
    """Markup and terminal controls in the question's message and titles."""
    schema = {
        "type": "object",
        "properties": {
            "pick": {
                "type": "string",
                "title": "<b>Bold</b> \x1b[2J title",
                "description": "<img src='file:///dev/zero'> described",
                "enum": ["<i>one</i>", "two"],
            }
        },
    }
    message = "<h1>Big</h1> \x1b]0;pwned\x07 <a href='x'>link</a>"
    result = _asked(ctx, ElicitRequestFormParams(message=message, requested_schema=schema))
    return result if isinstance(result, InputRequiredResult) else _said(result)


@server.tool()
async def visit(ctx: Context, url: str) -> str | InputRequiredResult:
    """Asks the user to open ``url`` (url mode)."""
    result = _asked(ctx, ElicitRequestURLParams(message="Sign in to continue", url=url))
    return result if isinstance(result, InputRequiredResult) else _said(result)


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
