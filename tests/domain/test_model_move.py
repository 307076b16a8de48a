"""Moving a conversation to another provider and model (issue 20, items 1 and 2): a
conversation with no message yet takes the defaults in force at its first message;
``/model provider/model`` (or the selector's values) moves any conversation, recorded
like ``/model`` so replay, a restart, a clear, a fork and Retry all keep it; and the
selector's groups never put a model under a provider that did not list it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.errors import UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.catalog import (
    LOADING,
    NOT_CONFIGURED,
    UNAVAILABLE,
    Listing,
    ModelGroup,
    model_groups,
    parse_choice,
    shown_model,
)
from ikgui.domain.state.replay import replay_conversation
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply

LISTS = {"ollama": ["llama3.2", "qwen2.5"], "local": ["mock-gpt", "meta/llama-3"]}


class Servers:
    """A provider factory with one scripted server per provider name; it remembers
    which provider each request was built for."""

    def __init__(self) -> None:
        self.servers = {
            name: ScriptedProvider(text_reply(f"{name} says hi"), models=models, name=name)
            for name, models in LISTS.items()
        }
        self.asked: list[str] = []

    def __call__(self, name: str) -> ScriptedProvider:
        self.asked.append(name)
        return self.servers[name]


def settings(default: str = "ollama", model: str | None = None) -> Settings:
    return Settings(
        default_provider=default,
        default_model=model,
        providers={
            "ollama": ProviderSettings("ollama", "ollama", "http://127.0.0.1:9"),
            "local": ProviderSettings("local", "openai", "http://127.0.0.1:8/v1"),
        },
    )


def make_session(store: MemoryStore, servers: Servers, config: Settings | None = None) -> Session:
    return Session(
        store,
        config or settings(),
        registry=default_registry(),
        provider_factory=servers,
        model_lister=lambda name: LISTS.get(name),
    )


def test_a_conversation_with_no_message_takes_the_defaults_in_force_at_its_first() -> None:
    store, servers = MemoryStore(), Servers()
    session = make_session(store, servers)
    session.new_conversation()
    assert session.provider == "ollama"
    # Settings → Providers → add "local", General → Provider = local, OK:
    session.settings = settings(default="local", model="mock-gpt")
    assert (session.provider, session.model) == ("local", "mock-gpt")
    asyncio.run(session.send("hello"))
    assert servers.asked == ["local"]
    assert servers.servers["local"].requests[-1].model == "mock-gpt"
    stored = store.get_conversation(session.conversation.id)
    assert stored is not None and (stored.provider, stored.model) == ("local", "mock-gpt")
    # once it has a message, new settings leave it where it is
    session.settings = settings(default="ollama")
    assert (session.provider, session.model) == ("local", "mock-gpt")


def test_model_provider_slash_model_moves_the_conversation_for_good() -> None:
    store, servers = MemoryStore(), Servers()
    session = make_session(store, servers)
    session.new_conversation()
    asyncio.run(session.send("first"))
    assert servers.asked[-1] == "ollama"
    output = asyncio.run(session.execute("/model local/mock-gpt"))
    assert output == "Switched to model: mock-gpt (local)"
    assert (session.provider, session.model) == ("local", "mock-gpt")
    command = session.state.scrollback[-1]
    assert command.kind == Kind.COMMAND
    assert command.data["command"] == "model" and command.data["input"] == "/model local/mock-gpt"
    assert (command.data["provider"], command.data["model"]) == ("local", "mock-gpt")
    asyncio.run(session.send("second"))
    assert servers.asked[-1] == "local"
    assert servers.servers["local"].requests[-1].model == "mock-gpt"

    # replay and a restart keep it (the fold and the stored fields agree)
    state = replay_conversation(store, session.conversation.id)
    assert (state.provider, state.model) == ("local", "mock-gpt")
    again = make_session(store, servers)
    again.open(session.conversation.id)
    assert (again.provider, again.model) == ("local", "mock-gpt")
    stored = store.get_conversation(session.conversation.id)
    assert stored is not None and (stored.provider, stored.model) == ("local", "mock-gpt")


def test_the_selector_moves_with_values_recorded_as_the_line_would_be() -> None:
    store, servers = MemoryStore(), Servers()
    session = make_session(store, servers)
    session.new_conversation()
    asyncio.run(session.run("model", name="mock-gpt", provider="local"))
    command = store.events(session.conversation.id)[-1]
    assert command.data["input"] == "/model local/mock-gpt"
    assert (session.provider, session.model) == ("local", "mock-gpt")
    with pytest.raises(UserError, match="Unknown provider 'nowhere'"):
        asyncio.run(session.run("model", name="mock-gpt", provider="nowhere"))
    # a model another provider lists is refused under this one
    with pytest.raises(UserError, match=r"Unknown model 'llama3\.2'"):
        asyncio.run(session.run("model", name="llama3.2", provider="local"))
    assert (session.provider, session.model) == ("local", "mock-gpt")


def test_plain_model_names_still_work_slashes_included() -> None:
    store, servers = MemoryStore(), Servers()
    session = make_session(store, servers, settings(default="local"))
    session.new_conversation()
    asyncio.run(session.execute("/model meta/llama-3"))  # a name "local" lists, not a move
    assert (session.provider, session.model) == ("local", "meta/llama-3")
    assert asyncio.run(session.execute("/model mock-gpt")) == "Switched to model: mock-gpt"
    assert session.provider == "local"
    shown = asyncio.run(session.execute("/model"))
    assert shown.splitlines() == [
        "Current model: mock-gpt (local)",
        "Available models: mock-gpt, meta/llama-3",
        "Other providers: ollama (/model PROVIDER/MODEL)",
    ]
    with pytest.raises(UserError, match="Unknown model 'gpt-9' at ollama"):
        asyncio.run(session.execute("/model ollama/gpt-9"))


def test_clear_fork_and_retry_keep_the_move() -> None:
    store, servers = MemoryStore(), Servers()
    session = make_session(store, servers)
    session.new_conversation()
    asyncio.run(session.send("first"))
    asyncio.run(session.execute("/model local/mock-gpt"))
    servers.servers["local"].scripts = [[*text_reply("local again")]]
    reply = asyncio.run(session.send("second"))
    assert reply is not None
    asyncio.run(session.retry(reply.id))
    assert servers.asked[-1] == "local"
    session.clear()  # replay starts at the newest clear: it carries the provider
    state = replay_conversation(store, session.conversation.id)
    assert (state.provider, state.model) == ("local", "mock-gpt")
    parent = session.conversation.id
    child = session.fork()
    assert (child.provider, child.model) == ("local", "mock-gpt")
    assert (session.provider, session.model) == ("local", "mock-gpt")
    session.open(parent)
    assert session.provider == "local"


def test_an_earlier_model_line_replays_with_the_provider_it_recorded() -> None:
    """A ``/model`` event always recorded its provider: replay takes both."""
    store, servers = MemoryStore(), Servers()
    session = make_session(store, servers)
    session.new_conversation()
    session.append(Kind.USER, "hi")
    data = {"command": "model", "input": "/model m", "model": "m", "provider": "ollama"}
    session.append(Kind.COMMAND, "Switched to model: m", data)
    state = replay_conversation(store, session.conversation.id)
    assert (state.provider, state.model) == ("ollama", "m")


# -- what the selector lists ---------------------------------------------------------
def test_groups_put_each_model_under_the_provider_that_listed_it() -> None:
    listings = {
        "ollama": Listing(("llama3.2",)),
        "local": Listing(None, "Could not connect"),
    }
    groups = model_groups(["ollama", "local", "claude"], listings, "ollama", "qwen2.5")
    assert groups == [
        ModelGroup("ollama", ("qwen2.5", "llama3.2")),  # its current model always shows
        ModelGroup("local", (), UNAVAILABLE, "Could not connect"),
        ModelGroup("claude", (), LOADING),
    ]
    # a provider no longer configured still shows the conversation's model, and says so
    moved = model_groups(["local"], {"local": Listing(("mock-mini",))}, "ollama", "llama3.2")
    assert moved == [
        ModelGroup("local", ("mock-mini",)),
        ModelGroup("ollama", ("llama3.2",), NOT_CONFIGURED),
    ]
    assert shown_model({"local": Listing(("a", "b"))}, "local", None) == "a"
    assert shown_model({}, "local", None) is None
    assert shown_model({}, "local", "m") == "m"


def test_parse_choice() -> None:
    config = replace(settings(), providers={**settings().providers})
    assert parse_choice("local/m", config, "ollama", None) == ("local", "m")
    assert parse_choice("meta/llama", config, "ollama", None) == ("ollama", "meta/llama")
    assert parse_choice("local/x", config, "ollama", ["local/x"]) == ("ollama", "local/x")
    assert parse_choice("local/", config, "ollama", None) == ("ollama", "local/")
