"""The sidebar's date rule (issue 12, item 1) with a fixed clock and fixed time zones:
``14:32`` today, ``Yesterday``, the weekday within a week, ``12 Mar`` / ``12 Mar 2024``;
and the group headers Today, Yesterday, Previous 7 days, Previous 30 days, then months."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from ikgui.domain.text.times import date_group, relative, short_date

# Wednesday 18 March 2026, 14:32 UTC.
NOW = datetime(2026, 3, 18, 14, 32, tzinfo=UTC).timestamp()
DAY = 86400.0


def _at(*fields: int) -> float:
    return datetime(*fields, tzinfo=UTC).timestamp()  # type: ignore[misc]


@pytest.mark.parametrize(
    ("then", "text", "group"),
    [
        (NOW, "14:32", "Today"),
        (_at(2026, 3, 18, 0, 1), "00:01", "Today"),
        (NOW + 3600, "15:32", "Today"),  # a clock slightly ahead
        (_at(2026, 3, 17, 23, 59), "Yesterday", "Yesterday"),
        (_at(2026, 3, 17, 0, 0), "Yesterday", "Yesterday"),
        (_at(2026, 3, 16, 23, 0), "Monday", "Previous 7 days"),
        (_at(2026, 3, 12, 9, 0), "Thursday", "Previous 7 days"),
        (_at(2026, 3, 11, 9, 0), "11 Mar", "Previous 7 days"),
        (_at(2026, 3, 10, 9, 0), "10 Mar", "Previous 30 days"),
        (_at(2026, 2, 16, 9, 0), "16 Feb", "Previous 30 days"),
        (_at(2026, 2, 15, 9, 0), "15 Feb", "February"),
        (_at(2026, 1, 2, 9, 0), "2 Jan", "January"),
        (_at(2025, 12, 31, 9, 0), "31 Dec 2025", "December 2025"),
        (_at(2024, 3, 12, 9, 0), "12 Mar 2024", "March 2024"),
    ],
)
def test_dates_and_groups_in_utc(then: float, text: str, group: str) -> None:
    assert short_date(then, NOW, UTC) == text
    assert date_group(then, NOW, UTC) == group


def test_days_follow_the_local_calendar_not_24_hour_steps() -> None:
    india = timezone(timedelta(hours=5, minutes=30))
    late = _at(2026, 3, 17, 19, 0)  # 00:30 on the 18th in India, yesterday in UTC
    assert short_date(late, NOW, india) == "00:30"
    assert date_group(late, NOW, india) == "Today"
    assert short_date(late, NOW, UTC) == "Yesterday"
    just_after_midnight = _at(2026, 3, 19, 0, 5)
    assert date_group(NOW, just_after_midnight, UTC) == "Yesterday"  # 9.5 hours ago


def test_the_computers_zone_is_the_default() -> None:
    local = datetime.fromtimestamp(NOW).astimezone()
    assert short_date(NOW, NOW) == f"{local.hour:02d}:{local.minute:02d}"
    assert date_group(NOW - 400 * DAY, NOW).endswith("2025")


def test_relative_ages_round_down_to_their_unit() -> None:
    now = 1_700_000_000.0
    ages = [5.0, 0.0, 59.999, 60.0, 3599.9, 3600.0, 86399.0, 86400.0, 10 * 86400 + 5]
    assert [relative(now - age, now) for age in ages] == [
        "now",
        "now",
        "now",
        "1m ago",
        "59m ago",
        "1h ago",
        "23h ago",
        "1d ago",
        "10d ago",
    ]
    assert relative(now + 30, now) == "now"  # a clock set back
    assert relative(float("nan"), now) == "now"
