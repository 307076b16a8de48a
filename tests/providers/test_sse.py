"""The SSE decoder: the WHATWG rules, and identical output however the bytes are split."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ikgui.providers.sse import SSEDecoder, SSEMessage


def decode(chunks: list[bytes]) -> tuple[list[SSEMessage], SSEMessage | None]:
    decoder = SSEDecoder()
    messages: list[SSEMessage] = []
    for chunk in chunks:
        messages.extend(decoder.feed(chunk))
    return messages, decoder.finish()


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(max(c, 0), len(data)) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


def reference(text: str) -> tuple[list[SSEMessage], SSEMessage | None]:
    """A direct reading of the spec over the whole text, as the oracle."""
    text = text.removeprefix("\ufeff")
    lines = re.split(r"\r\n|\r|\n", text)
    complete, tail_line = lines[:-1], lines[-1]
    messages: list[SSEMessage] = []
    event, data = "", []
    for line in [*complete, *([tail_line] if tail_line else [])]:
        if line == "":
            if data:
                messages.append(SSEMessage(event or "message", "\n".join(data)))
            event, data = "", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
    tail = SSEMessage(event or "message", "\n".join(data)) if (data or event) else None
    return messages, tail


def test_basic_fields_comments_and_multiline_data() -> None:
    body = (
        b": a comment\n"
        b"event: message_start\n"
        b'data: {"a":1}\n'
        b"\n"
        b"data: line one\n"
        b"data:line two\n"
        b"data\n"
        b"id: 7\n"
        b"retry: 100\n"
        b"\n"
        b"event: ping\n"
        b"\n"
        b"data: [DONE]\n\n"
    )
    messages, tail = decode([body])
    assert messages == [
        SSEMessage("message_start", '{"a":1}'),
        SSEMessage("message", "line one\nline two\n"),
        SSEMessage("message", "[DONE]"),
    ]
    assert tail is None


def test_all_three_line_endings() -> None:
    for end in (b"\n", b"\r", b"\r\n"):
        body = b"event: x" + end + b"data: 1" + end + b"data: 2" + end + end
        assert decode([body]) == ([SSEMessage("x", "1\n2")], None)


def test_split_between_cr_and_lf_is_one_line_end() -> None:
    messages, tail = decode([b"data: a\r", b"\n", b"data: b\r", b"", b"\n\r\n"])
    assert messages == [SSEMessage("message", "a\nb")]
    assert tail is None


def test_split_inside_a_utf8_character() -> None:
    body = "data: héllo 🦙 wörld\n\n".encode()
    cut = body.index("🦙".encode()) + 2
    assert decode([body[:cut], body[cut:]]) == ([SSEMessage("message", "héllo 🦙 wörld")], None)


def test_bom_is_dropped_once() -> None:
    body = "\ufeffdata: x\n\n".encode()
    assert decode([body[:2], body[2:]]) == ([SSEMessage("message", "x")], None)


def test_finish_reports_an_unterminated_tail() -> None:
    assert decode([b"data: [DONE]"]) == ([], SSEMessage("message", "[DONE]"))
    assert decode([b"data: [DONE]\n"]) == ([], SSEMessage("message", "[DONE]"))
    assert decode([b'event: message_stop\ndata: {"ty']) == (
        [],
        SSEMessage("message_stop", '{"ty'),
    )
    assert decode([b"data: a\n\n: trailing comment"]) == ([SSEMessage("message", "a")], None)


_piece = st.sampled_from(
    [
        "data: ",
        "data:",
        "event: ",
        ": comment",
        "id: 3",
        "x",
        "é",
        "🦙",
        "{}",
        " ",
        ":",
        "\n",
        "\r",
        "\r\n",
        "\n\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece, max_size=40), st.lists(st.integers(0, 400), max_size=12))
def test_any_split_equals_the_spec(pieces: list[str], cuts: list[int]) -> None:
    text = "".join(pieces)
    data = text.encode()
    expected = reference(text)
    assert decode([data]) == expected
    assert decode(split(data, cuts)) == expected
    assert decode([data[i : i + 1] for i in range(len(data))]) == expected
