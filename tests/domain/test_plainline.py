"""Markdown as one line of plain words (issue 20 items 11 and 12): automatic titles and
the Branches view's fork points show what a message says, not its markup."""

from __future__ import annotations

import pytest

from ikgui.domain.text.plainline import plain_line


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("```js\nlet a = 1;\n```", "let a = 1;"),
        ("~~~\ncode\n~~~", "code"),
        ("# Title #\n\nSome text", "Title Some text"),
        ("Title\n=====\n\nbody", "Title body"),
        ("1. first\n2. second\n\n* star\n+ plus", "first second star plus"),
        (
            "**bold**, __strong__, *em*, _em_, ~~gone~~, ***both***",
            "bold, strong, em, em, gone, both",
        ),
        ("`a*b*c` and `` x`y ``", "a*b*c and x`y"),
        ("[text](http://a.b) [ref][1] <https://c.d>", "text ref https://c.d"),
        ("| a | b |\n|---|:-:|\n| 1 | 2 |", "a b 1 2"),
        ("one\n\n---\n\ntwo", "one two"),
        (r"\*literal\* \# and a\_b", "*literal* # and a_b"),
        ("snake_case_name, 2 * 3 * 4, a_b_c", "snake_case_name, 2 * 3 * 4, a_b_c"),
        ("  many\n\n\n   spaces\tand\ttabs  ", "many spaces and tabs"),
    ],
)
def test_markdown_becomes_one_line_of_words(text: str, line: str) -> None:
    assert plain_line(text) == line


def test_a_long_line_is_cut_at_the_limit() -> None:
    assert plain_line("word " * 30, 12) == "word word wo…"
    assert plain_line("word " * 30, 10, "...") == "word word..."
    assert plain_line("short", 12) == "short"


def test_control_characters_other_than_whitespace_stay_for_the_display_to_escape() -> None:
    assert plain_line("a\x1b[2Jb\u202ec") == "a\x1b[2Jb\u202ec"
