"""Rules that several layers apply, each in one place: the title, the model in force.

(The reader's view of events, role labels and the context as text live in
:mod:`ikgui.domain.state.reading`; tags in :func:`ikgui.domain.state.ids.normalize_tag`.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ikgui.domain.attachments import listed
from ikgui.domain.events import Conversation, Kind
from ikgui.domain.settings import Settings
from ikgui.domain.state.ids import auto_title

if TYPE_CHECKING:  # the replay (and its facts) is not needed to list or rename
    from ikgui.domain.state.replay import ReplayState


def user_title(text: str) -> str | None:
    """A title a user gives (``/title``, a rename in the sidebar or ``ikgui conv
    rename``): whitespace collapsed; ``None`` when nothing is left (no title)."""
    return " ".join(text.split()) or None


def user_title_fields(text: str) -> dict[str, str | bool | None]:
    """The stored fields a user's title sets (``/title``, a rename: one rule): the
    title, and ``title_by_user`` (an automatic or model title never replaces it)."""
    clean = user_title(text)
    return {"title": clean, "title_by_user": clean is not None}


def title_for_first_message(
    conv: Conversation, kind: str, content: str, data: Mapping[str, Any] | None = None
) -> str | None:
    """The automatic title a message gives a conversation that has none yet (a message
    of files alone: their names)."""
    if kind != Kind.USER or conv.title:
        return None
    if content.strip():
        return auto_title(content)
    names = [a.name for a in listed(data)]
    return auto_title(", ".join(names)) if names else None


#: A fork's default title: ``↳ Title · branch 2`` (a fork of it: ``… · branch 2.1``).
#: How much of the parent's title a fork's default title repeats (the branch number must
#: stay visible in a narrow sidebar).
FORK_BASE = 22
_BRANCH = re.compile(r"^↳ (?P<base>.*) · branch (?P<number>\d+(?:\.\d+)*)$", re.DOTALL)


def fork_title(parent_title: str | None, number: int, prompt: str | None = None) -> str | None:
    """The title a new fork gets: the first words of ``/fork PROMPT`` when one is given,
    else ``↳ <parent's title> · branch <number>`` (``number``: the parent's children,
    this one included; a long title cut to ``FORK_BASE`` characters); a fork of a fork
    extends its number (``branch 2.1``). An untitled parent's fork stays untitled (its
    first message titles it)."""
    if prompt and prompt.strip():
        return auto_title(prompt)
    if not parent_title:
        return None
    match = _BRANCH.match(parent_title)
    if match:
        return f"↳ {match['base']} · branch {match['number']}.{number}"
    base = parent_title
    if len(base) > FORK_BASE:  # at a word's end when there is one
        cut = base[: FORK_BASE - 1]
        base = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip() + "…"
    return f"↳ {base} · branch {number}"


def branch_name(title: str | None) -> str | None:
    """``branch 2.1`` for a fork's default title (``↳ Title · branch 2.1``), else ``None``:
    what a deeper fork's row names its parent by when all share the base title."""
    match = _BRANCH.match(title or "")
    return f"branch {match['number']}" if match else None


def current_model(state: ReplayState, conv: Conversation, settings: Settings) -> str | None:
    """The model a conversation's next request uses: its last ``/model`` (replayed, so a
    rewind or an ancestor counts), else its stored column, else the default."""
    return state.model or conv.model or settings.default_model


def current_provider(state: ReplayState, conv: Conversation, settings: Settings) -> str:
    """The provider a conversation's next request goes to, by the same rule: its last
    move (``/model provider/model``, replayed), else its stored column, else the default."""
    return state.provider or conv.provider or settings.default_provider
