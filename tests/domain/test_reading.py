"""One home per reading rule (issue 9): which events a reader sees, role labels, the
context as text, the title, tags and the model in force."""

from __future__ import annotations

import pytest

from ikgui.domain.errors import UserError
from ikgui.domain.events import Conversation, Event, Kind
from ikgui.domain.settings import Settings
from ikgui.domain.state.ids import normalize_tags
from ikgui.domain.state.reading import (
    EMPTY_CONTEXT,
    ROLE_LABELS,
    failed_before_text,
    format_context,
    labels,
    message_text,
    shown,
    visible,
)
from ikgui.domain.state.replay import ReplayState, replay
from ikgui.domain.state.rules import current_model, user_title


def event(id: int, kind: str, content: str = "", data: dict[str, object] | None = None) -> Event:
    return Event(id, "c", kind, content, data, 0.0)


def test_a_reader_sees_what_replay_keeps_minus_clears() -> None:
    failed = event(2, Kind.ASSISTANT, "", {"failed": True})
    events = [event(1, Kind.USER, "hi"), failed, event(3, Kind.ERROR, "boom")]
    assert failed_before_text(failed) and not shown(failed)
    assert not shown(event(4, Kind.CLEAR)) and shown(event(5, Kind.ASSISTANT, "", {}))
    assert visible(events) == replay([events]).scrollback == [events[0], events[2]]


def test_role_labels_are_one_table() -> None:
    assert labels(Kind.USER, Kind.ERROR) == {Kind.USER: "You", Kind.ERROR: "Error"}
    assert ROLE_LABELS[Kind.TOOL_CALL] == "Tool call"


def test_the_context_as_text() -> None:
    call = {"id": "c1", "function": {"name": "f", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "42"},
    ]
    assert format_context(messages) == (
        "[user]\nhi\n\n[assistant]\n→ f({})  [c1]\n\n[tool] (result of c1)\n42"
    )
    assert message_text(messages[1], arrow="->", gap=" ") == "\n-> f({}) [c1]"
    assert format_context([]) == EMPTY_CONTEXT


def test_title_tags_and_model_rules() -> None:
    assert user_title("  a \n b ") == "a b" and user_title("   ") is None
    assert normalize_tags(["#B", "a", " ", "b"]) == ["a", "b"]
    with pytest.raises(UserError):
        normalize_tags(["no spaces allowed"])
    conv = Conversation(id="c", model="column")
    state = ReplayState()
    assert current_model(state, conv, Settings(default_model="d")) == "column"
    state.model = "replayed"
    assert current_model(state, conv, Settings()) == "replayed"
