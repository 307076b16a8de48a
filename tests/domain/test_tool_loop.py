"""The tool loop (SPEC §12) on the session: a reply asks for tools, each call is
decided and run, its result recorded, and the model asked again; every step an event.

The tool host here is a small one of the test's own (the domain tests never start
processes); ``tests/cli/test_tools_run.py`` runs the same loop against real MCP servers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from ikgui.domain.errors import ProviderError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.session.tool_loop import PendingCall
from ikgui.domain.settings import Settings, ToolServerSettings
from ikgui.domain.state.tool_use import ALWAYS, CONVERSATION, DENY, ONCE, Decision
from ikgui.domain.streaming import StreamEnd, TextDelta, ToolCallDelta
from ikgui.domain.tools import RUNNING, ServerState, ToolInfo, ToolOutcome
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


class ClockHost:
    """One server, ``clock``, with ``now`` (answers) and ``wait`` (never returns)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.started: list[str] = []
        self.waiting = asyncio.Event()

    def states(self) -> list[ServerState]:
        tools = (ToolInfo("clock", "now", "The time"), ToolInfo("clock", "wait", "Waits"))
        return [ServerState("clock", RUNNING, tools)]

    async def start(self, names: Sequence[str]) -> list[ServerState]:
        self.started.extend(names)
        return self.states()

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], ask: Any = None
    ) -> ToolOutcome:
        self.calls.append((server, tool, arguments))
        if tool == "wait":
            self.waiting.set()
            await asyncio.Event().wait()
        return ToolOutcome(f"12:00 in {arguments.get('zone', 'UTC')}", True)

    async def close(self) -> None:
        pass


def asks(*calls: tuple[str, str, Any]) -> list[Any]:
    return [*(ToolCallDelta(i, n, a) for i, n, a in calls), StreamEnd(1, 1, "tool_calls")]


def session_with(
    host: ClockHost, *scripts: Any, **settings: Any
) -> tuple[Session, ScriptedProvider]:
    provider = ScriptedProvider(*scripts)
    config = Settings(
        tool_servers={"clock": ToolServerSettings("clock", command="clock", **settings)}
    )
    session = Session(MemoryStore(), config, provider_factory=provider, tool_host=host)
    session.new_conversation(None)
    return session, provider


def kinds(session: Session) -> list[str]:
    return [e.kind for e in session.state.scrollback]


async def test_an_allowed_call_runs_and_the_model_reads_its_result() -> None:
    host = ClockHost()
    session, provider = session_with(
        host, asks(("c1", "clock__now", {"zone": "CET"})), text_reply("It is noon.")
    )
    asked: list[PendingCall] = []

    async def approve(call: PendingCall) -> Decision:
        asked.append(call)
        return Decision(ONCE)

    assert session.tools is not None
    session.tools.approver = approve
    await session.send("What time is it?")
    assert [c.qualified for c in asked] == ["clock.now"]
    assert host.calls == [("clock", "now", {"zone": "CET"})]
    # The reply that asked (its text, here empty), then its call, decision and result.
    assert kinds(session) == [
        "user",
        "assistant",
        "tool_call",
        "tool_approval",
        "tool_result",
        "assistant",
    ]
    call = session.state.scrollback[2]
    assert call.data["server"] == "clock" and call.data["name"] == "now"
    result = session.state.scrollback[4]
    assert result.data["output"] == "12:00 in CET" and result.data["success"] is True
    offered = provider.requests[0].options["tools"]
    assert [t["function"]["name"] for t in offered] == ["clock__now", "clock__wait"]
    second = provider.requests[1].messages
    assert second[-2]["tool_calls"][0]["function"]["name"] == "clock__now"
    assert second[-1] == {"role": "tool", "tool_call_id": "c1", "content": "12:00 in CET"}


async def test_a_denied_call_tells_the_model_why_and_runs_nothing() -> None:
    host = ClockHost()
    session, provider = session_with(host, asks(("c1", "clock__now", {})), text_reply("OK."))
    assert session.tools is not None

    async def deny(call: PendingCall) -> Decision:
        return Decision(DENY, note="not now")

    session.tools.approver = deny
    await session.send("time?")
    assert host.calls == []
    result = next(e for e in session.state.context if e.kind == Kind.TOOL_RESULT)
    assert result.data["output"] == "Denied by the user: not now"
    assert result.data["success"] is False
    assert provider.requests[1].messages[-1]["content"] == "Denied by the user: not now"


async def test_allowed_in_this_conversation_is_not_asked_again_until_revoked() -> None:
    host = ClockHost()
    session, _ = session_with(
        host,
        asks(("c1", "clock__now", {})),
        text_reply("one"),
        asks(("c2", "clock__now", {})),
        text_reply("two"),
    )
    asked: list[str] = []

    async def approve(call: PendingCall) -> Decision:
        asked.append(call.id)
        return Decision(CONVERSATION)

    assert session.tools is not None
    session.tools.approver = approve
    await session.send("first")
    await session.send("second")
    assert asked == ["c1"]
    approvals = [e.data for e in session.state.scrollback if e.kind == Kind.TOOL_APPROVAL]
    assert [(a["decision"], a["by"]) for a in approvals] == [
        ("conversation", "user"),
        ("conversation", "conversation"),
    ]
    assert session.state.tools.grants == {"clock.now"}


