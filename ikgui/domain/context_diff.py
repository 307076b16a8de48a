"""What the model will receive next against what it received last (issue 11, item 6).

The last request is rebuilt from the log: the fold up to the newest reply (or error) in
the conversation's history, with the same :func:`~ikgui.domain.context.build_context`
the request used. The difference is by lines of :func:`~ikgui.domain.reading.format_context`
text, with long unchanged stretches folded away.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Literal

from ikgui.domain.context import Message, build_context
from ikgui.domain.events import Event, Kind
from ikgui.domain.replay import ReplayState, apply

LineOp = Literal["equal", "insert", "delete", "skipped"]
_ANSWERS = (Kind.ASSISTANT, Kind.ERROR)


def last_request(
    segments: Sequence[Sequence[Event]], system_prompt: str | None
) -> list[Message] | None:
    """The context the newest reply (or failed attempt) answered, or ``None`` if the
    model was never asked in this history."""
    flat = [(index, event) for index, segment in enumerate(segments) for event in segment]
    last = next((i for i in range(len(flat) - 1, -1, -1) if flat[i][1].kind in _ANSWERS), None)
    if last is None:
        return None
    state = ReplayState()
    segment_of = 0
    for index, event in flat[:last]:
        if index != segment_of:
            state.marks.clear()  # as replay does at each boundary
            segment_of = index
        apply(state, event)
    return build_context(state, system_prompt)


def line_diff(old: str, new: str, keep: int = 2) -> list[tuple[LineOp, str]]:
    """``new`` against ``old`` line by line; unchanged runs longer than ``2 * keep``
    lines are folded to one ``("skipped", "N unchanged lines")`` entry."""
    a, b = old.splitlines(), new.splitlines()
    out: list[tuple[LineOp, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same = b[j1:j2]
            if len(same) > 2 * keep + 1:
                out += [("equal", text) for text in same[:keep]] if out else []
                hidden = len(same) - (keep if out else 0) - keep
                out.append(("skipped", f"{hidden} unchanged lines"))
                out += [("equal", text) for text in same[-keep:]]
            else:
                out += [("equal", text) for text in same]
            continue
        out += [("delete", text) for text in a[i1:i2]]
        out += [("insert", text) for text in b[j1:j2]]
    return out
