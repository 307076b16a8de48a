"""One mutation path (issue 22, item 1): every change of the open conversation goes
through ``OpenConversation.apply``, which folds it once and announces facts that carry
the conversation's fields as stored now, so a view need not read the row again
(item 9: one send reads the conversation's row at most once)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from ikgui.domain.events import Conversation, Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.facts import Changed, Fact
from tests.domain.test_send import Clock, make_session
from tests.support.counting import count_reads
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply


def carried(heard: list[Fact]) -> list[Conversation]:
    return [f.conversation for f in heard if isinstance(f, Changed) and f.conversation is not None]


def test_a_send_reads_the_row_at_most_once_and_its_facts_carry_the_stored_row() -> None:
    store = MemoryStore()
    provider = ScriptedProvider(text_reply("an ", "answer"), text_reply("a ", "second"))
    session = make_session(store, provider, Clock())
    asyncio.run(session.send("first"))
    conv_id = session.conversation.id
    heard: list[Fact] = []
    session.subscribe(heard.append)
    reads = count_reads(store)

    asyncio.run(session.send("second"))

    assert reads.of(conv_id) <= 1
    facts = [f for f in heard if isinstance(f, Changed) and f.events]
    assert facts and all(f.conversation is not None for f in facts)
    last = carried(heard)[-1]
    stored = store.get_conversation(conv_id)
    assert stored is not None
    # the reply's usage is counted after its last fact (as the sidebar read it before)
    usage = {"tokens_input": 0, "tokens_output": 0, "cost": 0.0}
    assert dataclasses.replace(last, **usage) == dataclasses.replace(stored, **usage)
    assert last.message_count == 4


def test_a_new_conversation_is_carried_once_stored() -> None:
    store = MemoryStore()
    session = Session(store)
    heard: list[Fact] = []
    session.subscribe(heard.append)
    session.append(Kind.USER, "a first message titles it")
    (fact,) = [f for f in heard if isinstance(f, Changed)]
    assert fact.aspects == {"events", "title"}
    assert fact.conversation == store.get_conversation(session.conversation.id)
    assert fact.conversation is not None and fact.conversation.title


def test_a_field_change_carries_the_new_fields() -> None:
    store = MemoryStore()
    session = Session(store)
    session.append(Kind.USER, "hello")
    heard: list[Fact] = []
    session.subscribe(heard.append)
    session.update_fields(title="Renamed")
    (fact,) = heard
    assert isinstance(fact, Changed) and fact.aspects == {"title"}
    assert fact.conversation == store.get_conversation(session.conversation.id)


def test_the_conversation_is_a_frozen_value() -> None:
    conv = Conversation("c1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        conv.id = "c2"  # type: ignore[misc]
