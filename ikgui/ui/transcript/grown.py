"""A growing reply saved by another process (:mod:`ikgui.domain.session.elsewhere`): its item
gets the text it lacks appended, as if it had streamed here, so the reply grows in
place (its finished Markdown blocks rendered as they complete) without re-rendering."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ikgui.ui.transcript.render import Item
    from ikgui.ui.transcript.scrollback import ScrollbackView


def grow(view: ScrollbackView, item: Item) -> bool:
    """Show what the stored text of ``item.event`` adds to what the item shows.
    ``False``: the stored text is not a continuation (write the item again whole)."""
    stored = item.event.content
    shown = item.stream or ""
    if stored.startswith(shown):
        if len(stored) > len(shown):
            view.append_text(item.event.id, stored[len(shown) :])
        return True
    return shown.startswith(stored)  # an older save of a reply streaming here
