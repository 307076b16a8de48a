"""Why each branch was made (issue 25, SPEC §14): the fork events and the row say it,
on SQLite and PostgreSQL, through export/import and ``db copy``."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ikgui.domain.events import Kind
from ikgui.domain.library.exchange import export_json
from ikgui.domain.library.importing import import_document
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.storage import PeeweeStore, open_store
from ikgui.storage.copy import copy_history
from tests.storage.conftest import BOTH
from tests.support.scripted import ScriptedProvider, text_reply

STORES = BOTH


def session_on(store: PeeweeStore) -> Session:
    provider = ScriptedProvider(text_reply("one"), text_reply("two"), text_reply("three"))
    settings = Settings(default_provider="local", default_model="m")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return Session(store, settings, provider_factory=provider)


def fork_reasons(store: PeeweeStore, conv_id: str) -> list[tuple[str, str | None]]:
    return [
        (e.data.get("role"), e.data.get("reason"))
        for e in store.events(conv_id)
        if e.kind == Kind.FORK
    ]


def family(store: PeeweeStore) -> dict[str, str | None]:
    """Each branch's reason, by its first message's text (ids differ after an import)."""
    return {
        (c.title or ""): c.branch_reason for c in store.list_conversations() if c.parent is not None
    }


def test_each_way_of_branching_records_its_reason(store: PeeweeStore, tmp_path: Path) -> None:
    session = session_on(store)
    asyncio.run(session.send("first question"))
    root = session.conversation.id
    user = next(e for e in session.state.context if e.kind == Kind.USER)
    asyncio.run(session.send("second question"))
    # Retry of an earlier reply forks after its message; Edit and resend forks before it.
    retry = asyncio.run(session.retry(user.id))
    assert retry is not None
    retried = session.conversation
    session.open(root)
    asyncio.run(session.edit_and_resend(user.id, "first question, edited"))
    edited = session.conversation
    session.open(root)
    forked = session.fork(prompt="another way")
    assert (retried.branch_reason, edited.branch_reason) == ("retry", "edit")
    assert forked.branch_reason == "fork"
    assert store.get_conversation(root).branch_reason is None  # type: ignore[union-attr]
    for child, reason in ((retried, "retry"), (edited, "edit"), (forked, "fork")):
        assert store.get_conversation(child.id).branch_reason == reason  # type: ignore[union-attr]
        assert fork_reasons(store, child.id) == [("child", reason)]
    parent_side = [("parent", "retry"), ("parent", "edit"), ("parent", "fork")]
    assert fork_reasons(store, root) == parent_side

    # Exported and imported, every branch keeps its reason.
    document = export_json(store, [root, retried.id, edited.id, forked.id])
    reasons = {c["branch_reason"] for c in document["conversations"]}
    assert reasons == {None, "retry", "edit", "fork"}
    other = open_store(tmp_path / "other.db")
    try:
        import_document(other, document, now=1.0)
        assert sorted(family(other).values()) == ["edit", "fork", "retry"]
    finally:
        other.close()


def test_db_copy_keeps_the_reason(store: PeeweeStore, tmp_path: Path) -> None:
    session = session_on(store)
    asyncio.run(session.send("first question"))
    session.fork(reason="compare")
    dest = open_store(tmp_path / "copy.db")
    try:
        copy_history(store.database, dest.database, dest_kind="sqlite")
        assert list(family(dest).values()) == ["compare"]
    finally:
        dest.close()


def test_an_older_branch_and_an_unknown_reason_read_as_forks(store: PeeweeStore) -> None:
    session = session_on(store)
    session.append(Kind.USER, "root")
    root = session.conversation.id
    session.fork()
    document = export_json(store, [root, session.conversation.id])
    for conv in document["conversations"]:
        conv.pop("branch_reason")
    document["conversations"][1]["branch_reason"] = None
    import_document(store, document, now=1.0)
    reasons = [c.branch_reason for c in store.list_conversations() if c.parent is not None]
    assert reasons == ["fork", "fork"]


def test_a_choice_replays_and_counts_alike_on_both_stores(store: PeeweeStore) -> None:
    from ikgui.domain.state.replay import replay_conversation

    session = session_on(store)
    asyncio.run(session.send("question"))
    asyncio.run(session.retry(session.state.context[-1].id))
    newest = session.state.context[-1]
    session.switch_alternative(session.alternatives()[newest.id], 0)
    conv = session.conversation.id
    fresh = replay_conversation(store, conv)
    assert [e.content for e in fresh.context] == ["question", "one"]
    assert fresh.retry_alternatives() == session.state.retry_alternatives()
    assert store.context_counts([conv]) == {conv: 2}


def test_an_imported_conversation_keeps_its_choice(store: PeeweeStore, tmp_path: Path) -> None:
    from ikgui.domain.state.replay import replay_conversation

    session = session_on(store)
    asyncio.run(session.send("question"))
    asyncio.run(session.retry(session.state.context[-1].id))
    newest = session.state.context[-1]
    session.switch_alternative(session.alternatives()[newest.id], 0)
    document = export_json(store, [session.conversation.id])
    other = open_store(tmp_path / "imported.db")
    try:
        [new_id] = import_document(other, document, now=1.0).ids
        fresh = replay_conversation(other, new_id)
        assert [e.content for e in fresh.context] == ["question", "one"]
        [found] = fresh.retry_alternatives().values()
        assert found.label == "1/2"
        assert other.context_counts([new_id]) == {new_id: 2}
    finally:
        other.close()
