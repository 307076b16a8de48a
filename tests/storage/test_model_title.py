"""Titles from the model (issue 12 item 7), on a real SQLite file against the real wire
server: with ``auto_title = "model"`` the first reply is followed by one small title
request whose answer becomes the title (never a message); a failure leaves the first
words; a title the user gives — before or while the request runs — wins."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ikgui.app.wiring import Providers
from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import Kind
from ikgui.domain.session.model_title import TITLE_PROMPT, clean_title
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.storage import open_store
from ikgui.storage.repository import SqliteStore
from tests.cli.test_run import sse
from tests.storage.test_pending_writes import make_session
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import ReceivedRequest, Reply, WireServer

__all__ = ["wire_server", "wire_server_session"]

QUESTION = "Could you explain how to mix oil paints for skin tones in a portrait?"


def _stream(*pieces: str, pause: float = 0.0) -> Reply:
    parts = sse(*pieces).split(b"\n\n")
    return Reply(
        chunks=tuple(p + b"\n\n" for p in parts if p),
        headers=(("content-type", "text/event-stream"),),
        pause=pause,
    )


def _route(server: WireServer, title: Reply) -> None:
    def answer(request: ReceivedRequest) -> Reply:
        messages = request.json()["messages"]
        asks_title = messages and messages[0].get("content") == TITLE_PROMPT
        return title if asks_title else _stream("Start with ", "burnt sienna.")

    server.route("/v1/chat/completions", answer)


def _titled(store: SqliteStore, server: WireServer) -> Session:
    settings = Settings(default_provider="local", default_model="mock-gpt")
    url = f"{server.url}/v1"
    settings.providers["local"] = ProviderSettings("local", "openai", url, auto_title="model")
    factory = Providers(settings)
    return Session(store, settings, registry=default_registry(), provider_factory=factory)


def _title_requests(server: WireServer) -> list[dict[str, object]]:
    return [b for b in server.bodies() if b["messages"][0].get("content") == TITLE_PROMPT]


def test_the_model_titles_a_conversation_after_its_first_reply(
    tmp_path: Path, wire_server: WireServer
) -> None:
    _route(wire_server, _stream('"Mixing Skin ', 'Tones in Oils."'))
    with open_store(tmp_path / "ikgui.db") as store:
        session = _titled(store, wire_server)
        asyncio.run(session.send(QUESTION))
        conv_id = session.conversation.id
        assert store.get_conversation(conv_id).title == "Mixing Skin Tones in Oils"  # type: ignore[union-attr]
        assert session.conversation.title == "Mixing Skin Tones in Oils"
        assert not store.get_conversation(conv_id).title_by_user  # type: ignore[union-attr]
        [asked] = _title_requests(wire_server)
        assert QUESTION in str(asked["messages"][1]) and "burnt sienna" in str(asked)
        # never stored as a message
        kinds = [e.kind for e in store.events(conv_id)]
        assert kinds == [Kind.USER, Kind.ASSISTANT]
        # the second reply asks for no title
        asyncio.run(session.send("And for the shadows?"))
        assert len(_title_requests(wire_server)) == 1
        assert len(wire_server.bodies()) == 3


def test_without_the_setting_the_first_words_stay(tmp_path: Path, wire_server: WireServer) -> None:
    _route(wire_server, _stream("Never asked"))
    with open_store(tmp_path / "ikgui.db") as store:
        session = make_session(store, wire_server)
        asyncio.run(session.send(QUESTION))
        assert session.conversation.title == QUESTION[:50] + "..."
        assert _title_requests(wire_server) == [] and len(wire_server.bodies()) == 1


def test_a_failed_title_request_is_ignored(tmp_path: Path, wire_server: WireServer) -> None:
    for failure in (Reply.error(400, "no titles here"), _stream("")):
        wire_server.reset()
        _route(wire_server, failure)
        with open_store(tmp_path / f"ikgui-{len(failure.pieces())}.db") as store:
            session = _titled(store, wire_server)
            reply = asyncio.run(session.send(QUESTION))
            assert reply is not None and reply.content == "Start with burnt sienna."
            conv_id = session.conversation.id
            assert store.get_conversation(conv_id).title == QUESTION[:50] + "..."  # type: ignore[union-attr]
            assert [e.kind for e in store.events(conv_id)] == [Kind.USER, Kind.ASSISTANT]
            assert len(_title_requests(wire_server)) == 1


def test_a_users_title_wins_over_the_models(tmp_path: Path, wire_server: WireServer) -> None:
    _route(wire_server, _stream("Model", " title", pause=0.2))
    with open_store(tmp_path / "ikgui.db") as store:
        session = _titled(store, wire_server)

        async def rename_while_asking() -> None:
            sending = asyncio.create_task(session.send(QUESTION))
            while not _title_requests(wire_server):
                await asyncio.sleep(0.01)
            session.rename(session.conversation.id, "My own title")
            await sending

        asyncio.run(rename_while_asking())
        assert store.get_conversation(session.conversation.id).title == "My own title"  # type: ignore[union-attr]

        # a title given before the first reply: no request at all
        wire_server.reset()
        _route(wire_server, _stream("Model title"))
        session.new_conversation()
        asyncio.run(session.execute("/title Chosen first"))
        asyncio.run(session.send(QUESTION))
        assert session.conversation.title == "Chosen first"
        assert _title_requests(wire_server) == []


def test_clean_title() -> None:
    assert clean_title('  "Title: Oil Paint Basics."\nmore') == "Oil Paint Basics"
    assert clean_title("**Skin tones**") == "Skin tones"
    assert clean_title("   \n ") is None
    assert clean_title("x" * 80) == "x" * 50 + "..."
