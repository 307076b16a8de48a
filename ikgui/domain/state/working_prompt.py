"""Working-prompt extraction from assistant replies (SPEC §7).

``line`` mode: the prompt is the text after the last line starting with ``Prompt``
(plus optional words) and a colon; surrounding quotes are removed. Text on that same
line is the whole prompt, followed only by list items right below it; when the label's
line is empty, the prompt is the next paragraph (its non-empty lines) or list, joined
with spaces.

``json`` mode: the reply ends with a line ``---`` and a JSON object
``{"prompt": ..., "ready": bool}``; the text above ``---`` is what is shown, and the
prompt applies only when ``ready`` is true. A reply without a valid block, or whose block
leaves out ``ready`` (or has no prompt text), keeps the working prompt and says why
(:attr:`Extraction.warning`); ``"ready": false`` is the model saying it is not done, and
is no warning.
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
    #: Why a ``json``-mode reply set nothing although it should have (shown on the reply).
    warning: str | None = None
    #: ``line`` mode: where the prompt's label line starts when the prompt ends the reply
    #: (the window shows the reply up to there: the prompt has its own panel).
    label_start: int | None = None


def _unquote(text: str) -> str:
    text = text.strip()
    for _ in range(2):
        if text.startswith("**") and text.endswith("**") and len(text) >= 4:
            text = text[2:-2].strip()
        if len(text) >= 2 and text[0] in _QUOTES and text[-1] == _QUOTES[text[0]]:
            text = text[1:-1].strip()
    return text


def extract_line(reply: str) -> Extraction:
    reply = reply.replace("\r\n", "\n").replace("\r", "\n")
    matches = list(_PROMPT_LINE.finditer(reply))
    if not matches:
        return Extraction(None)
    last = matches[-1]
    same_line = last.group(1).strip()
    parts = [same_line] if same_line else []
    rest = reply[last.end() :].split("\n")[1:]
    used = 0  # the lines after the label's that the prompt takes (blank ones included)
    for line in rest:
        if not line.strip():
            if parts:
                break
            used += 1
            continue
        item = _BULLET.match(line)
        if same_line and item is None:
            break  # text on the label's line is the whole prompt, bar a list below it
        parts.append(line[item.end() :].strip() if item else line.strip())
        used += 1
    prompt = _unquote(" ".join(p for p in parts if p))
    if not prompt:
        return Extraction(None)
    ends = not "".join(rest[used:]).strip()
    return Extraction(prompt, label_start=last.start() if ends else None)


NO_BLOCK = "No prompt block found"


def extract_json(reply: str) -> Extraction:
    lines = reply.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].strip() != "---":
            continue
        tail = "\n".join(lines[index + 1 :]).strip()
        tail = re.sub(r"^```(?:json)?\s*|\s*```$", "", tail)
        try:
            obj = json.loads(tail)
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            return Extraction(None, warning=f"Prompt block is not valid JSON: {reason}")
        if not isinstance(obj, dict):
            return Extraction(None, warning="Prompt block is not a JSON object")
        display_end = len("\n".join(lines[:index]).rstrip())
        prompt = obj.get("prompt")
        ready = obj.get("ready")
        if ready is True and isinstance(prompt, str):
            return Extraction(prompt, display_end)
        return Extraction(None, display_end, warning=_not_applied(obj, ready, prompt))
    return Extraction(None, warning=NO_BLOCK)


def _not_applied(obj: dict[str, object], ready: object, prompt: object) -> str | None:
    """Why a well-formed block set no prompt, unless it said so itself (``"ready":
    false``: the model is not done, nothing to warn about)."""
    if "ready" not in obj:
        return 'Prompt block has no "ready": true, so its prompt was not applied'
    if not isinstance(ready, bool):
        return 'Prompt block\'s "ready" is not true or false, so its prompt was not applied'
    if ready and not isinstance(prompt, str):
        return 'Prompt block has no "prompt" text, so nothing was applied'
    return None


class PromptBlockGate:
    """Holds back a streaming ``json``-mode reply's ``---`` block from a reader that
    prints as text arrives (``ikgui run``): :meth:`feed` returns what may be shown now;
    the rest is decided by the finished reply's extraction. Other modes pass through."""

    def __init__(self, mode: str) -> None:
        self.active = mode == "json"
        self._line = ""  # the unfinished last line, not shown yet
        self._held = False  # a ``---`` line arrived: everything after waits

    def feed(self, text: str) -> str:
        if not self.active:
            return text
        if self._held:
            return ""
        shown: list[str] = []
        pending = self._line + text
        while "\n" in pending:
            line, pending = pending.split("\n", 1)
            if line.strip() == "---":
                self._held, self._line = True, ""
                return "".join(shown)
            shown.append(line + "\n")
        if "---".startswith(pending.strip()):
            self._line = pending  # may still become the ``---`` line
        else:
            shown.append(pending)
            self._line = ""
        return "".join(shown)


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
