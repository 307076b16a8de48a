"""Time formatting and parsing for listings and ``clean --older``."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ikgui.domain.errors import UsageError

_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}


def relative(then: float, now: float) -> str:
    """``now``, ``5m ago``, ``2h ago``, ``3d ago`` (SPEC §9)."""
    seconds = max(0.0, now - then)
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    return f"{int(seconds // 86400)}d ago"


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
