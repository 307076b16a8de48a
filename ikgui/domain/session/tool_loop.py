"""The tool loop (SPEC §12): after a reply that asks for tools, each call is decided
(a standing grant, or the user asked through the approver), run on its server, and its
result recorded; once every call has its result the model is asked again — until a
reply asks for none, the user stops, or ``[limits] tool_rounds`` rounds ran.

Every step is an event of the log (``tool_call``, ``tool_approval``, ``tool_result``),
so replay, fork, export and ``conv context`` show exactly what ran, with what arguments,
and who allowed it. Stop during a call cancels it: its result says ``Cancelled``.
A server's question during a call (MCP elicitation) goes to the questioner; every
question and its answer (or refusal) is kept in the call's result (``questions``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ikgui.domain.events import EncodedData, Event, Kind
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.state import tool_use
from ikgui.domain.state.tool_use import ALWAYS, DENY, Decision
from ikgui.domain.tools import (
    ACCEPT,
    CANCEL,
    Answer,
    Question,
    ToolHost,
    ToolInfo,
    ToolOutcome,
    decline_question,
)

#: What a call's result says when Stop cancelled it.
CANCELLED = "Cancelled"
#: A result's summary (its event's content: 120 characters, spaces squeezed) is made
#: from this much of its output at most: splitting a 10 MB output whole took 30-80 ms
#: of the event loop.
SUMMARY_READS = 4096
#: An output this long has its result's JSON made off the event loop (``EncodedData``).
ENCODED_APART = 256 * 1024


@dataclass(frozen=True)
class PendingCall:
    """A call waiting for a decision, as the approver shows it."""

    conversation_id: str
    event: Event
    #: The server and tool it names (server None: the model named no offered tool).
    server: str | None
    tool: str
    arguments: Any
    description: str = ""

    @property
    def id(self) -> str:
        return str(self.event.data.get("id", ""))

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self.tool}" if self.server else self.tool

    def arguments_text(self) -> str:
        """The arguments as readable JSON (as sent, when they are not JSON)."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, indent=2, ensure_ascii=False)


#: Asks the user about one call (the window's card, ``ikgui run``'s terminal prompt).
Approver = Callable[[PendingCall], Awaitable[Decision]]


#: Asks the user a server's question during a call (the window's form, ``ikgui run``'s
#: terminal): the call it belongs to, and the question.
Questioner = Callable[[PendingCall, Question], Awaitable[Answer]]


async def decline_unasked(call: PendingCall, question: Question) -> Answer:
    """Nobody to ask: the server's question is declined."""
    return await decline_question(question)


async def deny_unasked(call: PendingCall) -> Decision:
    """Nobody to ask (no window, no terminal): the call is denied."""
    return Decision(DENY, note="no one was there to allow it")


def _misfit(question: Question, answer: Answer) -> bool:
    """An accepted form whose answer does not fit its schema (it is not sent)."""
    accepted = answer.action == ACCEPT and question.url is None
    return accepted and bool(question.problems(answer.content or {}))


