"""``Store.listing_version()``: moves when another connection changed what a listing shows,
stays when only existing events changed (a reply growing elsewhere).

On both stores: a second store on the same database writes, the first one reads.
PostgreSQL's version comes from the change listener (the tests wait until it has taken in
every notification sent before: ``heard_all``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from ikgui.domain.folders import Project, SmartFolder
from ikgui.storage import PeeweeStore, migrations, open_store, pg_migrations
from ikgui.storage.migrations import MIGRATIONS
from ikgui.storage.models import ConversationRow
from ikgui.storage.pg_listen import CHANNEL
from ikgui.storage.pg_migrations import PG_MIGRATIONS
from tests.storage.conftest import BOTH, open_kind
from tests.storage.helpers import add_conversation
from tests.support.waiting import wait_for

STORES = BOTH

GROWING = {"streaming": True, "owner": 1}


@pytest.fixture
def other(store_kind: str, db_path: Path, request: pytest.FixtureRequest) -> Iterator[PeeweeStore]:
    """A second store on the store's database (another process, another machine)."""
    s = open_kind(store_kind, request, db_path)
    yield s
    s.close()


def heard_all(store: PeeweeStore) -> None:
    """PostgreSQL: the store's listener has taken in every notification sent so far.
    One more is sent (from a connection of its own, about an event: it moves no
    listing) and waited for; PostgreSQL delivers them in commit order, so the earlier
    ones were taken in before it. (Counted, not waited out with a sleep.)"""
    store.data_version()  # starts the listener
    listener = store.listener
    wait_for(lambda: listener.connected, 10)
    seen: set[int] = set()
    is_own = listener.is_own
    listener.is_own = lambda pid: seen.add(pid) or is_own(pid)  # type: ignore[method-assign]
    try:
        with psycopg.connect(listener._conninfo, autocommit=True) as conn:
            conn.execute("SELECT pg_notify(%s, 'event')", (CHANNEL,))
            pid = conn.info.backend_pid
        wait_for(lambda: pid in seen)
    finally:
        del listener.is_own


def quiet(store: PeeweeStore) -> int:
    """The listing version once every change written so far was heard."""
    if store.kind == "postgresql":
        heard_all(store)
    return store.listing_version()


def moves(store: PeeweeStore, write: Callable[[], object]) -> bool:
    before = quiet(store)
    write()
    return quiet(store) != before


def test_a_reply_growing_elsewhere_leaves_the_listing_version(
    store: PeeweeStore, other: PeeweeStore
) -> None:
    add_conversation(other, "c1", title="One")
    other.append_event("c1", "user", "question")
    reply = other.append_event("c1", "assistant", "", GROWING)

    def grow(text: str) -> None:
        other.update_event(reply.id, text, GROWING)
        other.settle()  # (PostgreSQL: a growing reply is saved by the database thread)

    assert moves(store, lambda: grow("first"))  # a message more
    for text in ("first words", "first words and", "first words and more"):
        assert not moves(store, lambda t=text: grow(t))
    assert not moves(store, lambda: other.update_event(reply.id, "the whole reply", {"ok": 1}))


def test_every_change_a_listing_shows_moves_the_listing_version(
    store: PeeweeStore, other: PeeweeStore
) -> None:
    add_conversation(other, "c1", title="One", tags=["a"])
    changes: dict[str, Callable[[], object]] = {
        "new conversation": lambda: add_conversation(other, "c2", title="Two"),
        "new event": lambda: other.append_event("c1", "user", "more"),
        "a clear": lambda: other.append_event("c1", "clear", ""),
        "rename": lambda: other.update_conversation("c1", title="Uno"),
        "agent": lambda: other.update_conversation("c1", agent="coder"),
        "model": lambda: other.update_conversation("c1", model="other-model"),
        "pin": lambda: other.set_pinned(["c1"], True),
        "tags": lambda: other.set_tags("c1", ["a", "b"]),
        "tag renamed": lambda: other.rename_tag("b", "c"),
        "tag deleted": lambda: other.delete_tag("c"),
        "closed": lambda: other.update_conversation("c1", status="killed"),
        "trash": lambda: other.update_conversation("c2", trashed_at=time.time()),
        "restore": lambda: other.update_conversation("c2", trashed_at=None),
        "deleted": lambda: other.delete_conversations(["c2"]),
        # Folders (SPEC §15): another machine's smart folders and projects are seen too.
        "folder moved": lambda: other.move_tags("a", "x/a"),
        "smart folder": lambda: other.put_smart_folder(SmartFolder("S", "", ("a",))),
        "smart folder deleted": lambda: other.delete_smart_folder("S"),
        "project": lambda: other.put_project(Project("x", model="m")),
        "project deleted": lambda: other.delete_project("x"),
    }
    quiet(store)
    for name, change in changes.items():
        assert moves(store, change), name


