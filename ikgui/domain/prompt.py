"""Working-prompt extraction from assistant replies (SPEC §7).

``line`` mode: the prompt is the text after the last line starting with ``Prompt``
(plus optional words) and a colon; it may continue on the following non-empty lines
or list items, joined with spaces; surrounding quotes are removed.

``json`` mode: the reply ends with a line ``---`` and a JSON object
``{"prompt": ..., "ready": bool}``; the text above ``---`` is what is shown, and the
prompt applies only when ``ready`` is true.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

PROMPT_MODES = ("off", "line", "json")

_PROMPT_LINE = re.compile(
    r"^[ \t>]*(?:[*_]{1,3})?prompt\b[^:\n]{0,60}?:(?:[*_]{1,3})?[ \t]*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "`": "`", "«": "»"}


@dataclass(frozen=True)
class Extraction:
    """What a reply yields: the prompt (``None``: leave the working prompt alone) and
    where the shown text ends (``None``: show all of it)."""

    prompt: str | None
    display_end: int | None = None


def _unquote(text: str) -> str:
    text = text.strip()
    for _ in range(2):
        if text.startswith("**") and text.endswith("**") and len(text) >= 4:
            text = text[2:-2].strip()
        if len(text) >= 2 and text[0] in _QUOTES and text[-1] == _QUOTES[text[0]]:
            text = text[1:-1].strip()
    return text


def extract_line(reply: str) -> Extraction:
    matches = list(_PROMPT_LINE.finditer(reply))
    if not matches:
        return Extraction(None)
    last = matches[-1]
    parts = [last.group(1).strip()] if last.group(1).strip() else []
    for line in reply[last.end() :].split("\n")[1:]:
        if not line.strip():
            if parts:
                break
            continue
        parts.append(_BULLET.sub("", line).strip())
    prompt = _unquote(" ".join(p for p in parts if p))
    return Extraction(prompt or None)


def extract_json(reply: str) -> Extraction:
    lines = reply.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].strip() != "---":
            continue
        tail = "\n".join(lines[index + 1 :]).strip()
        tail = re.sub(r"^```(?:json)?\s*|\s*```$", "", tail)
        try:
            obj = json.loads(tail)
        except ValueError:
            return Extraction(None)
        if not isinstance(obj, dict):
            return Extraction(None)
        display_end = len("\n".join(lines[:index]).rstrip())
        prompt = obj.get("prompt")
        if obj.get("ready") is True and isinstance(prompt, str):
            return Extraction(prompt, display_end)
        return Extraction(None, display_end)
    return Extraction(None)


def extract(reply: str, mode: str) -> Extraction:
    """The working prompt a reply sets under ``mode`` (``off``, ``line`` or ``json``)."""
    if mode == "line":
        return extract_line(reply)
    if mode == "json":
        return extract_json(reply)
    return Extraction(None)


def edit_notice(prompt: str) -> str:
    return f'[user edited prompt to: "{prompt}"]'


def current_prompt_line(prompt: str) -> str:
    return f'[current prompt: "{prompt}"]'
