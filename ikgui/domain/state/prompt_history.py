"""The working prompt's history (issue 11): every version a conversation's log set, who
set it, and word-level differences between versions.

A version is any event after which the fold's working prompt differs from before: an
assistant's draft, the user's edit (or a restore of an earlier version, which is an edit
that says so), a rewind to a mark that had another prompt, a clear. The history is read
from the same fold as the context, so the two cannot disagree.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ikgui.domain.events import Event, Kind
from ikgui.domain.state.replay import ReplayState, apply, replay

Author = Literal["assistant", "you", "restored", "rewind", "cleared"]

#: Who set a version, as the window says it.
AUTHOR_LABELS: dict[str, str] = {
    "assistant": "The assistant drafted it",
    "you": "You edited it",
    "restored": "You restored an earlier version",
    "rewind": "A rewind restored it",
    "cleared": "Cleared with the context",
}

#: ``data`` key of a ``prompt_edit`` that restores an earlier version: that version's event.
RESTORED_FROM = "restored_from"

#: Past this many words on either side, a change is shown as one replacement (difflib is
#: quadratic in the worst case).
DIFF_WORDS_LIMIT = 4000

DiffOp = Literal["equal", "insert", "delete"]
#: Spaces, words, and each punctuation mark alone: "sea" → "sea, red-and-white" keeps
#: "sea" and inserts ", red-and-white" (a word and its comma are not one token).
_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")
_WORDS = re.compile(r"\w+(?:[-'’]\w+)*")


@dataclass(frozen=True)
class PromptVersion:
    text: str
    previous: str
    author: Author
    event_id: int
    created_at: float

    @property
    def label(self) -> str:
        return AUTHOR_LABELS[self.author]


def same_prompt(a: str, b: str) -> bool:
    """Whether two prompt texts differ only in whitespace (which is not an edit)."""
    return a.split() == b.split()


def _author(event: Event) -> Author:
    if event.kind == Kind.ASSISTANT:
        return "assistant"
    if event.kind == Kind.PROMPT_EDIT:
        return "restored" if event.data.get(RESTORED_FROM) is not None else "you"
    if event.kind == Kind.CLEAR:
        return "cleared"
    return "rewind"


def prompt_versions(segments: Sequence[Sequence[Event]]) -> list[PromptVersion]:
    """The versions the log sets, oldest first (``segments`` as ``load_segments`` gives)."""
    versions: list[PromptVersion] = []

    def step(state: ReplayState, event: Event) -> None:
        before = state.working_prompt
        apply(state, event)
        if state.working_prompt != before:
            versions.append(
                PromptVersion(
                    state.working_prompt, before, _author(event), event.id, event.created_at
                )
            )

    replay(segments, step)
    return versions


def word_diff(old: str, new: str) -> list[tuple[DiffOp, str]]:
    """``new`` against ``old`` word by word: runs of equal, inserted and deleted text
    (whitespace kept, so joining the equal and inserted runs gives ``new``)."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    if len(a) > DIFF_WORDS_LIMIT or len(b) > DIFF_WORDS_LIMIT:
        whole: list[tuple[DiffOp, str]] = [("delete", old), ("insert", new)]
        return [run for run in whole if run[1]]
    runs: list[tuple[DiffOp, str]] = []

    def add(op: DiffOp, text: str) -> None:
        if not text:
            return
        if runs and runs[-1][0] == op:
            runs[-1] = (op, runs[-1][1] + text)
        else:
            runs.append((op, text))

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    opcodes = matcher.get_opcodes()
    pending_delete, pending_insert = "", ""
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        same = "".join(b[j1:j2]) if tag == "equal" else ""
        between = 0 < index < len(opcodes) - 1 and tag == "equal" and not same.strip()
        if tag != "equal" or (between and (pending_delete or pending_insert)):
            # A change, or only spaces between two changes: one replacement reads better.
            pending_delete += "".join(a[i1:i2])
            pending_insert += "".join(b[j1:j2])
            continue
        add("delete", pending_delete)
        add("insert", pending_insert)
        pending_delete, pending_insert = "", ""
        add("equal", same)
    add("delete", pending_delete)
    add("insert", pending_insert)
    return runs


def diff_counts(runs: Sequence[tuple[DiffOp, str]]) -> tuple[int, int]:
    """How many words were inserted and deleted (punctuation is no word; a hyphenated
    word is one)."""
    inserted = sum(len(_WORDS.findall(text)) for op, text in runs if op == "insert")
    deleted = sum(len(_WORDS.findall(text)) for op, text in runs if op == "delete")
    return inserted, deleted
