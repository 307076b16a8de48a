"""A window's PostgreSQL store never holds the caller's thread for a server that does
not answer (issue 22 item 4): with ``answer_within``, a call first asks the database
thread (a ping, queued behind the saves sent there) and gives up after its bound with
``DatabaseUnreachable``, which the window takes as "away"; the command line's store
(without it) waits as long as it takes."""

from __future__ import annotations

import pytest

from ikgui.domain.errors import DatabaseUnreachable
from ikgui.storage import connection, open_store
from tests.support.pg_server import PgServer, stopped

#: Only a guard: a call that waited for the stopped server would otherwise wait forever.


def test_a_call_gives_up_on_a_stopped_server_and_goes_on_once_it_answers(
    pg_server: PgServer, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection, "HEARD_SECONDS", 0.0)  # every call pings first
    with open_store(pg_url) as store:
        store.answer_within(0.05)
        assert store.list_conversations(10) == []
        with stopped(pg_server) as still:
            with pytest.raises(DatabaseUnreachable, match="does not answer"):
                store.list_conversations(10)
            assert store.unanswered_for() > 0  # the ping waits for the server
            # Stuck: the next call does not even queue behind it.
            with pytest.raises(DatabaseUnreachable):
                store.get_conversation("nope")
            assert still.is_set(), "the call waited for the stopped server"
        store.settle()
        assert store.unanswered_for() == 0
        assert store.list_conversations(10) == []