class ToolLoop:
    """Runs the tool calls of a conversation's replies (one per session)."""

    def __init__(self, host: ToolHost) -> None:
        self.host = host
        self.approver: Approver = deny_unasked
        self.questioner: Questioner = decline_unasked
        #: Keeps "Always allow" (the composition root writes it into config.toml).
        self.remember_always: Callable[[str, str], None] = lambda server, tool: None

    # -- the offer -------------------------------------------------------------------
    async def offer(self, current: OpenConversation) -> dict[str, ToolInfo]:
        """The tools this conversation offers now, by the name the model sees (its
        servers started first, all at once; one that fails is left out)."""
        settings = current.settings
        if not settings.tool_servers:
            return {}
        events = current.state.events if hasattr(current.state, "events") else []
        project = current.project
        servers, tools = tool_use.chosen(
            settings,
            current.conversation.agent,
            tool_use.switched(events),
            project.tools if project is not None else None,
        )
        names = tool_use.servers_needed(servers, tools)
        if not names:
            return {}
        states = await self.host.start(names)
        return tool_use.offered(states, servers, tools)

    # -- one round -------------------------------------------------------------------
    @staticmethod
    def calls_in(current: OpenConversation) -> set[str]:
        """The ids of the tool calls in the context now (taken before a reply streams:
        what it adds is what it asks for)."""
        return {str(e.data.get("id")) for e in current.state.context if e.kind == Kind.TOOL_CALL}

    @staticmethod
    def waiting(current: OpenConversation, before: set[str]) -> list[Event]:
        """The calls the last reply asked for (not in ``before``) without a result yet.
        A call left without a result by a crash is never run again by itself."""
        events = list(current.state.context)
        answered = {str(e.data.get("tool_call_id")) for e in events if e.kind == Kind.TOOL_RESULT}
        return [
            e
            for e in events
            if e.kind == Kind.TOOL_CALL
            and str(e.data.get("id")) not in before
            and str(e.data.get("id")) not in answered
        ]

    async def run_round(
        self,
        current: OpenConversation,
        conv_id: str,
        calls: list[Event],
        offer: dict[str, ToolInfo],
    ) -> None:
        """Decide every call (all asked at once: several can be allowed together), then
        run the allowed ones in order, recording each decision and result."""
        pending = [self._pending(conv_id, event, offer) for event in calls]
        grants = set(current.state.tools.grants)
        try:
            decisions = await asyncio.gather(
                *(self._decide(current, call, grants) for call in pending)
            )
        except asyncio.CancelledError:
            # Stopped while asked (Ctrl+C at the prompt): every call gets its result, so
            # the next request is well-formed, and none runs.
            for call in pending:
                self._result(current, conv_id, call, ToolOutcome(CANCELLED, False))
            raise
        for call, decision in zip(pending, decisions, strict=True):
            current.append_to(conv_id, Kind.TOOL_APPROVAL, "", decision.data(call.id))
            if decision.decision == ALWAYS and decision.by == tool_use.BY_USER and call.server:
                self.remember_always(call.server, call.tool)
            if not decision.allowed:
                self._result(current, conv_id, call, ToolOutcome(decision.denied_output(), False))
                continue
            arguments = decision.arguments if decision.arguments is not None else call.arguments
            await self._run(current, conv_id, call, arguments)

    def _pending(self, conv_id: str, event: Event, offer: dict[str, ToolInfo]) -> PendingCall:
        data = event.data
        info = offer.get(str(data.get("wire") or data.get("name")))
        server = data.get("server") if isinstance(data.get("server"), str) else None
        tool = str(data.get("name") or "")
        return PendingCall(
            conv_id,
            event,
            server,
            tool,
            data.get("arguments"),
            info.description if info is not None else "",
        )

    async def _decide(
        self, current: OpenConversation, call: PendingCall, grants: set[str]
    ) -> Decision:
        if call.server is None:
            return Decision(
                DENY, by=tool_use.BY_IKGUI, note=f"no tool named {call.tool} was offered"
            )
        if not isinstance(call.arguments, dict):
            return Decision(DENY, by=tool_use.BY_IKGUI, note="its arguments are not a JSON object")
        standing = tool_use.standing(current.settings, grants, call.server, call.tool)
        if standing is not None:
            return standing
        return await self.approver(call)

    async def _run(
        self, current: OpenConversation, conv_id: str, call: PendingCall, arguments: Any
    ) -> None:
        assert call.server is not None
        started = current.clock()
        questions: list[dict[str, Any]] = []
        asked: list[Question] = []  # the question open now (its answer not back yet)

        async def ask(question: Question) -> Answer:
            # Recorded with the call: its result keeps every question and its answer.
            asked.append(question)
            answer = Answer(CANCEL)  # (cancelled, or the asker failed)
            try:
                answer = await self.questioner(call, question)
            finally:
                if any(q is question for q in asked):  # (not recorded at Stop already)
                    asked[:] = [q for q in asked if q is not question]
                    if _misfit(question, answer):
                        answer = Answer(CANCEL, note="the answer did not fit the form")
                    questions.append(question.record(answer))
            return answer

        try:
            outcome = await self.host.call(call.server, call.tool, arguments, ask)
        except asyncio.CancelledError:
            # Stop: the form (on this loop) may close only after this; it is recorded
            # as cancelled now, with the call.
            questions.extend(q.record(Answer(CANCEL)) for q in asked)
            asked.clear()
            cancelled = ToolOutcome(CANCELLED, False)
            self._result(current, conv_id, call, cancelled, started, questions)
            raise
        data = self._result_data(current, call, outcome, started, questions)
        if len(outcome.output) >= ENCODED_APART:
            try:  # its JSON made on a thread, a slice at a time: the loop goes on
                data = await asyncio.to_thread(EncodedData, data)
            except asyncio.CancelledError:
                self._record(current, conv_id, data)
                raise
        self._record(current, conv_id, data)

    def _result(
        self,
        current: OpenConversation,
        conv_id: str,
        call: PendingCall,
        outcome: ToolOutcome,
        started: float | None = None,
        questions: list[dict[str, Any]] | None = None,
    ) -> None:
        data = self._result_data(current, call, outcome, started, questions)
        self._record(current, conv_id, data)

    @staticmethod
    def _result_data(
        current: OpenConversation,
        call: PendingCall,
        outcome: ToolOutcome,
        started: float | None,
        questions: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tool_call_id": call.id,
            "name": call.tool,
            "output": outcome.output,
            "success": outcome.success,
        }
        if call.server:
            data["server"] = call.server
        if started is not None:
            data["seconds"] = round(max(0.0, current.clock() - started), 3)
        if questions:
            data["questions"] = list(questions)
        return data

    @staticmethod
    def _record(current: OpenConversation, conv_id: str, data: dict[str, Any]) -> None:
        output = str(data["output"])
        summary = " ".join(output[:SUMMARY_READS].split())[:120]
        current.append_to(conv_id, Kind.TOOL_RESULT, summary, data)
