"""Structured commands (issue 9): ``Registry.run(name, **arguments)`` beside the line
parser, each command's "can it act now?" rule and toolbar presentation, and a send
that never parses (the Retry / ``//`` bug)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ikgui.domain.commands.handlers import TOOLBAR, default_registry
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.facts import Changed, Fact
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def make_session(provider: ScriptedProvider | None = None) -> Session:
    settings = Settings(default_provider="local", default_model="mock-gpt")
    if provider is not None:
        settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return Session(
        MemoryStore(),
        settings,
        registry=default_registry(),
        provider_factory=provider,
        model_lister=lambda provider: ["mock-gpt", "m2"],
    )


def test_a_stored_slash_message_is_resent_as_text_not_run() -> None:
    """Typed as ``//help``, stored as ``/help``: Retry must send ``/help`` again, not
    run the /help command (the window's Retry sent the stored text through the parser)."""
    provider = ScriptedProvider(text_reply("ok"))
    session = make_session(provider)
    asyncio.run(session.execute("//help"))
    (first,) = [e for e in session.state.scrollback if e.kind == Kind.USER]
    assert first.content == "/help"
    asyncio.run(session.resend(first.content))
    asyncio.run(session.run("send", text=first.content))
    users = [e.content for e in session.state.scrollback if e.kind == Kind.USER]
    assert users == ["/help", "/help", "/help"]
    assert not [e for e in session.state.scrollback if e.kind == Kind.COMMAND]
    assert provider.requests[-1].messages[-1]["content"] == "/help"


def test_run_with_values_acts_and_records_as_the_slash_line_did() -> None:
    by_line, by_value = make_session(), make_session()
    for session in (by_line, by_value):
        session.append(Kind.USER, "hi")
    asyncio.run(by_line.execute("/model m2"))
    asyncio.run(by_value.run("model", name="m2"))
    for session in (by_line, by_value):
        (command,) = [e for e in session.state.scrollback if e.kind == Kind.COMMAND]
        assert command.data["input"] == "/model m2" and session.model == "m2"
    with pytest.raises(UserError, match="Unknown model"):
        asyncio.run(by_value.run("model", name="/help"))  # a value is never parsed


def test_rewind_takes_a_marks_event_id_no_side_door() -> None:
    session = make_session()
    session.append(Kind.USER, "one")
    older = session.mark("same")
    session.append(Kind.USER, "two")
    session.mark("same")
    session.append(Kind.USER, "three")
    output = asyncio.run(session.run("rewind", mark=older.id))
    assert output == "Rewound to same"
    assert [e.content for e in session.state.context] == ["one"]
    with pytest.raises(UserError, match="Mark not found"):
        asyncio.run(session.run("rewind", mark=10_000))


def test_each_command_says_when_it_can_act() -> None:
    session = make_session()
    assert session.can_run("new") and session.can_run("mark")
    for name in ("fork", "clear", "rewind", "export", "stop", "rename", "trash", "kill"):
        assert not session.can_run(name), name
    session.append(Kind.USER, "hi")
    assert session.can_run("fork") and session.can_run("clear") and session.can_run("export")
    assert not session.can_run("rewind") and not session.can_run("nonsense")
    session.mark(None)
    assert session.can_run("rewind")


def test_toolbar_actions_come_from_the_registry() -> None:
    registry = default_registry()
    actions = registry.actions()
    assert [c.name for c in actions] == list(TOOLBAR)
    mark = registry.get("mark")
    assert mark is not None and mark.action is not None
    assert (mark.action.object_name, mark.action.label, mark.action.shortcut) == (
        "actionMark",
        "Mark",
        "Ctrl+M",
    )


def test_value_only_commands_are_not_slash_commands() -> None:
    session = make_session()
    names = [c.name for c in session.registry]
    assert "send" not in names and "trash" not in names and "help" in names
    assert "/send" not in session.registry.help_text()
    with pytest.raises(UsageError, match="Unknown command 'send'"):
        asyncio.run(session.execute("/send hi"))
    with pytest.raises(UsageError, match="Unknown command"):
        asyncio.run(session.run("nonsense"))


def test_library_commands_act_on_any_conversation() -> None:
    session = make_session()
    session.append(Kind.USER, "first")
    other = session.conversation.id
    session.new_conversation()
    asyncio.run(session.run("rename", conversation=other, title="  a   b "))
    asyncio.run(session.run("set_tags", conversation=other, tags=["#X", "y"]))
    conv = session.store.get_conversation(other)
    assert conv is not None and conv.title == "a b" and conv.tags == ("x", "y")
    asyncio.run(session.run("trash", conversation=other))
    asyncio.run(session.run("restore", conversation=other))
    restored = session.store.get_conversation(other)
    assert restored is not None and restored.trashed_at is None


def test_title_and_rename_follow_one_title_rule() -> None:
    session = make_session()
    session.append(Kind.USER, "hi")
    asyncio.run(session.execute('/title "  my   title "'))
    assert session.conversation.title == "my title"
    asyncio.run(session.run("rename", conversation=session.conversation.id, title=" x  y"))
    assert session.conversation.title == "x y"


def test_the_library_exports_imports_and_cleans_any_conversation(tmp_path: Path) -> None:
    session = make_session()
    session.append(Kind.USER, "keep me")
    conv_id = session.conversation.id
    heard: list[Fact] = []
    session.subscribe(heard.append)
    path = session.library.export(conv_id, "json", tmp_path / "c.json")
    result = session.library.import_document(json.loads(path.read_text(encoding="utf-8")))
    (copy,) = result.ids
    assert copy != conv_id and Changed(copy, aspects=frozenset({"listed"})) in heard
    session.library.trash(copy)
    removed, refusals = session.library.clean()
    assert removed == [copy] and not refusals
    assert Changed(copy, aspects=frozenset({"listed"})) in heard[-1:]


def test_tag_changes_apply_to_the_tags_as_stored_now() -> None:
    """``/tag +c`` keeps a tag another program added since the session read the tags."""
    store = MemoryStore()
    session = Session(store, registry=default_registry())
    asyncio.run(session.execute("/tag +a"))
    store.set_tags(session.conversation.id, ["a", "b"])  # another program, meanwhile
    output = asyncio.run(session.execute("/tag +c -a"))
    assert output == "Tags: b, c"
    stored = store.get_conversation(session.conversation.id)
    assert stored is not None and stored.tags == ("b", "c")
    assert session.conversation.tags == ("b", "c")
