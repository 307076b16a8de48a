"""Issue 21 item 5: tag operations cost what changes, not what a conversation carries.

A conversation with 20,000 tags (an old import) is tagged, untagged and given its tags
back while the test counts the rows the database writes (SQLite's ``total_changes``,
which counts every inserted, updated or deleted row, triggers' included): a handful,
where rewriting every tag wrote ~80,000."""

from __future__ import annotations

from ikgui.domain.library import conversations as library
from ikgui.storage import SqliteStore
from tests.storage.helpers import add_conversation

STORES = ("sqlite", "postgresql")
MANY = 20_000
NAMES = [f"t{n:05d}" for n in range(MANY)]


def _many_tags(store: SqliteStore) -> None:
    add_conversation(store, "chat-many")
    store.set_tags("chat-many", NAMES)


def _rows_written(store: SqliteStore, action: object) -> int:
    if store.kind != "sqlite":
        action()  # type: ignore[operator]
        return 0
    before = store._connection().total_changes
    action()  # type: ignore[operator]
    return int(store._connection().total_changes - before)


def test_tagging_a_conversation_with_many_tags_writes_only_the_change(store: SqliteStore) -> None:
    _many_tags(store)
    written = _rows_written(
        store, lambda: library.retag(store, "chat-many", ["+new", "-t00005", "+t00006"])
    )
    assert written < 20
    tags = store.get_conversation("chat-many").tags  # type: ignore[union-attr]
    assert len(tags) == MANY and "new" in tags and "t00005" not in tags
    assert list(tags) == sorted(tags)


def test_setting_all_tags_writes_only_the_difference(store: SqliteStore) -> None:
    _many_tags(store)
    wanted = [*NAMES[1:], "zz"]
    assert _rows_written(store, lambda: store.set_tags("chat-many", wanted)) < 20
    assert store.get_conversation("chat-many").tags == tuple(wanted)  # type: ignore[union-attr]
    store.set_tags("chat-many", ["a"])
    assert store.get_conversation("chat-many").tags == ("a",)  # type: ignore[union-attr]


def test_the_last_word_about_a_tag_wins(store: SqliteStore) -> None:
    add_conversation(store, "chat-one", tags=("keep", "old"))
    conv = library.retag(store, "chat-one", ["+x", "-x", "-old", "+old", "-keep", "y"])
    assert conv.tags == ("old", "y")
