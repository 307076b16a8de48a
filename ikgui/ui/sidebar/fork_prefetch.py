"""The forks of the rows a page (or a reload) brings, read in one query before the view
asks.

The list paints each row's arrow when it has forks; answered one row at a time, that is
one store query per row painted (a screenful at each page step). :class:`ForkPrefetch`
reads the forks of all of a batch's rows with ``Store.children_of`` and hands each row's
list out once; a row whose forks may have changed since (a fork was added, trashed,
tagged...) is forgotten, and its next ask reads the store again.
"""

from __future__ import annotations

from collections.abc import Iterable

from ikgui.domain.events import Conversation
from ikgui.domain.ports import Store


class ForkPrefetch:
    """Forks read ahead, by parent id; each list is taken once."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._forks: dict[str, list[Conversation]] = {}

    def read(self, conv_ids: Iterable[str]) -> None:
        """Read the forks of ``conv_ids`` (those not already read) in one query."""
        wanted = [c for c in dict.fromkeys(conv_ids) if c not in self._forks]
        if wanted:
            self._forks.update(self._store.children_of(wanted))

    def take(self, conv_id: str) -> list[Conversation] | None:
        """The forks read ahead for ``conv_id`` (``None``: ask the store)."""
        return self._forks.pop(conv_id, None)

    def forget(self, *conv_ids: str | None) -> None:
        """Drop what was read for these conversations (their forks changed)."""
        for conv_id in conv_ids:
            if conv_id is not None:
                self._forks.pop(conv_id, None)

    def clear(self) -> None:
        self._forks.clear()
