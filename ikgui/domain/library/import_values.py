"""Values read from an import file, made safe to store: numbers, text and tool calls."""

from __future__ import annotations

import json
import math
from typing import Any

from ikgui.domain.errors import UserError
from ikgui.domain.state.ids import shown

#: Largest token count accepted (SQLite integers stop at 2**63 - 1).
MAX_TOKENS = 10**15
#: Largest cost accepted, in the price table's currency.
MAX_COST = 1e12


def _number(value: Any, name: str, where: str, limit: float) -> float:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(
            f"Not a valid export: {where} has {name} {shown(json.dumps(value))}, not a number"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(f"Not a valid export: {where} has {name} {value}, not a number")
    if not 0 <= value <= limit:
        raise UserError(
            f"Not a valid export: {where} has {name} {shown(str(value))}, "
            f"out of range (0 to {limit:g})"
        )
    return value


def count(value: Any, name: str, where: str) -> int:
    """A token count: a whole number from 0 to ``MAX_TOKENS`` (missing is 0)."""
    return int(_number(value, name, where, MAX_TOKENS))


def money(value: Any, name: str, where: str) -> float:
    """A cost: a finite number from 0 to ``MAX_COST`` (missing is 0)."""
    return float(_number(value, name, where, MAX_COST))


def text(value: Any) -> str | None:
    """A text field: strings as they are, other scalars as text, objects as JSON."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _clean(value: str) -> str:
    # A lone surrogate (a JSON "\udc80") cannot be stored as UTF-8: it becomes "?".
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def clean_strings(document: Any) -> Any:
    """``document`` with every string (keys too) storable as UTF-8; iterative, so any
    depth ``json.loads`` accepted is fine."""
    root: list[Any] = [document]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        value = holder[key]
        if isinstance(value, str):
            holder[key] = _clean(value)
        elif isinstance(value, list):
            stack.extend((value, i) for i in range(len(value)))
        elif isinstance(value, dict):
            if any(isinstance(k, str) and _clean(k) != k for k in value):
                value = {_clean(k): v for k, v in value.items()}
                holder[key] = value
            stack.extend((value, k) for k in value)
    return root[0]


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    return parsed if isinstance(parsed, dict) else raw


def tool_call_data(data: dict[str, Any]) -> dict[str, Any]:
    """A tool call's data as ikgui stores it, ``{id, name, arguments}``, also from
    OpenAI's nested ``{id, type: "function", function: {name, arguments: "<json>"}}``."""
    function = data.get("function")
    if not isinstance(function, dict) or "name" in data:
        return data
    rest = {k: v for k, v in data.items() if k not in ("function", "type")}
    return {
        **rest,
        "id": text(data.get("id")) or "",
        "name": text(function.get("name")) or "",
        "arguments": _arguments(function.get("arguments")),
    }


#: Who may have decided about a call, as a log records it (``ikgui``: refused by rule).
_DECIDERS = ("user", "conversation", "config", "ikgui")
_DECISIONS = ("once", "conversation", "always", "deny")


def _known(data: dict[str, Any], key: str) -> None:
    """``data[key]`` as text, or gone when it is none."""
    value = text(data.get(key)) if key in data else None
    if value is None:
        data.pop(key, None)
    else:
        data[key] = value


def _name(data: dict[str, Any], key: str) -> None:
    """``data[key]`` kept only when it is a name (text): a server named by anything
    else names none."""
    if not isinstance(data.get(key), str):
        data.pop(key, None)


def tool_event_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """A ``tool_call``, ``tool_approval`` or ``tool_result``'s data from a file, as the log
    may hold it: each field of the type the log gives it (ids, names and servers text;
    a result's output text, its success true only when the file says ``true``; a
    decision one of the four, else a denial).

    A decision from a file is a record of what happened elsewhere, never a grant here:
    it is marked ``imported``, and replay lets no imported "Allow in this
    conversation" stand (a file must not allow a tool without the user)."""
    data = dict(tool_call_data(data)) if kind == "tool_call" else dict(data)
    if kind == "tool_call":
        data["id"] = text(data.get("id")) or ""
        data["name"] = text(data.get("name")) or ""
        _name(data, "server")
        _name(data, "wire")
    elif kind == "tool_approval":
        data["tool_call_id"] = text(data.get("tool_call_id")) or ""
        if data.get("decision") not in _DECISIONS:
            data["decision"] = "deny"
        if data.get("by") not in _DECIDERS:
            data["by"] = "user"
        _known(data, "note")
        data["imported"] = True
    else:
        data["tool_call_id"] = text(data.get("tool_call_id")) or ""
        data["name"] = text(data.get("name")) or ""
        _name(data, "server")
        data["output"] = text(data.get("output")) or ""
        data["success"] = data.get("success") is True
        seconds = data.get("seconds")
        if "seconds" in data and not (
            isinstance(seconds, int | float)
            and not isinstance(seconds, bool)
            and math.isfinite(seconds)
            and 0 <= seconds <= 10**9
        ):
            del data["seconds"]
    return data
