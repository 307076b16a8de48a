"""What a fork's sidebar row says about its branch (issue 12 item 3, in words since issue
25): the messages it carries and its own (``12 messages · 2 in this branch``), and
``branch of <title>`` for a fork shown below the last indented level;
:class:`InheritedCounts` reads the carried counts after the rows are painted, like the
in-context counts."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from ikgui.domain.events import Conversation
from ikgui.domain.ports import Store
from ikgui.domain.state.rules import branch_name
from ikgui.ui.plain import line
from ikgui.ui.sidebar.context_counts import ContextCounts


def messages(count: int) -> str:
    """``1 message``, ``12 messages``."""
    return "1 message" if count == 1 else f"{count:,} messages"


def branch_count_text(own: int, inherited: int | None, in_context: int | None = None) -> str:
    """``12 messages · 2 in this branch`` for a fork carrying 10 messages (``12 messages ·
    10 in context · 2 in this branch`` when some of its own are out of the context);
    ``None`` or 0 carried: ``""`` (the plain count applies)."""
    if not inherited:
        return ""
    shown = messages(inherited + own)
    if in_context is not None and in_context != own:
        shown = f"{shown} · {inherited + in_context:,} in context"
    return f"{shown} · {own:,} in this branch"


def branch_count_sentence(own: int, inherited: int | None) -> str:
    """The carried count in words (the row's accessible text); ``""`` when none."""
    if not inherited:
        return ""
    said = "1 message" if inherited == 1 else f"{inherited} messages"
    return f"{said} carried from the conversation it branches from, {own} of its own"


def branch_of_text(parent: Conversation) -> str:
    """``branch of <title>`` (one line, control characters visible); a parent with a
    fork's default title is named by its number (``branch of “branch 2.1”``), the part
    that differs between forks of one conversation."""
    name = branch_name(parent.title)
    return line(f"branch of “{name}”" if name else f"branch of {parent.title or parent.id}")


class InheritedCounts(ContextCounts):
    """How many messages each fork row carries from its ancestors (0 for a root, without
    a query), read a batch per turn of the event loop (``Store.inherited_counts``)."""

    def __init__(
        self, store: Store, changed: Callable[[str], None], parent: QObject | None = None
    ) -> None:
        super().__init__(store, changed, parent)
        self._count = store.inherited_counts

    def of(self, conv: Conversation) -> int | None:
        return super().of(conv) if conv.parent is not None else 0
