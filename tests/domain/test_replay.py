"""The replay fold (SPEC §4), table-driven over hand-made event lists."""

from __future__ import annotations

from typing import Any

from ikgui.domain.events import Event
from ikgui.domain.library.listing import describe
from ikgui.domain.state.replay import replay


class Log:
    """Builds events with increasing ids, as the store would."""

    def __init__(self) -> None:
        self.next_id = 1

    def __call__(
        self,
        kind: str,
        content: str = "",
        data: dict[str, Any] | None = None,
        conv: str = "chat-aaaa",
        raw: str | None = None,
    ) -> Event:
        event = Event(self.next_id, conv, kind, content, data, 0.0, raw_data=raw)
        self.next_id += 1
        return event


def texts(events: list[Event]) -> list[str]:
    return [describe(e) for e in events]


def test_conversation_kinds_go_to_context_and_scrollback() -> None:
    e = Log()
    events = [
        e("system", "be brief"),
        e("user", "hi"),
        e("assistant", "hello"),
        e("command", "Title set to: x", {"command": "title"}),
        e("error", "boom"),
    ]
    state = replay([events])
    assert [m.content for m in state.context] == ["be brief", "hi", "hello"]
    assert texts(state.scrollback) == ["be brief", "hi", "hello", "Title set to: x", "boom"]


def test_rewind_truncates_to_the_mark_and_keeps_it() -> None:
    e = Log()
    first = e("mark", data={"label": "first"})
    events = [
        e("user", "a"),
        first,
        e("user", "b"),
        e("mark", data={"label": "second"}),
        e("user", "c"),
        e("rewind", data={"target_event_id": first.id, "target_label": "first"}),
    ]
    state = replay([events])
    assert [m.content for m in state.context] == ["a"]
    assert texts(state.scrollback) == ["a", "/mark first", "Rewound to first"]
    assert [m.label for m in state.marks] == ["first"]


def test_rewinding_to_the_same_mark_twice() -> None:
    e = Log()
    mark = e("mark", data={"label": "cp"})
    rewind = {"target_event_id": mark.id, "target_label": "cp"}
    events = [
        e("user", "a"),
        mark,
        e("user", "b"),
        e("rewind", data=rewind),
        e("user", "c"),
        e("rewind", data=rewind),
    ]
    state = replay([events])
    assert [m.content for m in state.context] == ["a"]
    assert texts(state.scrollback) == ["a", "/mark cp", "Rewound to cp"]


def test_malformed_or_dangling_rewinds_are_skipped() -> None:
    e = Log()
    events = [
        e("user", "a"),
        e("mark"),
        e("user", "b"),
        e("rewind", raw="{not json"),
        e("rewind", data={"target_event_id": "2"}),
        e("rewind", data={"target_event_id": 999}),
        e("rewind", data=None),
    ]
    state = replay([events])
    assert [m.content for m in state.context] == ["a", "b"]
    assert len(state.skipped) == 4


def test_unknown_kinds_are_shown_generically_and_not_sent() -> None:
    e = Log()
    state = replay([[e("user", "a"), e("hologram", "from the future", {"x": 1})]])
    assert [m.content for m in state.context] == ["a"]
    assert texts(state.scrollback)[-1] == "[hologram] from the future"


def test_clear_empties_everything_but_the_model_setting() -> None:
    e = Log()
    events = [
        e("user", "a"),
        e("mark"),
        e("assistant", "x", {"prompt": "p"}),
        e("command", "Switched to model: m", {"command": "model", "model": "m"}),
        e("clear"),
        e("user", "b"),
    ]
    state = replay([events])
    assert [m.content for m in state.context] == ["b"]
    assert state.marks == []
    assert state.working_prompt == ""
    assert state.model == "m"


def test_marks_are_not_inherited_across_segments() -> None:
    e = Log()
    parent = [e("user", "a"), e("mark", data={"label": "p"})]
    child = [e("fork", "Forked from chat-aaaa", conv="chat-bbbb"), e("user", "b", conv="chat-bbbb")]
    state = replay([parent, child])
    assert state.marks == []
    assert [m.content for m in state.context] == ["a", "b"]
    assert "/mark p" in texts(state.scrollback)


def test_working_prompt_follows_replies_edits_marks_and_rewinds() -> None:
    e = Log()
    mark = e("mark", data={"label": "m"})
    events = [
        e("assistant", "Prompt: a", {"prompt": "a cat"}),
        mark,
        e("prompt_edit", '[user edited prompt to: "a dog"]', {"prompt": "a dog"}),
        e("assistant", "no prompt here"),
    ]
    state = replay([events])
    assert state.working_prompt == "a dog"
    events.append(e("rewind", data={"target_event_id": mark.id}))
    assert replay([events]).working_prompt == "a cat"


def test_system_override_commands_reapply() -> None:
    e = Log()
    state = replay([[e("command", "", {"command": "system", "system": "terse"})]])
    assert state.system_override == "terse"
    state = replay(
        [
            [
                e("command", "", {"command": "system", "system": "terse"}),
                e("command", "", {"command": "system", "system": ""}),
            ]
        ]
    )
    assert state.system_override == ""


def test_interrupted_reply_stays_in_context_with_a_badge() -> None:
    e = Log()
    state = replay([[e("user", "q"), e("assistant", "partial", {"interrupted": True})]])
    assert state.context[-1].content == "partial"
    assert describe(state.scrollback[-1]) == "partial (stopped)"
