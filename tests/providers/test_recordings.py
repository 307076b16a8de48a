"""Every recording in ``tests/data/wire`` through the pure parsers: the concrete outcome,
and identical items and errors however the body is split."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ikgui.domain.errors import ProviderError
from ikgui.domain.streaming import StreamEnd, StreamItem, TextDelta
from ikgui.providers.errors import ErrorContext
from ikgui.providers.parser import StreamParser
from tests.support.wire_server import Recording, load_recording, recording_names

HELLO = "Hello from the LiteLLM mock. This reply is streamed in small chunks."
KILLED = "litellm.APIConnectionError: APIConnectionError: OpenAIException - Response payload"
Outcome = tuple[list[StreamItem], tuple[str, str] | None]


@dataclass(frozen=True)
class Expect:
    text: str | None = None  # the whole text, or (with an error) a prefix of it
    end: StreamEnd | None = None
    error: str | None = None  # category
    says: str = ""  # part of the error message
    status: int = 200


EXPECTED: dict[str, Expect] = {
    # Written by hand in each provider's documented form (tests/data/wire/README.md).
    "docs-anthropic-tool-use-stream.txt": Expect(
        "Let me check.", StreamEnd(20, 9, "tool_use", "tiny")
    ),
    "docs-ollama-tool-calls.ndjson": Expect("Let me check.", StreamEnd(20, 9, "stop", "tiny")),
    "docs-openai-tool-calls-stream.txt": Expect(
        "Let me check.", StreamEnd(20, 9, "tool_calls", "mock-gpt")
    ),
    # Recorded from llama-server --jinja (tool_choice required) on a tiny random model.
    "llama-server-openai-tool-call-stream.txt": Expect(
        "", StreamEnd(177, 66, "tool_calls", "tiny-qwen2.gguf")
    ),
    "llama-server-anthropic-tool-use-stream.txt": Expect(
        "", StreamEnd(177, 120, "max_tokens", "tiny-qwen2.gguf")
    ),
    "lightrag-ollama-chat-stream.ndjson": Expect(
        HELLO, StreamEnd(1, 16, "stop", "lightrag:latest")
    ),
    "lightrag-ollama-midstream-backend-killed.ndjson": Expect(
        "Vf Q their", error="stream_error", says="Provider error: Connection error."
    ),
    "lightrag-over-llamacpp-ollama-chat-stream.ndjson": Expect(
        "Vf Q their findsj they toK as he Q their did b bei into do was forf,",
        StreamEnd(2, 22, "stop", "lightrag:latest"),
    ),
    "litellm-anthropic-midstream-backend-killed.txt": Expect(
        "+", error="stream_error", says=KILLED
    ),
    "litellm-anthropic-over-llamacpp-stream.txt": Expect(
        " KpU replyf m", StreamEnd(9, 6, "max_tokens", "claude-via-llama")
    ),
    "litellm-anthropic-ratelimit.txt": Expect(
        error="rate_limit", says="mock rate limit error", status=429
    ),
    "litellm-anthropic-via-mock-stream.txt": Expect(
        HELLO, StreamEnd(8, 16, "end_turn", "claude-via-mock")
    ),
    # LiteLLM ignored stream:true here and answered with one JSON message.
    "litellm-anthropic-via-openai-stream.txt": Expect(
        HELLO, StreamEnd(2095, 503, "end_turn", "mock-gpt")
    ),
    "litellm-midstream-backend-killed.txt": Expect("Vf Q", error="stream_error", says=KILLED),
    "litellm-openai-mock-midstream-error.txt": Expect(
        error="overloaded", says="This is a mock error raised mid-stream", status=529
    ),
    "litellm-openai-mock-ratelimit.txt": Expect(
        error="rate_limit", says="this is a mock rate limit error", status=429
    ),
    "litellm-openai-stream-usage.txt": Expect(HELLO, StreamEnd(8, 16, "stop", "mock-gpt")),
    "litellm-openai-stream.txt": Expect(HELLO, StreamEnd(None, None, "stop", "mock-gpt")),
    "litellm-over-llama-server-killed-openai.txt": Expect(" to", error="stream_error", says=KILLED),
    "litellm-over-llamacpp-openai-stream.txt": Expect(
        "Vf Q their finds", StreamEnd(9, 5, "length", "llama-tiny")
    ),
    "llama-server-anthropic-ctx-overflow.txt": Expect(
        error="bad_request", says="too long for the model", status=400
    ),
    "llama-server-anthropic-eos-stream.txt": Expect(
        "Vf Q their findsj they to", StreamEnd(27, 10, "end_turn", "tiny-eos")
    ),
    "llama-server-anthropic-stream.txt": Expect(
        "yg, butg which", StreamEnd(27, 6, "max_tokens", "tiny")
    ),
    "llama-server-openai-ctx-overflow.txt": Expect(
        error="bad_request", says="request (9018 tokens) exceeds the available context", status=400
    ),
    "llama-server-openai-eos-stream.txt": Expect(
        "Vf Q their findsj they to", StreamEnd(27, 10, "stop", "tiny-eos")
    ),
    "llama-server-openai-stream-usage.txt": Expect(
        "Vf Q their finds", StreamEnd(27, 6, "length", "tiny")
    ),
    "llamacpp-py-openai-stream-usage.txt": Expect(
        "Vf Q their find", StreamEnd(None, None, "length", "tiny")
    ),
    "llamacpp-py-openai-stream.txt": Expect(
        "Vf Q their findsj they toK as he", StreamEnd(None, None, "length", "tiny")
    ),
    # Written by hand in OpenAI's documented form (see the folder's README): a call only.
    "openai-docs-tool-call-stream.txt": Expect(
        "", StreamEnd(82, 18, "tool_calls", "gpt-4o-mini-2024-07-18")
    ),
    "llamacpp-py-slow-model-stream.txt": Expect(
        " to9h them number" + " from" * 15, StreamEnd(None, None, "length", "slow")
    ),
}

NAMES = recording_names()


def content_type(rec: Recording) -> str:
    return next((v for k, v in rec.headers if k.lower() == "content-type"), "")


#: The recordings that are streams (not HTTP errors, not a whole JSON reply).
STREAMS = [
    name
    for name in NAMES
    if (rec := load_recording(name)).status == 200 and "json" not in content_type(rec)
]


def errors_for(kind: str) -> ErrorContext:
    return ErrorContext("http://wire.test", "test", kind, "tiny")


def parse(rec: Recording, chunks: list[bytes]) -> Outcome:
    parser = StreamParser(rec.kind, errors_for(rec.kind), id_prefix="t")
    items: list[StreamItem] = []
    try:
        for chunk in chunks:
            for item in parser.feed(chunk):
                items.append(item)
        for item in parser.finish():
            items.append(item)
    except ProviderError as exc:
        return items, (exc.category, exc.message)
    return items, None


def outcome(rec: Recording) -> Outcome:
    """What a client makes of the recording: HTTP errors, whole JSON, or the stream."""
    if rec.status != 200:
        error = errors_for(rec.kind).http_status(rec.status, rec.body, dict(rec.headers))
        return [], (error.category, error.message)
    if rec.body.lstrip().startswith(b"{") and rec.kind != "ollama":
        try:
            return StreamParser(rec.kind, errors_for(rec.kind)).complete(rec.body), None
        except ProviderError as exc:
            return [], (exc.category, exc.message)
    return parse(rec, [rec.body])


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


def test_every_recording_has_an_expectation() -> None:
    assert NAMES, "no recordings found"
    assert sorted(EXPECTED) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_recording_outcome(name: str) -> None:
    rec = load_recording(name)
    expect = EXPECTED[name]
    assert rec.status == expect.status
    items, error = outcome(rec)
    text = "".join(i.text for i in items if isinstance(i, TextDelta))
    ends = [i for i in items if isinstance(i, StreamEnd)]
    if expect.error is None:
        assert error is None
        assert text == expect.text
        assert ends == [expect.end]
        assert items[-1] == expect.end
    else:
        assert error is not None
        category, message = error
        assert category == expect.error
        assert expect.says in message
        assert "\n" not in message and "Traceback" not in message
        assert text.startswith(expect.text or "")
        assert ends == []


@pytest.mark.parametrize("name", STREAMS)
def test_byte_by_byte_equals_whole(name: str) -> None:
    rec = load_recording(name)
    whole = parse(rec, [rec.body])
    assert parse(rec, [rec.body[i : i + 1] for i in range(len(rec.body))]) == whole


@pytest.mark.parametrize("name", STREAMS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=0, max_value=120_000), max_size=80))
def test_random_splits_equal_whole(name: str, cuts: list[int]) -> None:
    rec = load_recording(name)
    assert parse(rec, split(rec.body, cuts)) == parse(rec, [rec.body])


@pytest.mark.parametrize("name", STREAMS)
def test_truncated_anywhere_is_cut_or_complete_never_garbled(name: str) -> None:
    """A stream that stops early keeps its text and ends in ``cut`` (or an error the
    server sent before the stop), never ``protocol``."""
    rec = load_recording(name)
    full_items, _ = parse(rec, [rec.body])
    full_text = "".join(i.text for i in full_items if isinstance(i, TextDelta))
    step = max(1, len(rec.body) // 97)
    for stop in range(0, len(rec.body), step):
        items, error = parse(rec, [rec.body[:stop]])
        text = "".join(i.text for i in items if isinstance(i, TextDelta))
        assert full_text.startswith(text)
        if error is not None:
            assert error[0] in ("cut", "stream_error"), (stop, error)
