"""Tool calls on the command line (SPEC §12): ``ikgui run`` asks about each undecided
call on a terminal (``[o]nce, [c]onversation, [a]lways, [n]o``), denies without one
unless ``--allow PATTERN`` allows it, and says each call and each result in one short
line on stderr (the reply alone goes to stdout).

A server's question during a call (MCP elicitation) is asked on a terminal field by
field (:meth:`TerminalApprover.answer`), declined without one.

What a model or a server wrote (a tool's name, its arguments, its output, its questions)
is untrusted text: one line each, its control characters escaped.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from ikgui.cli.output import error
from ikgui.domain.events import Event, Kind
from ikgui.domain.session.tool_loop import PendingCall, deny_unasked
from ikgui.domain.state.facts import Changed, Fact
from ikgui.domain.state.tool_use import (
    ALWAYS,
    BY_CONFIG,
    CONVERSATION,
    DENY,
    ONCE,
    Decision,
    matches,
)
from ikgui.domain.text.safe import one_line
from ikgui.domain.tools import (
    ACCEPT,
    DECLINE,
    FAILED,
    Answer,
    Asker,
    Question,
    ServerState,
    ToolHost,
    ToolOutcome,
    decline_question,
)

#: The answers the terminal prompt takes, by their first letter.
ANSWERS = {"o": ONCE, "c": CONVERSATION, "a": ALWAYS, "n": DENY}
#: The line that declines a server's question on the terminal.
DECLINE_LINE = "!decline"
#: How much of a call's arguments or a result's output its stderr line shows.
LINE_CHARS = 160


def compact(arguments: Any) -> str:
    """A call's arguments on one line (as the model sent them when they are not JSON)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))


