"""Counting what a store is asked: wrap a store's methods on the instance, so every
holder of that store (the session, the sidebar's model, the command line) is counted.

Works on any store (``MemoryStore``, ``SqliteStore``, ``PostgresStore``): the counts
say how often each method was called, and :meth:`Reads.of` how often one conversation's
row was read (alone or in a batch of ids).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

#: The store's methods that read conversation rows by id.
ROW_READS = ("get_conversation", "get_conversations")


class Reads:
    """The calls made to a store's row readers since :func:`count_reads`."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.rows: Counter[str] = Counter()

    def of(self, conv_id: str) -> int:
        """How many times ``conv_id``'s row was read."""
        return self.rows[conv_id]

    def reset(self) -> None:
        self.calls.clear()
        self.rows.clear()


def count_reads(store: Any, methods: Iterable[str] = ROW_READS) -> Reads:
    """Count the calls to ``methods`` of ``store`` (and the rows they read by id)."""
    reads = Reads()
    for name in methods:
        setattr(store, name, _counted(reads, name, getattr(store, name)))
    return reads


def _counted(reads: Reads, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.calls[name] += 1
        if args:
            ids = [args[0]] if isinstance(args[0], str) else list(args[0])
            reads.rows.update(ids)
        return method(*args, **kwargs)

    return counted
