"""Ids, automatic titles, tags and times (SPEC §2, §9)."""

from __future__ import annotations

import random
import re

import pytest

from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.ids import auto_title, id_prefix, new_id, normalize_tag
from ikgui.domain.timefmt import parse_age, parse_iso, relative


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
    assert auto_title(long) == ("word " * 10)[:50] + "..."
    assert len(auto_title("x" * 50)) == 50


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
