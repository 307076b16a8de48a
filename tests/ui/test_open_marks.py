"""A stopped reply's last paragraph has the inline marks it was cut inside closed, so it
reads as a finished reply would (issue 20 item 15)."""

from __future__ import annotations

import pytest

from ikgui.ui.transcript.open_marks import close_open_marks


@pytest.mark.parametrize(
    ("cut", "closed"),
    [
        ("Some **bold wo", "Some **bold wo**"),
        ("Para.\n\nSome **bold *it", "Para.\n\nSome **bold *it***"),
        ("a `code * x", "a `code * x`"),
        ("~~gone", "~~gone~~"),
        ("trailing **bold ", "trailing **bold**"),
        ("Some **", "Some"),  # an opening mark with nothing after it goes
        ("done **bold** ok", "done **bold** ok"),
        ("2 * 3 and snake_case", "2 * 3 and snake_case"),
        ("* item **bo", "* item **bo**"),  # a bullet is no emphasis
        ("**old**\n\nnew *it", "**old**\n\nnew *it*"),  # only the last paragraph
        ("```py\nx = '**'\n", "```py\nx = '**'\n"),  # in code: nothing inline
    ],
)
def test_the_marks_a_cut_left_open_are_closed(cut: str, closed: str) -> None:
    assert close_open_marks(cut) == closed
