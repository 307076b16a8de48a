"""Sending files with a message through a real store (SPEC §13): SQLite and PostgreSQL.
The user event and its files are written in one transaction; each later request reads
the files' bytes from the store in a worker thread (a PostgreSQL connection of its own
there); a fork and "edit and resend" send the parent's files from the child."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from ikgui.domain.attachments import Attachment, AttachmentError, StoredFile, listed
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.replay import replay_conversation
from ikgui.storage import PeeweeStore
from tests.support import sample_files
from tests.support.scripted import ScriptedProvider, text_reply

STORES = ("sqlite", "postgresql")


def a_file(name: str, content: bytes, mime: str, text: str | None = None) -> StoredFile:
    sha = hashlib.sha256(content).hexdigest()
    return StoredFile(Attachment(sha, name, mime, len(content)), content, text)


SHOT = a_file("shot.png", sample_files.png(20, 20), "image/png")
NOTES = a_file("notes.md", b"# zeppelin budget\n", "text/markdown", "# zeppelin budget\n")


def session_on(store: PeeweeStore) -> tuple[Session, ScriptedProvider]:
    provider = ScriptedProvider(text_reply("seen"))
    settings = Settings(default_provider="local", default_model="vision")
    settings.providers["local"] = ProviderSettings("local", "openai", provider.base_url)
    return Session(store, settings, provider_factory=provider), provider


def user_files(provider: ScriptedProvider) -> list[list[object]]:
    return [m.get("files", []) for m in provider.requests[-1].messages if m["role"] == "user"]


def test_files_are_stored_with_the_message_and_read_back_at_each_send(
    store: PeeweeStore,
) -> None:
    session, provider = session_on(store)
    asyncio.run(session.send("what is this?", [SHOT, NOTES]))
    conv = session.conversation.id
    fresh = replay_conversation(store, conv)
    [user] = [e for e in fresh.context if e.kind == Kind.USER]
    assert listed(user.data) == [SHOT.attachment, NOTES.attachment]
    assert store.read_files([SHOT.sha256, NOTES.sha256]) == {
        SHOT.sha256: SHOT,
        NOTES.sha256: NOTES,
    }
    asyncio.run(session.send("and now?"))
    assert user_files(provider) == [[SHOT, NOTES], []]
    # A file by reference is one the store has; another is refused before any write.
    asyncio.run(session.send("the same image", [SHOT.attachment]))
    stranger = a_file("other.png", b"\x89PNG other", "image/png").attachment
    events = len(replay_conversation(store, conv).context)
    with pytest.raises(AttachmentError, match=r"^other\.png is no longer stored"):
        asyncio.run(session.send("this one", [stranger]))
    assert len(replay_conversation(store, conv).context) == events


def test_a_fork_and_an_edit_send_the_parents_files(store: PeeweeStore) -> None:
    session, provider = session_on(store)
    asyncio.run(session.send("look", [SHOT]))
    parent = session.conversation.id
    user, reply = [e for e in session.state.context if e.kind in (Kind.USER, Kind.ASSISTANT)]
    session.fork(reply.id)
    asyncio.run(session.send("more"))
    assert user_files(provider) == [[SHOT], []]
    session.open(parent)
    asyncio.run(session.edit_and_resend(user.id, "look again"))
    assert session.conversation.id not in (parent,)
    assert user_files(provider) == [[SHOT]]
    # Reopened from the store, the edited message still lists its file.
    edited = [e for e in replay_conversation(store, session.conversation.id).context][-2]
    assert (edited.content, listed(edited.data)) == ("look again", [SHOT.attachment])
