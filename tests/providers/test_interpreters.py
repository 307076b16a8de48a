"""The stream interpreters on the providers' documented examples and on edge cases."""

from __future__ import annotations

from typing import Any

import pytest

from ikgui.domain.errors import ProviderError
from ikgui.domain.streaming import StreamEnd, StreamItem, TextDelta, ToolCallDelta
from ikgui.providers.errors import ErrorContext
from ikgui.providers.parser import StreamParser
from tests.support.wire_server import WIRE_DIR

DOCS = WIRE_DIR / "DOCS-EXAMPLES.md"
needs_docs = pytest.mark.skipif(not DOCS.is_file(), reason="DOCS-EXAMPLES.md is absent")


def docs_block(heading: str) -> str:
    """The first fenced block after the heading starting with ``heading``."""
    text = DOCS.read_text()
    start = text.index(f"\n{heading}")
    fence = text.index("```", start)
    body = text.index("\n", fence) + 1
    return text[body : text.index("```", body)]


def run(kind: str, body: str | bytes, *, broken: bool = False) -> tuple[list[StreamItem], Any]:
    data = body.encode() if isinstance(body, str) else body
    parser = StreamParser(kind, ErrorContext("http://wire.test", "test", kind), id_prefix="t")
    items: list[StreamItem] = []
    try:
        for item in parser.feed(data):
            items.append(item)
        for item in parser.finish(broken=broken):
            items.append(item)
    except ProviderError as exc:
        return items, exc
    return items, None


def text_of(items: list[StreamItem]) -> str:
    return "".join(i.text for i in items if isinstance(i, TextDelta))


def sse(*events: str) -> str:
    return "".join(f"data: {e}\n\n" for e in events)


# -- the documented examples (DOCS-EXAMPLES.md) -------------------------------
@needs_docs
def test_openai_refusal_with_usage_chunk_and_empty_choices() -> None:
    items, error = run("openai", docs_block("### 1a."))
    assert error is None
    assert text_of(items) == "I'm sorry, but I can't assist with that request."
    assert items[-1] == StreamEnd(17, 12, "stop", "gpt-4o-2024-08-06")


@needs_docs
def test_openai_usage_null_and_obfuscation_fields() -> None:
    items, error = run("openai", docs_block("### 1c."))
    assert error is None
    assert text_of(items) == "Hi, how are you?"
    assert items[-1] == StreamEnd(10, 5, "stop", "gpt-3.5-turbo-0125")


@needs_docs
def test_ollama_error_line_mid_stream() -> None:
    _, error = run("ollama", docs_block("### 2c."))
    assert error is not None and error.category == "stream_error"
    assert "an error was encountered while running the model" in error.message


@needs_docs
@pytest.mark.parametrize(
    ("heading", "text", "end"),
    [
        ("### 3a.", "Hello!", StreamEnd(25, 15, "end_turn", "claude-opus-4-1-20250805")),
        ("### 3d.", "Hello there!", StreamEnd(11, 6, "end_turn", "claude-3-opus-latest")),
    ],
)
def test_anthropic_basic_streams_with_ping(heading: str, text: str, end: StreamEnd) -> None:
    items, error = run("anthropic", docs_block(heading))
    assert error is None
    assert text_of(items) == text
    assert items[-1] == end


@needs_docs
def test_anthropic_error_event() -> None:
    items, error = run("anthropic", docs_block("### 3b."))
    assert items == []
    assert error is not None and error.category == "overloaded"  # a provider's overload error
    assert error.message.endswith(" is overloaded. Try again in a moment.")


@needs_docs
def test_anthropic_input_json_delta_tool_use() -> None:
    items, error = run("anthropic", docs_block("### 3c."))
    assert error is None
    assert items == [
        ToolCallDelta(
            "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            "get_weather",
            {"location": "San Francisco, CA", "unit": "fahrenheit"},
        ),
        StreamEnd(None, 89, "tool_use", None),
    ]


