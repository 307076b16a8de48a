"""The NDJSON line decoder: whole lines, identical however the bytes are split."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ikgui.providers.ndjson import NDJSONDecoder


def decode(chunks: list[bytes]) -> tuple[list[str], str | None]:
    decoder = NDJSONDecoder()
    lines: list[str] = []
    for chunk in chunks:
        lines.extend(decoder.feed(chunk))
    return lines, decoder.finish()


def test_lines_crlf_blank_lines_and_tail() -> None:
    body = b'{"a": 1}\r\n\n  \n{"b": "\xc3\xa9"}\n{"c":'
    assert decode([body]) == (['{"a": 1}', '{"b": "é"}'], '{"c":')
    assert decode([b'{"a": 1}\n']) == (['{"a": 1}'], None)
    assert decode([b'{"a": 1}\n  ']) == (['{"a": 1}'], None)
    assert decode([b'{"done": true}']) == ([], '{"done": true}')


def test_split_inside_a_utf8_character_and_crlf() -> None:
    body = '{"t": "🦙"}\r\n{"u": 2}\r\n'.encode()
    expected = (['{"t": "🦙"}', '{"u": 2}'], None)
    for cut in range(len(body) + 1):
        assert decode([body[:cut], body[cut:]]) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(['{"a":1}', "é", "🦙", " ", "\n", "\r\n", "\r", "x"]), max_size=40),
    st.lists(st.integers(0, 300), max_size=12),
)
def test_any_split_gives_the_same_lines(pieces: list[str], cuts: list[int]) -> None:
    data = "".join(pieces).encode()
    whole = decode([data])
    points = sorted({min(c, len(data)) for c in cuts})
    edges = [0, *points, len(data)]
    assert decode([data[a:b] for a, b in itertools.pairwise(edges)]) == whole
    assert decode([data[i : i + 1] for i in range(len(data))]) == whole
