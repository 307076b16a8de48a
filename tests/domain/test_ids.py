"""Ids, automatic titles, tags and times (SPEC §2, §9)."""

from __future__ import annotations

import random
import re
from typing import cast

import pytest

from ikgui.domain.errors import NotFoundError, UsageError, UserError
from ikgui.domain.ports import Store
from ikgui.domain.state.ids import auto_title, id_prefix, new_id, normalize_tag, resolve_ref, shown
from ikgui.domain.text.safe import valid_id
from ikgui.domain.text.times import parse_age, parse_iso, relative


def test_id_format_and_prefix() -> None:
    assert re.fullmatch(r"chat-[0-9a-z]{4}", new_id(None, lambda _: False))
    assert new_id("Code Reviewer!", lambda _: False).startswith("codereviewer-")
    assert id_prefix("---") == "chat"


def test_id_collisions_regenerate_then_give_up() -> None:
    taken = {"chat-0000"}
    rng = random.Random(1)
    first = new_id(None, taken.__contains__, rng)
    assert first not in taken
    with pytest.raises(UserError, match=r"^Failed to generate unique conversation ID$"):
        new_id(None, lambda _: True)


def test_auto_title() -> None:
    assert auto_title("  hello \n  world ") == "hello world"
    long = "word " * 20
    assert auto_title(long) == ("word " * 10)[:50].rstrip() + "..."
    assert len(auto_title("x" * 50)) == 50


@pytest.mark.parametrize(
    ("message", "title"),
    [
        (
            "```python\nprint('hello')\n```\nWhy does this fail?",
            "print('hello') Why does this fail?",
        ),
        ("```\nls -la\n```", "ls -la"),
        ("## Plan\n\n- **bold** step\n- `code` step", "Plan bold step code step"),
        ("See [the docs](https://example.com/a_b) and ![a fox](fox.png)", "See the docs and a fox"),
        ("> quoted *words* here", "quoted words here"),
        ("keep snake_case and 2 * 3", "keep snake_case and 2 * 3"),
    ],
)
def test_an_automatic_title_is_words_without_markdown(message: str, title: str) -> None:
    """Issue 20 item 12: a first message that starts with code gave "```p…"."""
    assert auto_title(message) == title
    assert "```" not in auto_title("```py\n" + "x = 1\n" * 30 + "```")


def test_tags_are_normalized_and_validated() -> None:
    assert normalize_tag("#Work") == "work"
    with pytest.raises(UserError, match="Invalid tag"):
        normalize_tag("two words")


def test_relative_times() -> None:
    assert relative(100, 130) == "now"
    assert relative(0, 5 * 60) == "5m ago"
    assert relative(0, 2 * 3600 + 5) == "2h ago"
    assert relative(0, 3 * 86400) == "3d ago"


def test_ages_and_timestamps() -> None:
    assert parse_age("7d") == 7 * 86400
    assert parse_age("30m") == 1800
    with pytest.raises(UsageError):
        parse_age("soon")
    assert parse_iso("1970-01-01T00:01:00Z") == 60.0
    assert parse_iso("1970-01-01T00:01:00") == 60.0


def test_a_long_agent_name_still_gives_an_id_of_spec_length() -> None:
    made = new_id("a" * 500, lambda _: False)
    assert valid_id(made) and len(made) == 64


def test_shown_makes_untrusted_text_one_short_line() -> None:
    assert shown("a\nb\x1b[2J\u202e") == "a\\x0ab\\x1b[2J⟨U+202E⟩"
    assert shown("z" * 1000) == "z" * 59 + "…"


class _NoStore:
    """A store that must not be asked: a ref that cannot be an id is refused first."""

    def find_by_suffix(self, ref: str) -> list[str]:
        raise AssertionError(f"looked up {ref!r}")


@pytest.mark.parametrize("ref", ["../x", "a b", "\x1b[2J", "", "   ", "q" * 65, "é"])
def test_refs_that_cannot_be_ids_are_not_found_without_a_lookup(ref: str) -> None:
    with pytest.raises(NotFoundError) as info:
        resolve_ref(cast(Store, _NoStore()), ref)
    assert str(info.value).startswith("Conversation not found: ")
    assert "\x1b" not in str(info.value) and len(str(info.value)) < 90
