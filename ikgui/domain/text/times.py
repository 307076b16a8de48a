"""Time formatting and parsing for listings and ``clean --older``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta, tzinfo

from ikgui.domain.errors import UsageError

_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}


def relative(then: float, now: float) -> str:
    """``now``, ``5m ago``, ``2h ago``, ``3d ago`` (SPEC §9)."""
    seconds = now - then
    if not seconds >= 60:  # the future (a clock set back) and NaN too
        return "now"
    if seconds < 3600:
        return f"{int(seconds) // 60}m ago"
    if seconds < 86400:
        return f"{int(seconds) // 3600}h ago"
    return f"{int(seconds) // 86400}d ago"


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

TODAY = "Today"
YESTERDAY = "Yesterday"
PREVIOUS_7 = "Previous 7 days"
PREVIOUS_30 = "Previous 30 days"


def _local(timestamp: float, tz: tzinfo | None) -> datetime:
    """``timestamp`` as a wall-clock time in ``tz`` (``None``: the computer's zone)."""
    if tz is None:
        return datetime.fromtimestamp(timestamp).astimezone()
    return datetime.fromtimestamp(timestamp, tz)


def _days_ago(then: datetime, now: datetime) -> int:
    """Calendar days from ``then``'s date to ``now``'s (0: the same day; < 0: future)."""
    return (now.date() - then.date()).days


def short_date(then: float, now: float, tz: tzinfo | None = None) -> str:
    """A row's date: ``14:32`` today, ``Yesterday``, the weekday within a week, then
    ``12 Mar`` this year or ``12 Mar 2024`` (English, whatever the locale)."""
    when, today = _local(then, tz), _local(now, tz)
    days = _days_ago(when, today)
    if days == 0:
        return f"{when.hour:02d}:{when.minute:02d}"
    if days == 1:
        return YESTERDAY
    if 1 < days < 7:
        return _WEEKDAYS[when.weekday()]
    day = f"{when.day} {_MONTHS[when.month - 1]}"
    return day if when.year == today.year else f"{day} {when.year}"


def date_group(then: float, now: float, tz: tzinfo | None = None) -> str:
    """The sidebar's header for a time: ``Today``, ``Yesterday``, ``Previous 7 days``,
    ``Previous 30 days``, then the month (``March``; ``March 2024`` in another year).
    A time in the future (another computer's clock) counts as today."""
    when, today = _local(then, tz), _local(now, tz)
    days = _days_ago(when, today)
    if days <= 0:
        return TODAY
    if days == 1:
        return YESTERDAY
    if days <= 7:
        return PREVIOUS_7
    if days <= 30:
        return PREVIOUS_30
    month = _MONTH_NAMES[when.month - 1]
    return month if when.year == today.year else f"{month} {when.year}"


def day_bounds(now: float, tz: tzinfo | None = None) -> tuple[float, float]:
    """The local midnights that start ``now``'s day and the next (groups change there)."""
    today = _local(now, tz)
    zone = today.tzinfo
    start = datetime.combine(today.date(), time(), zone)
    end = datetime.combine(today.date() + timedelta(days=1), time(), zone)
    if tz is None:  # the computer's zone: the offset may differ at either midnight (DST)
        start = datetime.combine(today.date(), time()).astimezone()
        end = datetime.combine(today.date() + timedelta(days=1), time()).astimezone()
    return start.timestamp(), end.timestamp()


def parse_age(text: str) -> float:
    """``30m``, ``12h``, ``7d``, ``2w`` as seconds."""
    match = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text.lower())
    if not match:
        raise UsageError(f"Invalid age '{text}': use a number and m, h, d or w (e.g. 7d)")
    return int(match.group(1)) * _UNITS[match.group(2)]


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def parse_iso(value: object) -> float:
    """An ISO 8601 string (or a number of seconds) as Unix seconds; naive means UTC."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        raise ValueError(f"not a timestamp: {value!r}")
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()
