"""A window's providers share one HTTP client across sends (issue 10 item 4: building a
client at every send held up the event loop), against the real wire server and a real
SQLite file: two sends, one client, still open between them, closed by ``aclose``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from ikgui.app.wiring import Providers
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.providers import HTTPProvider
from ikgui.storage import open_store
from tests.cli.test_run import sse
from tests.support.wire_server import Reply, WireServer


def _reply(*words: str) -> Reply:
    parts = sse(*words).split(b"\n\n")
    return Reply(
        chunks=tuple(p + b"\n\n" for p in parts if p),
        headers=(("content-type", "text/event-stream"),),
    )


def _counting_clients(monkeypatch: pytest.MonkeyPatch) -> list[httpx.AsyncClient]:
    built: list[httpx.AsyncClient] = []
    real = HTTPProvider.new_client

    def new_client(self: HTTPProvider) -> httpx.AsyncClient:
        client = real(self)
        built.append(client)
        return client

    monkeypatch.setattr(HTTPProvider, "new_client", new_client)
    return built


def _settings(server: WireServer) -> Settings:
    settings = Settings(default_provider="local", default_model="mock-gpt")
    settings.providers["local"] = ProviderSettings("local", "openai", f"{server.url}/v1")
    return settings


def test_two_sends_share_one_client_until_the_providers_close(
    tmp_path: Path, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire_server.route("/v1/chat/completions", _reply("Hello ", "there."))
    built = _counting_clients(monkeypatch)
    settings = _settings(wire_server)
    providers = Providers(settings, keep_clients=True)

    async def two_sends(session: Session) -> None:
        first = await session.send("one")
        assert first is not None and first.content == "Hello there."
        assert len(built) == 1 and not built[0].is_closed  # kept for the next send
        second = await session.send("two")
        assert second is not None and second.content == "Hello there."
        assert len(built) == 1  # the same client answered
        await providers.aclose()
        assert built[0].is_closed

    with open_store(tmp_path / "ikgui.db") as store:
        asyncio.run(two_sends(Session(store, settings, provider_factory=providers)))
    assert len(wire_server.bodies()) == 2


def test_without_keep_clients_each_send_builds_and_closes_its_own(
    tmp_path: Path, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line (one send per process) keeps the old behaviour."""
    wire_server.route("/v1/chat/completions", _reply("Hi."))
    built = _counting_clients(monkeypatch)
    settings = _settings(wire_server)

    async def two_sends(session: Session) -> None:
        await session.send("one")
        await session.send("two")

    with open_store(tmp_path / "ikgui.db") as store:
        asyncio.run(two_sends(Session(store, settings, provider_factory=Providers(settings))))
    assert len(built) == 2 and all(c.is_closed for c in built)


def test_a_new_event_loop_gets_a_new_client(
    wire_server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client belongs to the loop it first ran on: another loop never reuses it."""
    wire_server.route("/v1/chat/completions", _reply("Hi."))
    built = _counting_clients(monkeypatch)
    providers = Providers(_settings(wire_server), keep_clients=True)

    async def models() -> list[str]:
        provider = providers("local")
        try:
            return await provider.list_models()
        finally:
            await provider.aclose()

    async def twice_then_close() -> None:
        await models()
        await models()
        await providers.aclose()

    asyncio.run(twice_then_close())
    asyncio.run(twice_then_close())
    assert len(built) == 2 and all(c.is_closed for c in built)
