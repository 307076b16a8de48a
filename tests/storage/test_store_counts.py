"""The counts behind the window's transcript and sidebar (issue 10 item 1), on both
stores: how many items a cleared group holds (``count_shown``, no event read) and how
many of a conversation's messages are still in its context (``context_counts``). Each
is checked against the domain's own fold, so the query cannot drift from replay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ikgui.domain.events import Conversation, Kind
from ikgui.domain.ports import Store
from ikgui.domain.reading import shown
from ikgui.domain.replay import replay_conversation
from ikgui.domain.session import Session
from tests.storage.conftest import open_kind
from tests.support.memstore import MemoryStore


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def either(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    with open_kind(request.param, request, tmp_path / "ikgui.db") as real:
        yield real


def _add(store: Store, conv_id: str) -> None:
    store.insert_conversation(Conversation(id=conv_id, created_at=1.0, updated_at=1.0))


def test_count_shown_counts_what_a_reader_sees(either: Store) -> None:
    _add(either, "chat-aaaa")
    _add(either, "chat-bbbb")
    first = either.append_event("chat-aaaa", "user", "q")
    either.append_event("chat-aaaa", "assistant", "", {"failed": True, "interrupted": True})
    either.append_event("chat-aaaa", "error", "cut", {"category": "cut"})
    either.append_event("chat-bbbb", "user", "elsewhere")
    either.append_event("chat-aaaa", "retry", "", {"target_event_id": first.id})
    either.append_event("chat-aaaa", "assistant", "", {"interrupted": True})  # (stopped)
    either.append_event("chat-aaaa", "mark", "", {"label": None})
    either.append_event("chat-aaaa", "assistant", "", {"failed": False})
    last = either.append_event("chat-aaaa", "clear").id
    events = either.events("chat-aaaa")
    assert either.count_shown("chat-aaaa", 0, last) == sum(map(shown, events)) == 5
    assert either.count_shown("chat-aaaa", first.id, last) == 4
    assert either.count_shown("chat-aaaa", 0, first.id) == 1


def test_context_counts_match_the_fold(either: Store) -> None:
    session = Session(either)
    session.append(Kind.USER, "old")
    session.clear()
    session.append(Kind.USER, "one")
    session.append(Kind.ASSISTANT, "two")
    session.mark("m")
    session.append(Kind.USER, "three")
    session.append(Kind.ASSISTANT, "")  # empty: not a message
    session.rewind("m")
    user = session.append(Kind.USER, "four")
    session.append(Kind.ASSISTANT, "failed half")
    session.append(Kind.RETRY, "", {"target_event_id": user.id})
    session.append(Kind.ASSISTANT, "five")
    conv_id = session.conversation.id
    context = replay_conversation(either, conv_id).context
    in_context = [e for e in context if e.kind == Kind.USER or e.content]
    assert len(in_context) == 4
    assert either.context_counts([conv_id, "chat-none"]) == {conv_id: 4, "chat-none": 0}
    conv = either.get_conversation(conv_id)
    assert conv is not None and conv.message_count == 7