# -- tool calls of the other two ----------------------------------------------
def test_openai_tool_call_deltas_by_index_emitted_at_the_end_of_the_turn() -> None:
    """The documented shape: id/type/name first, then argument pieces, two calls
    interleaved by index, ``finish_reason: tool_calls``, a usage chunk, ``[DONE]``."""

    def chunk(delta: str, finish: str = "null") -> str:
        return (
            '{"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,'
            f'"delta":{delta},"finish_reason":{finish}}}]}}'
        )

    body = sse(
        chunk('{"role":"assistant","content":"Let me look."}'),
        chunk(
            '{"tool_calls":[{"index":0,"id":"call_a","type":"function",'
            '"function":{"name":"get_weather","arguments":""}}]}'
        ),
        chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}'),
        chunk(
            '{"tool_calls":[{"index":1,"id":"call_b","type":"function",'
            '"function":{"name":"get_time","arguments":"{}"}}]}'
        ),
        chunk('{"tool_calls":[{"index":0,"function":{"arguments":" \\"Paris\\"}"}}]}'),
        chunk("{}", '"tool_calls"'),
        '{"id":"c","object":"chat.completion.chunk","model":"gpt-4o","choices":[],'
        '"usage":{"prompt_tokens":40,"completion_tokens":20,"total_tokens":60}}',
        "[DONE]",
    )
    items, error = run("openai", body)
    assert error is None
    assert items == [
        TextDelta("Let me look."),
        ToolCallDelta("call_a", "get_weather", {"city": "Paris"}),
        ToolCallDelta("call_b", "get_time", {}),
        StreamEnd(40, 20, "tool_calls", "gpt-4o"),
    ]


def test_ollama_tool_calls_from_the_api_docs() -> None:
    # ollama/ollama docs/api.md, "Chat request (with tools)", as one NDJSON line.
    line = (
        '{"model":"llama3.2","created_at":"2024-07-22T20:33:28.123648Z","message":{"role":'
        '"assistant","content":"","tool_calls":[{"function":{"name":"get_current_weather",'
        '"arguments":{"format":"celsius","location":"Paris, FR"}}}]},"done_reason":"stop",'
        '"done":true,"total_duration":885095291,"load_duration":3753500,"prompt_eval_count":122,'
        '"prompt_eval_duration":328493000,"eval_count":33,"eval_duration":552222000}\n'
    )
    items, error = run("ollama", line)
    assert error is None
    assert items == [
        ToolCallDelta(
            "call_t_1", "get_current_weather", {"format": "celsius", "location": "Paris, FR"}
        ),
        StreamEnd(122, 33, "stop", "llama3.2"),
    ]


def test_anthropic_tool_use_without_deltas_keeps_its_initial_input() -> None:
    body = (
        "event: content_block_start\n"
        'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use",'
        '"id":"toolu_1","name":"now","input":{"tz":"UTC"}}}\n\n'
        "event: content_block_stop\n"
        'data: {"type":"content_block_stop","index":0}\n\n'
        "event: message_stop\n"
        'data: {"type":"message_stop"}\n\n'
    )
    items, _ = run("anthropic", body)
    assert items[0] == ToolCallDelta("toolu_1", "now", {"tz": "UTC"})


# -- errors and ends ------------------------------------------------------------
def test_text_before_an_error_in_the_same_chunk_is_yielded_first() -> None:
    body = sse(
        '{"choices":[{"index":0,"delta":{"content":"partial"}}]}',
        '{"error":{"message":"upstream died","code":"500"}}',
    )
    items, error = run("openai", body)
    assert items == [TextDelta("partial")]
    assert error.category == "stream_error"
    assert "upstream died" in error.message


