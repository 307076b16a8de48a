"""The counts the views show (issue 22 item 2), as :mod:`ikgui.domain.state.tally` computes
them next to the fold: step by step over hand-made logs, and against the fold itself
on the logs a session writes (the one place the two rules meet, both in the domain)."""

from __future__ import annotations

from ikgui.domain.events import Event, Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.replay import replay, replay_conversation
from ikgui.domain.state.tally import Tally, after, carried, grown, is_message
from tests.domain.test_replay import Log
from tests.support.memstore import MemoryStore


def _run(events: list[Event]) -> list[Tally]:
    stored: dict[int, tuple[str, Tally]] = {}
    now, seen = Tally(), []
    for event in events:
        now = after(now, event, stored.get)
        stored[event.id] = (event.kind, now)
        seen.append(now)
    return seen


def _in_context(events: list[Event]) -> int:
    return sum(is_message(e.kind, e.content) for e in replay([events]).context)


def test_messages_are_user_messages_and_replies_with_text() -> None:
    assert is_message("user", "") and is_message("assistant", "hi")
    assert not is_message("assistant", "") and not is_message("system", "be brief")
    assert not is_message("command", "/model x") and not is_message("mark", "")
    assert grown("assistant", "", "first words") == 1 and grown("assistant", "a", "ab") == 0
    assert grown("user", "", "x") == 0


def test_each_step_follows_the_fold() -> None:
    e = Log()
    q1 = e("user", "one")
    mark = e("mark", "", {"label": "m"})
    q2 = e("user", "two")
    events = [
        q1,
        e("assistant", "1"),
        mark,
        q2,
        e("assistant", ""),  # empty: not a message
        e("rewind", "", {"target_event_id": mark.id}),
        e("user", "three"),
        e("retry", "", {"target_event_id": q1.id}),
        e("assistant", "again"),
        e("rewind", "", {"target_event_id": 999}),  # not a mark: skipped
        e("retry", "", {"target_event_id": mark.id}),  # not a user message: skipped
        e("rewind", "", {"target_event_id": "m"}),  # malformed: skipped
        e("clear"),
        e("user", "after"),
    ]
    tallies = _run(events)
    for n in range(1, len(events) + 1):
        assert tallies[n - 1].context == _in_context(events[:n]), events[n - 1]
    assert [t.messages for t in tallies][-1] == 6
    assert tallies[-1] == Tally(6, 1)


def test_a_retry_of_a_carried_message_takes_the_forks_own_out() -> None:
    e = Log()
    own = [e("user", "own", conv="chat-bbbb"), e("assistant", "x", conv="chat-bbbb")]
    retry = e("retry", "", {"target_event_id": 0}, conv="chat-bbbb")  # in the parent
    assert _run([*own, retry])[-1] == Tally(2, 0)


def test_a_fork_carries_its_ancestors_messages_up_to_the_lowest_fork_point() -> None:
    forks = {"root": (None, None), "a": ("root", 10), "b": ("a", 20), "c": ("b", 5)}
    upto = {("root", 10): 3, ("a", 20): 2, ("root", 5): 1, ("a", 5): 0, ("b", 5): 0}
    count = lambda conv, bound: upto[(conv, bound)]  # noqa: E731
    assert carried("root", forks.__getitem__, count) == 0
    assert carried("a", forks.__getitem__, count) == 3
    assert carried("b", forks.__getitem__, count) == 5
    assert carried("c", forks.__getitem__, count) == 1  # b's, a's and root's up to 5


def test_what_a_session_writes_is_counted_as_its_fold_keeps_it() -> None:
    store = MemoryStore()
    session = Session(store)

    def check() -> None:
        conv_id = session.conversation.id
        own = [
            e for e in replay_conversation(store, conv_id).context if e.conversation_id == conv_id
        ]
        assert store.context_counts([conv_id]) == {
            conv_id: sum(is_message(e.kind, e.content) for e in own)
        }

    session.append(Kind.USER, "old")
    session.clear()
    check()
    session.append(Kind.USER, "one")
    session.append(Kind.ASSISTANT, "two")
    session.mark("m")
    session.append(Kind.USER, "three")
    session.append(Kind.ASSISTANT, "")
    check()
    session.rewind("m")
    check()
    user = session.append(Kind.USER, "four")
    reply = session.append(Kind.ASSISTANT, "")
    session.update_event(reply, "grew", {})
    check()
    session.append(Kind.RETRY, "", {"target_event_id": user.id})
    session.append(Kind.ASSISTANT, "five")
    check()
    session.fork()
    session.append(Kind.USER, "own")
    check()