async def test_always_allow_from_config_runs_without_asking_and_always_is_remembered() -> None:
    host = ClockHost()
    session, _ = session_with(
        host, asks(("c1", "clock__now", {})), text_reply("ok"), always_allow=("now",)
    )
    assert session.tools is not None
    await session.send("time?")  # the default approver would deny: the grant decides
    assert host.calls == [("clock", "now", {})]
    approval = next(e for e in session.state.scrollback if e.kind == Kind.TOOL_APPROVAL)
    assert (approval.data["decision"], approval.data["by"]) == (ALWAYS, "config")

    kept: list[tuple[str, str]] = []
    host2 = ClockHost()
    session2, _ = session_with(host2, asks(("c9", "clock__wait", {})), text_reply("ok"))
    assert session2.tools is not None
    session2.tools.remember_always = lambda server, tool: kept.append((server, tool))

    async def always(call: PendingCall) -> Decision:
        return Decision(DENY) if call.tool == "wait" else Decision(ALWAYS)

    session2.tools.approver = always
    await session2.send("x")
    assert kept == []  # a denial remembers nothing


async def test_a_tool_the_model_was_not_offered_is_refused_with_a_reason() -> None:
    host = ClockHost()
    session, _ = session_with(host, asks(("c1", "rm_rf", {"path": "/"})), text_reply("ok"))
    await session.send("clean up")
    assert host.calls == []
    result = next(e for e in session.state.context if e.kind == Kind.TOOL_RESULT)
    assert "no tool named rm_rf was offered" in result.data["output"]


async def test_the_round_limit_stops_a_model_that_keeps_asking() -> None:
    host = ClockHost()
    loop = [asks((f"c{i}", "clock__now", {})) for i in range(5)]
    session, _ = session_with(host, *loop, always_allow=("now",))
    session.settings.tool_rounds = 2
    with pytest.raises(ProviderError, match="Stopped after 2 rounds of tool calls"):
        await session.send("loop")
    assert len(host.calls) == 2
    assert session.state.scrollback[-1].kind == Kind.ERROR


async def test_stop_during_a_call_cancels_it_and_records_cancelled() -> None:
    host = ClockHost()
    session, _ = session_with(host, asks(("c1", "clock__wait", {})), always_allow=("wait",))
    task = asyncio.ensure_future(session.send("wait"))
    await host.waiting.wait()
    assert session.stop()
    with pytest.raises(asyncio.CancelledError):
        await task
    result = next(e for e in session.state.context if e.kind == Kind.TOOL_RESULT)
    assert (result.data["output"], result.data["success"]) == ("Cancelled", False)


async def test_a_clear_keeps_the_grants_and_the_choices_for_replay() -> None:
    host = ClockHost()
    session, _ = session_with(host, asks(("c1", "clock__now", {})), text_reply("ok"))
    assert session.tools is not None

    async def approve(call: PendingCall) -> Decision:
        return Decision(CONVERSATION)

    session.tools.approver = approve
    await session.send("time?")
    session.current.clear()
    from ikgui.domain.state.replay import replay_conversation

    replayed = replay_conversation(session.store, session.conversation.id)
    assert replayed.tools.grants == {"clock.now"}


async def test_without_tool_servers_nothing_is_offered() -> None:
    provider = ScriptedProvider(text_reply("hi"))
    session = Session(MemoryStore(), Settings(), provider_factory=provider, tool_host=ClockHost())
    session.new_conversation(None)
    await session.send("hello")
    assert "tools" not in provider.requests[0].options
    assert TextDelta  # (the scripted replies are plain text)


async def test_a_call_id_sent_again_is_a_new_call_with_an_id_of_its_own() -> None:
    """A model that numbers its calls from 1 in each reply (or repeats one in a reply):
    each call is run and answered, none is taken for an answered one."""
    host = ClockHost()
    session, provider = session_with(
        host,
        asks(("call_1", "clock__now", {"zone": "A"}), ("call_1", "clock__now", {"zone": "B"})),
        asks(("call_1", "clock__now", {"zone": "C"})),
        text_reply("Three times."),
        always_allow=("now",),
    )
    await session.send("time?")
    assert [c[2]["zone"] for c in host.calls] == ["A", "B", "C"]
    ids = [e.data["id"] for e in session.state.context if e.kind == Kind.TOOL_CALL]
    assert ids == ["call_1", "call_1_2", "call_1_3"]
    answered = [e.data["tool_call_id"] for e in session.state.context if e.kind == Kind.TOOL_RESULT]
    assert answered == ids
    last = provider.requests[-1].messages
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == ids
