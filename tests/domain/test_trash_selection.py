"""Restore takes a selection (issue 12, item 8): one transaction for the list, those
no longer in the Trash left alone; Empty Trash is ``clean`` of everything trashed."""

from __future__ import annotations

import asyncio

import pytest

from ikgui.domain.errors import UserError
from ikgui.domain.events import Kind
from tests.domain.test_commands import make_session


def test_restore_takes_a_list_and_skips_what_is_back_already() -> None:
    session = make_session()
    ids = []
    for text in ("one", "two", "three"):
        session.new_conversation()
        session.append(Kind.USER, text)
        ids.append(session.conversation.id)
    for conv_id in ids[:2]:
        session.trash(conv_id)
    output = asyncio.run(session.run("restore", conversations=ids))
    assert output == "Restored 2 conversations"
    assert all(session.store.get_conversation(c).trashed_at is None for c in ids)  # type: ignore[union-attr]
    with pytest.raises(UserError, match="not in the Trash"):
        asyncio.run(session.run("restore", conversations=ids[:1]))
    session.trash(ids[2])
    assert asyncio.run(session.run("restore", conversation=ids[2])) == f"Restored {ids[2]}"


def test_empty_trash_removes_every_trashed_conversation() -> None:
    session = make_session()
    ids = []
    for text in ("one", "two", "keep"):
        session.new_conversation()
        session.append(Kind.USER, text)
        ids.append(session.conversation.id)
    for conv_id in ids[:2]:
        session.trash(conv_id)
    removed, refusals = session.library.clean()
    assert sorted(removed) == sorted(ids[:2]) and refusals == []
    assert [session.store.get_conversation(c) for c in ids[:2]] == [None, None]
    assert session.store.get_conversation(ids[2]) is not None
