"""The send path of the session (SPEC §8, §11), on the in-memory store with a scripted
provider: the stream stops exactly where a test wants it to, and time moves only when a
test moves it. (The same path over real HTTP and SQLite: tests/cli/test_run.py,
tests/ui/test_window.py.)"""

from __future__ import annotations

import asyncio

import pytest

from ikgui.domain.errors import ProviderError, UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session, SessionEvent
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.facts import Changed
from ikgui.domain.state.replay import replay_conversation
from ikgui.domain.streaming import StreamEnd, TextDelta, ToolCallDelta
from tests.support.memstore import MemoryStore
from tests.support.scripted import Pause, ScriptedProvider, Step, text_reply


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_session(store: MemoryStore, provider: ScriptedProvider, clock: Clock) -> Session:
    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return Session(store, settings, clock=clock, provider_factory=provider)


def words(start: int, stop: int) -> list[Step]:
    return [TextDelta(f"w{i} ") for i in range(start, stop)]


def paused_at(n: int, pause: Pause, total: int = 100) -> ScriptedProvider:
    """A reply of ``total`` words that waits for the test after the first ``n``."""
    return ScriptedProvider(
        [*words(0, n), pause, *text_reply(*[f"w{i} " for i in range(n, total)])]
    )


def test_deltas_reach_listeners_and_the_log_matches_replay() -> None:
    store, provider = MemoryStore(), ScriptedProvider(text_reply(*[f"w{i} " for i in range(20)]))
    session = make_session(store, provider, Clock())
    heard: list[SessionEvent] = []
    session.subscribe(heard.append)
    reply = asyncio.run(session.send("go"))
    assert reply is not None and reply.content == "".join(f"w{i} " for i in range(20))
    deltas = [h.text for h in heard if h.name == "delta_received"]
    assert deltas == [f"w{i} " for i in range(20)]
    names = [h.name for h in heard]
    assert names[0] == "changed" and names[1] == "stream_started"
    assert names[-1] == "stream_finished"
    fresh = replay_conversation(store, session.conversation.id)
    assert [(e.id, e.content) for e in fresh.context] == [
        (e.id, e.content) for e in session.state.context
    ]
    assert not session.streaming
    [request] = provider.requests
    assert (request.model, request.messages) == ("mock-gpt", [{"role": "user", "content": "go"}])
    assert reply.data["usage"] == {"input": 5, "output": 7} and provider.closed == 1


def test_a_second_send_and_a_fork_are_refused_while_streaming() -> None:
    store, pause = MemoryStore(), Pause()
    provider = paused_at(5, pause)
    session = make_session(store, provider, Clock())

    async def scenario() -> None:
        first = asyncio.ensure_future(session.send("one"))
        await pause.reached.wait()
        assert session.streaming
        with pytest.raises(UserError, match="already streaming"):
            await session.send("two")
        with pytest.raises(UserError, match="Cannot fork while a reply is streaming"):
            session.fork()
        assert session.stop()
        with pytest.raises(asyncio.CancelledError):
            await first

    asyncio.run(scenario())
    kinds = [(e.kind, e.data.get("interrupted")) for e in store.events(session.conversation.id)]
    assert kinds == [("user", None), ("assistant", True)]
    assert [e.content for e in store.events(session.conversation.id)].count("two") == 0
    assert len(provider.requests) == 1


def test_a_fork_is_refused_while_another_process_streams_here() -> None:
    """Another process (``ikgui run -c``, another window) holds the conversation's send
    lock while its reply grows: ``/fork`` would branch at a reply still growing (issue
    20, item 8), so it is refused as a fork during this session's own stream is."""
    store = MemoryStore()
    session = make_session(store, ScriptedProvider(text_reply("never")), Clock())
    session.append(Kind.USER, "hello")
    conv = session.conversation.id
    elsewhere = store.send_lock(conv)
    assert elsewhere.acquire()
    with pytest.raises(UserError, match="Cannot fork while a reply is streaming"):
        session.fork()
    assert session.conversation.id == conv and store.children(conv) == []
    elsewhere.release()
    session.fork()
    assert session.conversation.parent == conv


def test_stop_keeps_what_arrived() -> None:
    store, pause = MemoryStore(), Pause()
    session = make_session(store, paused_at(10, pause), Clock())

    async def scenario() -> None:
        task = asyncio.ensure_future(session.send("go"))
        await pause.reached.wait()
        session.stop()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    reply = store.events(session.conversation.id)[-1]
    assert reply.kind == Kind.ASSISTANT and reply.data["interrupted"] is True
    assert reply.content == "".join(f"w{i} " for i in range(10))
    assert "streaming" not in reply.data
    assert session.state.context[-1].content == reply.content