def _cut(text: str, limit: int = LINE_CHARS) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TerminalApprover:
    """Decides the calls no grant decides: ``--allow`` patterns first, then the user on
    a terminal (one question at a time, though a reply's calls are asked together),
    else a denial."""

    def __init__(
        self,
        allow: Sequence[str] = (),
        ask: bool = False,
        stdin: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self.allow = tuple(allow)
        self.ask = ask
        self.stdin = stdin or sys.stdin
        self.stderr = stderr or sys.stderr
        #: Tools the user allowed always during this run (config.toml has them now).
        self.always: set[tuple[str, str]] = set()
        self._one_at_a_time = asyncio.Lock()

    async def __call__(self, call: PendingCall) -> Decision:
        server = call.server or ""
        if any(matches(pattern, server, call.tool) for pattern in self.allow):
            return Decision(ONCE)
        if (server, call.tool) in self.always:
            return Decision(ALWAYS, BY_CONFIG)
        if not self.ask:
            return await deny_unasked(call)
        async with self._one_at_a_time:
            return await self._question(call)

    async def _question(self, call: PendingCall) -> Decision:
        what = one_line(f"Allow {call.qualified} {compact(call.arguments)}?")
        while True:
            answer = await self._line(f"{what} [o]nce, [c]onversation, [a]lways, [n]o: ")
            if answer is None:  # end of input: nobody to allow it
                return Decision(DENY, note="no answer came")
            decision = ANSWERS.get(answer.strip().lower()[:1])
            if decision is None:
                continue
            if decision != DENY:
                if decision == ALWAYS and call.server:
                    self.always.add((call.server, call.tool))
                return Decision(decision)
            note = await self._line("Note for the model (optional): ")
            return Decision(DENY, note=(note or "").strip() or None)

    async def answer(self, call: PendingCall, question: Question) -> Answer:
        """A server's question during ``call``: on a terminal its message, then field by
        field (an empty line skips an optional field or takes its default, a bad answer
        is asked again, ``!decline`` declines); without one it is declined."""
        if not self.ask:
            return await decline_question(question)
        async with self._one_at_a_time:
            return await self._answer(question)

    async def _answer(self, question: Question) -> Answer:
        say = self._say
        say(f"The tool server {one_line(question.server)} asks: {one_line(question.message)}")
        if question.url is not None:
            say(f"It asks you to open this address in your browser: {one_line(question.url)}")
            while True:
                typed = await self._line("Did you open it? [y]es, [n]o (declines): ")
                if typed is None:
                    return Answer(DECLINE, note="no answer came")
                first = typed.strip().lower()[:1]
                if first in ("y", "n"):
                    return Answer(ACCEPT if first == "y" else DECLINE)
        say(f"(Type {DECLINE_LINE} to refuse to answer.)")
        content: dict[str, Any] = {}
        for field in question.fields:
            if field.description.strip():
                say(f"  {one_line(' '.join(field.description.split()))}")
            needed = " (required)" if field.required else ""
            default = field.default
            shown = "" if default is None else f", default {compact(default)}"
            prompt = f"{one_line(field.label)}{needed} — {one_line(field.hint())}{shown}: "
            while True:
                typed = await self._line(prompt)
                if typed is None:
                    return Answer(DECLINE, note="no answer came")
                if typed.strip() == DECLINE_LINE:
                    return Answer(DECLINE)
                if not typed.strip():
                    value = default
                else:
                    try:
                        value = field.parse(typed)
                    except ValueError as exc:
                        say(f"  {exc}")
                        continue
                problem = field.problem(value)
                if problem is not None:
                    say(f"  {problem}")
                    continue
                if value is not None:
                    content[field.name] = value
                break
        return Answer(ACCEPT, content)

    def _say(self, text: str) -> None:
        self.stderr.write(text + "\n")
        self.stderr.flush()

    async def _line(self, prompt: str) -> str | None:
        """A line typed in answer to ``prompt`` (None at the end of input).

        Read on a thread of its own that nobody waits for: Ctrl+C cancels the run at
        once, and the read left behind ends with the process."""
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[str | None] = loop.create_future()

        def settle(line: str | None) -> None:
            if not answered.done():
                answered.set_result(line)

        def read() -> None:
            try:
                self.stderr.write(prompt)
                self.stderr.flush()
                line: str | None = self.stdin.readline()
            except (OSError, ValueError):
                line = None
            with_end = line if line else None
            loop.call_soon_threadsafe(settle, with_end)

        threading.Thread(target=read, name="ikgui-tool-question", daemon=True).start()
        return await answered


class ToolLines:
    """Follows the session: one stderr line per call, and one per result."""

    def __init__(self, stderr: TextIO | None = None) -> None:
        self.stderr = stderr or sys.stderr
        self.said: set[int] = set()

    def __call__(self, fact: Fact) -> None:
        if not isinstance(fact, Changed):
            return
        for event, _ in fact.appended:
            if event.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT) and event.id not in self.said:
                self.said.add(event.id)
                self.stderr.write(self.line(event) + "\n")
                self.stderr.flush()

    @staticmethod
    def line(event: Event) -> str:
        data = event.data
        name = str(data.get("name") or "")
        server = data.get("server")
        qualified = f"{server}.{name}" if isinstance(server, str) else name
        if event.kind == Kind.TOOL_CALL:
            return _cut(f"Tool call: {qualified} {compact(data.get('arguments'))}")
        output = data.get("output")
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        how = "ok" if data.get("success") is True else "failed"
        seconds = data.get("seconds")
        took = f" in {seconds:g} s" if isinstance(seconds, int | float) else ""
        lines = text.splitlines() or [""]
        more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
        return _cut(f"Tool result: {qualified} {how}{took}{more}: {lines[0]}")


class ReportedHost:
    """The tool host, saying once on stderr each server that failed to start (the
    request goes on without it)."""

    def __init__(self, host: ToolHost) -> None:
        self.host = host
        self.reported: set[str] = set()

    def states(self) -> list[ServerState]:
        return self.host.states()

    async def start(self, names: Sequence[str]) -> list[ServerState]:
        states = await self.host.start(names)
        for state in states:
            if state.state == FAILED and state.name not in self.reported:
                self.reported.add(state.name)
                error(f"Warning: tool server {state.name} failed: {state.reason or 'no reason'}")
        return states

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        ask: Asker = decline_question,
    ) -> ToolOutcome:
        return await self.host.call(server, tool, arguments, ask)

    async def close(self) -> None:
        await self.host.close()


def always_writer(config: Path) -> Callable[[str, str], None]:
    """ "Always": the tool goes into its server's ``always_allow`` in config.toml (the
    rest of the file kept as it is); a file that cannot be written is said, not raised."""

    def remember(server: str, tool: str) -> None:
        from ikgui.config.loading import load_settings, save_settings

        try:
            before = load_settings(config)
            settings = before.tool_servers.get(server)
            if settings is None or tool in settings.always_allow:
                return
            servers = dict(before.tool_servers)
            servers[server] = replace(settings, always_allow=(*settings.always_allow, tool))
            save_settings(replace(before, tool_servers=servers), config, before=before)
        except (OSError, ValueError) as exc:
            error(f"Warning: could not write always_allow for {server}.{tool}: {exc}")

    return remember


__all__ = ["ReportedHost", "TerminalApprover", "ToolLines", "always_writer"]
