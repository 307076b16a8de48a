"""``conv show --json`` lists each item's alternatives and ``conv context`` follows the
chosen one (issue 25 item 1), read from the SQLite file by a new process."""

from __future__ import annotations

import asyncio

from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.storage import open_store
from tests.cli.conftest import Cli
from tests.support.scripted import ScriptedProvider, text_reply


def test_show_lists_alternatives_and_context_follows_the_choice(cli: Cli) -> None:
    cli.ok("conv", "list")  # the database is made where the command line looks
    provider = ScriptedProvider(text_reply("first"), text_reply("second"))
    settings = Settings(default_provider="local", default_model="m")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    with open_store(cli.home / "ikgui.db") as store:
        session = Session(store, settings, provider_factory=provider)
        asyncio.run(session.send("question"))
        asyncio.run(session.retry(session.state.context[-1].id))
        second = session.state.context[-1]
        session.switch_alternative(session.alternatives()[second.id], 0)
        first = session.state.context[-1]
        conv = session.conversation.id

    shown = cli.process("conv", "show", conv, "--json")
    assert shown.code == 0, shown.err
    items = shown.json["scrollback"]
    assert [i["content"] for i in items] == ["question", "first"]
    assert items[1]["alternatives"] == [
        {"index": 1, "chosen": True, "conversation": conv, "event_id": first.id},
        {"index": 2, "chosen": False, "conversation": conv, "event_id": second.id},
    ]
    assert "alternatives" not in items[0]
    context = cli.process("conv", "context", conv, "--json").json["messages"]
    assert [m["content"] for m in context] == ["question", "first"]
