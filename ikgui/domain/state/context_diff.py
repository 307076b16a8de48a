"""What the model will receive next against what it received last (issue 11, item 6).

The last request is rebuilt from the log: the fold up to the newest reply (or error) in
the conversation's history, with the same :func:`~ikgui.domain.state.context.build_context`
the request used. The difference is by lines of :func:`~ikgui.domain.state.reading.format_context`
text, with long unchanged stretches folded away.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Literal

from ikgui.domain.events import Event, Kind
from ikgui.domain.state.context import Message, build_context
from ikgui.domain.state.replay import replay

LineOp = Literal["equal", "insert", "delete", "skipped"]
_ANSWERS = (Kind.ASSISTANT, Kind.ERROR)


def last_request(
    segments: Sequence[Sequence[Event]], system_prompt: str | None
) -> list[Message] | None:
    """The context the newest reply (or failed attempt) answered, or ``None`` if the
    model was never asked in this history."""
    for index in range(len(segments) - 1, -1, -1):
        segment = segments[index]
        answer = next(
            (i for i in range(len(segment) - 1, -1, -1) if segment[i].kind in _ANSWERS), None
        )
        if answer is not None:  # the history up to that answer, folded as replay does
            state = replay([*segments[:index], segment[:answer]])
            return build_context(state, system_prompt)
    return None


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
