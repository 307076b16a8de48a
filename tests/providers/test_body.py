""":class:`~ikgui.providers.body.BodyDecoder`: a body decoded in bounded pieces, however
it is encoded or split (issue 21 item 3)."""

from __future__ import annotations

import gzip
import os
import zlib

import pytest

from ikgui.providers.body import PIECE, BodyDecoder, UnknownEncoding

DATA = os.urandom(50_000) + b"x" * 500_000


def _decoded(encoding: str, body: bytes, split: int = 1000) -> list[bytes]:
    decoder = BodyDecoder(encoding)
    pieces: list[bytes] = []
    for start in range(0, len(body), split):
        pieces.extend(decoder.feed(body[start : start + split]))
    return pieces


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("", DATA),
        ("identity", DATA),
        ("gzip", gzip.compress(DATA)),
        ("x-gzip", gzip.compress(DATA)),
        ("gzip, gzip", gzip.compress(gzip.compress(DATA))),
        ("GZIP ,identity", gzip.compress(DATA)),
        ("deflate", zlib.compress(DATA)),
        ("deflate", zlib.compress(DATA)[2:-4]),  # raw deflate, as some servers send it
        ("gzip", gzip.compress(DATA[:100]) + gzip.compress(DATA[100:])),  # two members
        ("gzip", gzip.compress(DATA) + b"\r\n"),  # padding after the last member
    ],
)
def test_round_trip_in_bounded_pieces(encoding: str, body: bytes) -> None:
    pieces = _decoded(encoding, body)
    assert b"".join(pieces) == DATA
    assert max(map(len, pieces)) <= PIECE


def test_a_bomb_is_decoded_only_as_far_as_it_is_read() -> None:
    inner = zlib.compressobj(9, zlib.DEFLATED, 31)
    layer = b"".join(inner.compress(bytes(1 << 20)) for _ in range(512)) + inner.flush()
    bomb = gzip.compress(layer)  # 512 MiB of zeros in a few kilobytes
    decoder = BodyDecoder("gzip, gzip")
    total = 0
    for piece in decoder.feed(bomb):
        total += len(piece)
        if total >= 4 * PIECE:
            break
    assert total == 4 * PIECE


def test_unknown_encodings_and_garbage_are_refused() -> None:
    with pytest.raises(UnknownEncoding):
        BodyDecoder("br")
    with pytest.raises(zlib.error):
        _decoded("gzip", b"this is not gzip")