def test_a_draft_or_usage_saved_elsewhere_leaves_the_listing_version(
    store: PeeweeStore, other: PeeweeStore
) -> None:
    add_conversation(other, "c1", title="One")
    assert not moves(store, lambda: other.update_conversation("c1", draft="half a thought"))
    assert not moves(store, lambda: other.add_usage("c1", 10, 20, 0.5))
    assert moves(store, lambda: other.update_conversation("c1", title="Uno", draft=""))


def test_working_prompt_drafts_are_stored_and_leave_the_listing_version(
    store: PeeweeStore, other: PeeweeStore
) -> None:
    """Issue 22, item 8: the working prompt's drafts are session state kept with the
    conversation (seen by another process or machine), not a change of any listing."""
    add_conversation(other, "c1", title="One")
    assert not moves(store, lambda: other.update_conversation("c1", prompt_draft="a red fox"))
    assert not moves(store, lambda: other.update_conversation("c1", prompt_set_aside="a cat"))
    seen = store.get_conversation("c1")
    assert seen is not None
    assert (seen.prompt_draft, seen.prompt_set_aside) == ("a red fox", "a cat")
    other.update_conversation("c1", prompt_draft="", prompt_set_aside=None)  # "": an edit
    again = store.get_conversation("c1")
    assert again is not None and (again.prompt_draft, again.prompt_set_aside) == ("", None)
    listed = store.list_conversations()[0]
    assert (listed.prompt_draft, listed.prompt_set_aside) == ("", None)


@pytest.mark.parametrize("kind", BOTH)
def test_a_database_from_before_schema_4_keeps_its_rows_and_counts_once_upgraded(
    kind: str, db_path: Path, request: pytest.FixtureRequest
) -> None:
    location: Path | str = db_path
    if kind == "postgresql":
        location = request.getfixturevalue("pg_url")
        before: tuple[object, ...] = PG_MIGRATIONS[:3]
    else:
        before = MIGRATIONS[:3]
    with open_store(location, migrations=before) as old:
        add_conversation(old, "c1", title="One", tags=["a"])
        assert old.schema_version() == 3
    with open_store(location) as store, open_store(location) as other:
        assert store.schema_version() == len(MIGRATIONS) and store.list_conversations()[0].tags == (
            "a",
        )
        assert moves(store, lambda: other.update_conversation("c1", title="Uno"))
        assert not moves(store, lambda: other.update_conversation("c1", draft="typed"))


def test_every_conversation_column_is_listed_or_known_to_be_unlisted() -> None:
    """A column added later must be put in a new version's trigger, or here, on purpose."""
    unlisted = {"id", "draft", "tokens_input", "tokens_output", "cost", "created_at"}
    unlisted |= set(migrations.V5_PROMPT_DRAFTS)  # session state, as the draft
    unlisted |= set(migrations.V7_DRAFT_FILES)  # the draft's files, the same
    # Stored counts: whatever changes them moves ``updated_at`` or ``parent_id`` too.
    unlisted |= {c for table, c in migrations.V6_TALLIES if table == "conversation"}
    unlisted |= {"branch_reason"}  # set on insert, never updated: the insert trigger has it
    listed = {c.strip() for c in migrations._V4_LISTED.split(",")}
    assert listed == {c.strip() for c in pg_migrations._V4_LISTED.split(",")}
    columns = {f.column_name for f in ConversationRow._meta.sorted_fields}
    assert listed | unlisted == columns and not listed & unlisted
