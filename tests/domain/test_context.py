"""Context building (SPEC §7): order, notices, tool calls, the trailing prompt line."""

from __future__ import annotations

from ikgui.domain.events import Event
from ikgui.domain.state.context import build_context
from ikgui.domain.state.replay import replay


def ev(i: int, kind: str, content: str = "", data: dict | None = None) -> Event:  # type: ignore[type-arg]
    return Event(i, "chat-aaaa", kind, content, data)


def test_order_system_history_notices_then_current_prompt() -> None:
    events = [
        ev(1, "user", "I want a cat in a hat"),
        ev(2, "assistant", "Prompt: a tabby cat", {"prompt": "a tabby cat"}),
        ev(
            3,
            "prompt_edit",
            '[user edited prompt to: "a sparkly cat"]',
            {"prompt": "a sparkly cat"},
        ),
        ev(4, "user", "Now make the background purple"),
    ]
    messages = build_context(replay([events]), "You help users create images")
    assert messages == [
        {"role": "system", "content": "You help users create images"},
        {"role": "user", "content": "I want a cat in a hat"},
        {"role": "assistant", "content": "Prompt: a tabby cat"},
        {"role": "system", "content": '[user edited prompt to: "a sparkly cat"]'},
        {"role": "user", "content": "Now make the background purple"},
        {"role": "system", "content": '[current prompt: "a sparkly cat"]'},
    ]


def test_no_system_prompt_and_no_working_prompt_means_no_extra_lines() -> None:
    assert build_context(replay([[ev(1, "user", "hi")]]), None) == [
        {"role": "user", "content": "hi"}
    ]


def test_tool_calls_join_the_assistant_turn_and_results_follow() -> None:
    events = [
        ev(1, "user", "weather?"),
        ev(2, "assistant", "Let me check."),
        ev(
            3,
            "tool_call",
            "get_weather(city)",
            {"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}},
        ),
        ev(4, "tool_call", "get_time()", {"id": "call_2", "name": "get_time", "arguments": "{}"}),
        ev(
            5,
            "tool_result",
            "ok",
            {"tool_call_id": "call_1", "name": "get_weather", "output": "-3C", "success": True},
        ),
        ev(
            6,
            "tool_result",
            "ok",
            {"tool_call_id": "call_2", "name": "get_time", "output": {"h": 9}, "success": True},
        ),
        ev(7, "tool_call", "again", {"id": "call_3", "name": "get_weather", "arguments": {}}),
    ]
    messages = build_context(replay([events]), None)
    assert messages[1] == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "get_time", "arguments": "{}"},
            },
        ],
    }
    assert messages[2] == {"role": "tool", "tool_call_id": "call_1", "content": "-3C"}
    assert messages[3] == {"role": "tool", "tool_call_id": "call_2", "content": '{"h": 9}'}
    assert messages[4]["content"] is None and messages[4]["tool_calls"][0]["id"] == "call_3"


def test_empty_interrupted_reply_is_not_sent() -> None:
    events = [ev(1, "user", "q"), ev(2, "assistant", "", {"interrupted": True})]
    assert build_context(replay([events]), None) == [{"role": "user", "content": "q"}]
