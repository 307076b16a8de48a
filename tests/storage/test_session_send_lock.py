"""Two sessions (two connections, as two processes have) sending in one conversation take
turns; the one that waits keeps the event loop running and gives up after its wait."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ikgui.domain.events import Kind
from ikgui.domain.session.sendlock import BusyError
from ikgui.storage import open_store
from tests.storage.test_pending_writes import make_session, slow_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer

__all__ = ["wire_server", "wire_server_session"]


def test_the_second_sender_waits_then_gives_up_or_goes_after_the_first(
    tmp_path: Path, wire_server: WireServer
) -> None:
    wire_server.route("/v1/chat/completions", slow_reply(30, 0.03))
    with open_store(tmp_path / "ikgui.db") as store_a, open_store(tmp_path / "ikgui.db") as store_b:
        first = make_session(store_a, wire_server)
        first.new_conversation()
        first.mark("start")
        conv_id = first.conversation.id
        second = make_session(store_b, wire_server)
        second.open(conv_id)
        waits: list[str] = []
        second.subscribe(lambda fact: waits.append(fact.name))
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        async def scenario() -> None:
            clock = asyncio.create_task(ticker())
            sending = asyncio.create_task(first.send("question A"))
            while not first.streaming:
                await asyncio.sleep(0.01)
            second.send_wait = 0.2
            with pytest.raises(BusyError, match=f"Another reply is being written in {conv_id}"):
                await second.send("too soon")
            assert ticks >= 10  # the loop ran all along
            second.send_wait = 20
            await second.send("question B")  # waits for A's reply, then goes
            await sending
            clock.cancel()

        asyncio.run(scenario())
        events = [(e.kind, e.content) for e in store_a.events(conv_id)]
        reply = "".join(f"w{i} " for i in range(30))
        assert events == [
            ("mark", ""),
            ("user", "question A"),
            ("assistant", reply),
            ("user", "question B"),
            ("assistant", reply),
        ]
        assert "send_waiting" in waits
        # B's state was replayed after the wait: it holds A's exchange before its own.
        shown = [(e.kind, e.content) for e in second.state.scrollback if e.kind != Kind.MARK]
        assert shown == events[1:]