def test_switching_away_and_back_mid_stream_shows_all_text_so_far() -> None:
    store, pause = MemoryStore(), Pause()
    session = make_session(store, paused_at(6, pause), Clock())
    session.append(Kind.USER, "elsewhere")
    other = session.conversation.id
    session.new_conversation()

    async def scenario() -> None:
        task = asyncio.ensure_future(session.send("go"))
        await pause.reached.wait()
        [streaming] = session.live_text
        conv = session.conversation.id
        session.open(other)
        session.open(conv)
        saved = store.get_event(streaming)
        assert saved is not None and saved.content == ""  # no save yet: the clock stood still
        shown = session.state.scrollback[-1]
        assert shown.id == streaming and shown.content == "w0 w1 w2 w3 w4 w5 "
        assert shown.content == session.live_text[streaming]()
        session.stop(conv)
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not session.live_text

    asyncio.run(scenario())


def test_a_growing_reply_is_saved_once_per_save_interval() -> None:
    store, clock = MemoryStore(), Clock()
    saved: list[str] = []

    def look() -> None:
        reply = store.events(session.conversation.id)[-1]
        saved.append(f"{reply.content}|{reply.data.get('streaming')}")

    script: list[Step] = [
        TextDelta("a"),
        look,
        lambda: clock.advance(0.75),
        TextDelta("b"),
        look,
        lambda: clock.advance(0.25),
        TextDelta("c"),  # one second after the reply opened: saved
        look,
        lambda: clock.advance(0.5),
        TextDelta("d"),
        look,
        *text_reply("e"),
    ]
    session = make_session(store, ScriptedProvider(script), clock)
    reply = asyncio.run(session.send("go"))
    assert saved == ["|True", "|True", "abc|True", "abc|True"]
    assert reply is not None and reply.content == "abcde" and "streaming" not in reply.data


def test_a_failure_mid_stream_keeps_the_text_and_records_one_error() -> None:
    store = MemoryStore()
    failure = ProviderError("The reply from the server stopped before it was complete.", "cut")
    session = make_session(store, ScriptedProvider([*words(0, 3), failure]), Clock())
    with pytest.raises(ProviderError):
        asyncio.run(session.send("go"))
    events = store.events(session.conversation.id)
    assert [(e.kind, e.content) for e in events] == [
        ("user", "go"),
        ("assistant", "w0 w1 w2 "),
        ("error", failure.message),
    ]
    assert events[1].data["interrupted"] is True and events[2].data["category"] == "cut"
    assert not session.streaming and not session.live_text


def test_a_tool_call_is_logged_after_the_text_and_sent_back_with_the_turn() -> None:
    store = MemoryStore()
    call = ToolCallDelta("call_1", "get_weather", {"city": "Oslo"})
    script: list[Step] = [TextDelta("Let me check."), call, StreamEnd(3, 4, "tool_calls")]
    session = make_session(store, ScriptedProvider(script, text_reply("Sunny.")), Clock())
    asyncio.run(session.send("weather?"))
    events = store.events(session.conversation.id)
    assert [(e.kind, e.content) for e in events] == [
        ("user", "weather?"),
        ("assistant", "Let me check."),
        ("tool_call", 'get_weather({"city": "Oslo"})'),
    ]
    assert events[2].data == {"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}}
    assert events[1].data["finish_reason"] == "tool_calls"
    turn = session.context()[1]
    assert turn["content"] == "Let me check." and turn["tool_calls"][0]["id"] == "call_1"


def test_the_loop_runs_between_storing_the_message_and_asking_the_provider() -> None:
    """A window paints the stored message before the reply's work starts (issue 10
    item 4: the send's first step was one long stall of the window's event loop)."""
    store, provider = MemoryStore(), ScriptedProvider(text_reply("ok"))
    order: list[str] = []

    def factory(name: str) -> ScriptedProvider:
        order.append("provider")
        return provider(name)

    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    session = Session(store, settings, clock=Clock(), provider_factory=factory)

    def on_fact(fact: SessionEvent) -> None:
        if isinstance(fact, Changed) and any(e.kind == Kind.USER for e in fact.events):
            asyncio.get_running_loop().call_soon(order.append, "loop ran")

    session.subscribe(on_fact)
    reply = asyncio.run(session.send("go"))
    assert reply is not None and reply.content == "ok"
    assert order == ["loop ran", "provider"]
