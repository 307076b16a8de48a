"""Markdown cut short: a reply stopped (or whose writer died) mid-sentence may end inside
``**bold``, ``*emphasis``, ``~~strike`` or an inline ```code`` span, which Markdown then
shows as raw marks. Closing what its last paragraph left open renders it as a finished
reply of the same words would be (issue 20 item 15); a fenced block left open needs
nothing (Markdown runs it to the end)."""

from __future__ import annotations

import re

from ikgui.ui.transcript.render_budget import fence_after

#: Inline marks, longest first; a ``*`` or ``_`` alone only where it can open or close
#: emphasis (not ``2 * 3``, not ``snake_case``, not a list bullet).
_MARKS = re.compile(r"`+|\*\*|__|~~|(?<!\s)\*|\*(?!\s)|(?<![\w])_(?!\s)|(?<!\s)_(?![\w])")
_BULLET = re.compile(r"^[ \t]*[*+-][ \t]", re.MULTILINE)


def close_open_marks(text: str) -> str:
    """``text`` with the inline marks its last paragraph leaves open closed (innermost
    first); a mark with nothing after it is dropped instead."""
    fence = ""
    for line in text.split("\n"):
        fence = fence_after(fence, line)
    if fence:
        return text  # inside a code block: nothing inline to close
    start = text.rfind("\n\n") + 1
    paragraph = _BULLET.sub(lambda m: " " * len(m.group()), text[start:])
    stack: list[tuple[str, int]] = []
    for match in _MARKS.finditer(paragraph):
        mark = match.group()
        if stack and stack[-1][0].startswith("`"):
            if mark == stack[-1][0]:
                stack.pop()  # (the code span closes; marks inside it are code)
            continue
        if stack and stack[-1][0] == mark:
            stack.pop()
        else:
            stack.append((mark, start + match.start()))
    if not stack:
        return text
    closed = text.rstrip()
    closers = ""
    for mark, at in reversed(stack):
        if not closed[at + len(mark) :].strip():
            closed = closed[:at].rstrip()  # an opening mark with nothing after it
        else:
            closers += mark
    return closed + closers