def test_openai_error_event_and_string_error() -> None:
    _, error = run("openai", 'event: error\ndata: {"message":"boom"}\n\n')
    assert error.category == "stream_error" and "boom" in error.message
    _, error = run("openai", sse('{"error":"plain text failure"}'))
    assert error.category == "stream_error" and "plain text failure" in error.message


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("openai", "data: {not json}\n\n"),
        ("openai", "data: [1, 2]\n\n"),
        ("anthropic", "event: content_block_delta\ndata: {oops\n\n"),
        ("ollama", '{"message": {"content": "a"}, "done": false}\nnot json at all\n'),
    ],
)
def test_malformed_line_is_protocol(kind: str, body: str) -> None:
    items, error = run(kind, body)
    assert error is not None and error.category == "protocol"
    assert "not valid JSON" in error.message and "http://wire.test" in error.message
    assert text_of(items) in ("", "a")


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("openai", sse('{"choices":[{"index":0,"delta":{"content":"Hi"}}]}')),
        (
            "anthropic",
            'event: content_block_delta\ndata: {"type":"content_block_delta",'
            '"index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
        ),
        ("ollama", '{"message":{"role":"assistant","content":"Hi"},"done":false}\n'),
        ("ollama", '{"message":{"role":"assistant","content":"Hi"},"done":false}\n{"mess'),
    ],
)
def test_missing_end_marker_is_cut_after_the_text(kind: str, body: str) -> None:
    items, error = run(kind, body)
    assert items == [TextDelta("Hi")]
    assert error.category == "cut"
    assert error.message == (
        "The reply from http://wire.test stopped before it was complete "
        "(the connection closed mid-stream)."
    )


def test_empty_body_is_cut_without_a_reply() -> None:
    _, error = run("openai", b"")
    assert error.category == "cut" and "without sending a reply" in error.message


def test_finish_reason_then_clean_close_counts_as_complete_but_not_after_a_break() -> None:
    body = sse('{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}')
    items, error = run("openai", body)
    assert error is None and items[-1] == StreamEnd(None, None, "stop", None)
    _, error = run("openai", body, broken=True)
    assert error.category == "cut"


def test_end_marker_without_the_final_blank_line() -> None:
    items, error = run("openai", 'data: {"choices":[{"delta":{"content":"x"}}]}\n\ndata: [DONE]')
    assert error is None and items == [TextDelta("x"), StreamEnd()]


def test_anthropic_ignores_ping_thinking_and_unknown_events() -> None:
    body = (
        'event: ping\ndata: {"type": "ping"}\n\n'
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"thinking_delta","thinking":"hmm"}}\n\n'
        'event: brand_new\ndata: {"type":"brand_new"}\n\n'
        'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )
    assert run("anthropic", body) == ([StreamEnd()], None)


def test_lightrag_detail_and_error_lines() -> None:
    _, error = run("ollama", '{"detail": "Model not loaded"}\n')
    assert error.category == "stream_error" and "Model not loaded" in error.message
    items, error = run(
        "ollama",
        '{"message":{"content":"a"},"done":false}\n'
        '{"message":{"content":"\\n\\nError: boom"},"error":"\\n\\nError: boom","done":false}\n'
        '{"done":true}\n',
    )
    assert items == [TextDelta("a")]
    assert error.message.endswith("during the reply: boom.")


def test_ollama_final_line_without_usage() -> None:
    # ollambda: the last line is {"message":{"role":"assistant"},"done":true}
    assert run("ollama", '{"message":{"role":"assistant"},"done":true}\n') == (
        [StreamEnd(None, None, None, None)],
        None,
    )


def test_openai_ignores_other_choices_and_lines_after_done() -> None:
    body = sse(
        '{"choices":[{"index":1,"delta":{"content":"other"}},'
        '{"index":0,"delta":{"content":"mine"}}]}',
        "[DONE]",
        '{"choices":[{"index":0,"delta":{"content":"late"}}]}',
    )
    assert run("openai", body) == ([TextDelta("mine"), StreamEnd()], None)
