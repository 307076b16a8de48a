"""How many of each listed conversation's messages are still in its context (the sidebar
row's ``8/12 msgs``), read from the store after the rows are painted, a batch per turn
of the event loop: ``data()`` never queries the store, and a first paint never waits
for the counts (``Store.context_counts`` reads a long conversation's rewinds).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from ikgui.domain.errors import IkguiError
from ikgui.domain.events import Conversation
from ikgui.domain.ports import Store

log = logging.getLogger(__name__)

#: What a count was read for: a conversation's last change and message count.
_Version = tuple[float, int]


class ContextCounts(QObject):
    def __init__(
        self, store: Store, changed: Callable[[str], None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._count = store.context_counts  # (another count reads another query)
        self._changed = changed
        self._known: dict[str, tuple[_Version, int]] = {}
        self._wanted: dict[str, _Version] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.read)

    def of(self, conv: Conversation) -> int | None:
        """The count for ``conv`` as it is now, or ``None`` until it is read (soon)."""
        version = (conv.updated_at, conv.message_count)
        known = self._known.get(conv.id)
        if known is not None and known[0] == version:
            return known[1]
        self._wanted[conv.id] = version
        if not self._timer.isActive():
            self._timer.start()
        return None

    def read(self) -> None:
        """Read what was asked for, and say which rows have their count now."""
        wanted, self._wanted = self._wanted, {}
        if not wanted:
            return
        try:
            counts = self._count(list(wanted))
        except IkguiError as exc:  # a locked or damaged store: the rows keep their count
            log.warning("could not count the messages in context: %s", exc)
            return
        for conv_id, version in wanted.items():
            self._known[conv_id] = (version, counts.get(conv_id, 0))
            self._changed(conv_id)
