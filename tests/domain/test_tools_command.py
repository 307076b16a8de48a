"""``/tools`` (SPEC §12): the servers, their state and tools, and the standing grants;
``/tools on|off NAME`` and ``/tools revoke NAME`` are command events that replay folds
back in, like ``/model``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.session.tool_loop import PendingCall
from ikgui.domain.settings import Settings, ToolServerSettings
from ikgui.domain.state.replay import replay_conversation
from ikgui.domain.state.tool_use import CONVERSATION, Decision
from tests.domain.test_tool_loop import ClockHost, asks
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def tools_session(*scripts: Any) -> tuple[Session, ClockHost]:
    host = ClockHost()
    settings = Settings(
        tool_servers={
            "clock": ToolServerSettings("clock", command="clock", always_allow=("now",)),
            "files": ToolServerSettings("files", command="files", enabled=False),
        }
    )
    session = Session(
        MemoryStore(),
        settings,
        registry=default_registry(),
        provider_factory=ScriptedProvider(*scripts),
        tool_host=host,
    )
    session.new_conversation(None)
    return session, host


def commands(session: Session) -> list[dict[str, Any]]:
    return [e.data for e in session.state.scrollback if e.kind == Kind.COMMAND]


async def test_tools_lists_servers_state_tools_and_grants() -> None:
    session, _ = tools_session()
    lines = (await session.execute("/tools")).split("\n")
    assert lines[0] == "Tool servers:"
    assert "  clock [on] - running, 2 tools" in lines
    assert "    now" in lines and "    wait" in lines
    assert "  files [off] - turned off (enabled = false)" in lines
    assert lines[-2] == "Allowed in this conversation: none"
    assert lines[-1] == "Always allowed: clock.now"


async def test_tools_without_servers_says_where_to_add_one() -> None:
    session = Session(MemoryStore(), Settings(), registry=default_registry())
    assert (await session.execute("/tools")).startswith("No tool servers are configured")


async def test_tools_off_and_on_are_recorded_and_replayed_like_model() -> None:
    session, _ = tools_session()
    await session.execute("/tools off clock")
    assert commands(session)[-1] == {
        "input": "/tools off clock",
        "ok": True,
        "command": "tools",
        "name": "clock",
        "on": False,
    }
    assert session.state.tools.switches == {"clock": False}
    assert "  clock [off] - running, 2 tools" in await session.execute("/tools")
    await session.execute("/tools on clock.wait")
    replayed = replay_conversation(session.store, session.conversation.id)
    assert replayed.tools.switches == {"clock": False, "clock.wait": True}


async def test_tools_on_an_unknown_server_is_an_error_and_records_nothing() -> None:
    session, _ = tools_session()
    with pytest.raises(UserError, match="Unknown tool server 'nope'"):
        await session.execute("/tools on nope")
    with pytest.raises(UsageError, match="Usage: /tools"):
        await session.execute("/tools sideways clock")
    assert commands(session) == []


async def test_tools_revoke_ends_a_grant_of_this_conversation() -> None:
    session, host = tools_session(
        asks(("c1", "clock__wait", {})),
        text_reply("one"),
    )
    assert session.tools is not None

    async def approve(call: PendingCall) -> Decision:
        return Decision(CONVERSATION)

    session.tools.approver = approve
    host.calls.clear()
    # "wait" never returns: let the approval land, then stop.
    task = asyncio.ensure_future(session.send("go"))
    await host.waiting.wait()
    session.stop()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert session.state.tools.grants == {"clock.wait"}
    assert "Allowed in this conversation: clock.wait" in await session.execute("/tools")
    with pytest.raises(UserError, match="No grant for 'files'"):
        await session.execute("/tools revoke files")
    revoked = await session.execute("/tools revoke clock")
    assert revoked.startswith("Revoked: clock.wait")
    assert commands(session)[-1]["revoke"] == "clock"
    assert session.state.tools.grants == set()
    assert replay_conversation(session.store, session.conversation.id).tools.grants == set()
