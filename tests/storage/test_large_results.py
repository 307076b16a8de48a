"""A tool's 10 MB output (issue 23, Speed): stored whole, without its work on the event
loop's thread — its result's JSON is made on another thread (``EncodedData``, a slice at
a time), its summary from its head only. Counted, not timed: which thread encoded how
much, and how much of the output was split into words."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from ikgui.domain.events import EncodedData, Kind, data_text
from ikgui.domain.session.session import Session
from ikgui.domain.session.tool_loop import PendingCall
from ikgui.domain.settings import Settings, ToolServerSettings
from ikgui.domain.state.tool_use import ONCE, Decision
from ikgui.domain.streaming import StreamEnd, ToolCallDelta
from ikgui.domain.tools import (
    RUNNING,
    Asker,
    ServerState,
    ToolInfo,
    ToolOutcome,
    decline_question,
)
from ikgui.storage import SqliteStore
from tests.storage.conftest import BOTH
from tests.support.scripted import ScriptedProvider, text_reply

STORES = BOTH
LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.\n"
TEN_MB = LINE * (10 * 1024 * 1024 // len(LINE))


class Watched(str):
    """An output that counts the characters split into words (the summary's work)."""

    split_chars = 0

    def split(self, *args: Any, **kwargs: Any) -> list[str]:  # type: ignore[override]
        Watched.split_chars += len(self)
        return super().split(*args, **kwargs)


class FloodHost:
    """One server, ``flood``, whose one tool answers 10 MB."""

    def states(self) -> list[ServerState]:
        return [ServerState("flood", RUNNING, (ToolInfo("flood", "flood", "10 MB"),))]

    async def start(self, names: Sequence[str]) -> list[ServerState]:
        return self.states()

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], ask: Asker = decline_question
    ) -> ToolOutcome:
        return ToolOutcome(Watched(TEN_MB), True)

    async def close(self) -> None:
        pass


async def test_a_10_mb_output_is_stored_whole_its_json_made_off_the_loop(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded: list[tuple[bool, int]] = []  # (on the loop's thread, characters made)
    loop_thread = threading.get_ident()
    dumps = json.dumps

    def counting(value: Any, *args: Any, **kwargs: Any) -> str:
        text = dumps(value, *args, **kwargs)
        encoded.append((threading.get_ident() == loop_thread, len(text)))
        return text

    monkeypatch.setattr(json, "dumps", counting)
    provider = ScriptedProvider(
        [ToolCallDelta("c1", "flood__flood", {}), StreamEnd(1, 1, "tool_calls")],
        text_reply("Read it."),
    )
    settings = Settings(tool_servers={"flood": ToolServerSettings("flood", command="flood")})
    session = Session(store, settings, provider_factory=provider, tool_host=FloodHost())
    session.new_conversation(None)

    async def allow(call: PendingCall) -> Decision:
        return Decision(ONCE)

    assert session.tools is not None
    session.tools.approver = allow
    Watched.split_chars = 0
    await session.send("Flood, please")
    [result] = [e for e in store.events(session.conversation.id) if e.kind == Kind.TOOL_RESULT]
    assert result.data["output"] == TEN_MB and result.data["success"] is True  # whole
    assert result.content == " ".join(TEN_MB.split())[:120]
    assert Watched.split_chars == 0  # the summary split its head, not the 10 MB
    on_loop = [size for here, size in encoded if here]
    assert max(on_loop) < 1_000_000  # the 10 MB went into JSON on another thread
    assert sum(size for here, size in encoded if not here) > len(TEN_MB)


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        'quotes " and \\ backslashes, control \x00\x1f\t\n',
        "non-ASCII é 漢字 🙂, a lone surrogate \ud800",
        ("é\n🙂" * 400_000),  # past one slice: slices joined
        ["a", 1, 2.5, None, True, {"nested": "x" * 2_000_000}],
    ],
)
def test_encoded_data_is_the_json_storage_would_have_made(value: Any) -> None:
    data = {"output": value, "name": "t", "success": False}
    made = EncodedData(data)
    assert made == data
    assert made.json == json.dumps(data, ensure_ascii=False) == data_text(made)
    assert data_text(dict(data)) == made.json and data_text({}) is None
