"""Listing conversations: order, keyset paging, agent/tag/Trash filters."""

from __future__ import annotations

from ikgui.domain.events import Conversation
from ikgui.domain.library.listing import ListingRow
from ikgui.storage import SqliteStore
from ikgui.storage.listing import JOIN_TAGS_ABOVE
from tests.storage.conftest import BOTH

from .helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def _ids(convs: list[object]) -> list[str]:
    return [c.id for c in convs]  # type: ignore[attr-defined]


def _populate(store: SqliteStore) -> None:
    add_conversation(store, "chat-0001", updated_at=10.0, tags=("work",))
    add_conversation(store, "coder-0002", agent="coder", updated_at=30.0, tags=("Work", "api"))
    add_conversation(store, "chat-0003", updated_at=20.0)
    add_conversation(store, "chat-0004", updated_at=30.0, status="killed")  # ties with 0002
    add_conversation(store, "coder-0005", agent="coder", updated_at=50.0, trashed_at=51.0)
    add_conversation(store, "chat-0006", updated_at=40.0, tags=("api",), trashed_at=60.0)
    add_conversation(store, "chat-0007", updated_at=5.0)


def test_newest_first_with_id_breaking_ties(store: SqliteStore) -> None:
    _populate(store)
    assert _ids(store.list_conversations()) == [
        "coder-0002",
        "chat-0004",
        "chat-0003",
        "chat-0001",
        "chat-0007",
    ]
    assert _ids(store.list_conversations(2)) == ["coder-0002", "chat-0004"]
    assert store.list_conversations(0) == []


def test_appending_moves_a_conversation_to_the_top(store: SqliteStore) -> None:
    _populate(store)
    store.append_event("chat-0007", "user", "bump", created_at=100.0)
    assert _ids(store.list_conversations(1)) == ["chat-0007"]


def test_keyset_paging_visits_everything_once(store: SqliteStore) -> None:
    for i in range(23):
        add_conversation(store, f"chat-{i:04d}", updated_at=float(i // 3))  # many ties
    everything = _ids(store.list_conversations())
    assert len(everything) == 23
    pages: list[str] = []
    before: tuple[float, str] | None = None
    while True:
        page = store.list_conversations(5, before=before)
        if not page:
            break
        pages.extend(c.id for c in page)
        before = (page[-1].updated_at, page[-1].id)
    assert pages == everything


def test_agent_tag_and_trash_filters(store: SqliteStore) -> None:
    _populate(store)
    assert _ids(store.list_conversations(agent="coder")) == ["coder-0002"]
    assert _ids(store.list_conversations(tag="work")) == ["coder-0002", "chat-0001"]
    assert _ids(store.list_conversations(tag="WORK")) == ["coder-0002", "chat-0001"]
    assert _ids(store.list_conversations(tag="api")) == ["coder-0002"]
    assert _ids(store.list_conversations(agent="coder", tag="api")) == ["coder-0002"]
    assert _ids(store.list_conversations(tag="none")) == []
    assert _ids(store.list_conversations(trashed=True)) == ["coder-0005", "chat-0006"]
    assert _ids(store.list_conversations(trashed=True, agent="coder")) == ["coder-0005"]
    assert _ids(store.list_conversations(trashed=True, tag="api")) == ["chat-0006"]
    assert _ids(store.list_conversations(1, trashed=True, before=(50.0, "coder-0005"))) == [
        "chat-0006"
    ]


def test_listing_carries_counts_and_tags(store: SqliteStore) -> None:
    _populate(store)
    store.append_event("chat-0003", "user", "q", created_at=20.0)
    store.append_event("chat-0003", "assistant", "a", created_at=20.0)
    store.append_event("chat-0003", "mark", "", created_at=20.0)
    by_id = {c.id: c for c in store.list_conversations()}
    assert by_id["chat-0003"].message_count == 2
    assert by_id["coder-0002"].tags == ("api", "work")
    assert by_id["chat-0004"].visible_status == "killed"


def test_restoring_from_the_trash(store: SqliteStore) -> None:
    _populate(store)
    store.update_conversation("chat-0006", trashed_at=None)
    assert "chat-0006" in _ids(store.list_conversations())
    assert _ids(store.list_conversations(trashed=True)) == ["coder-0005"]


def test_a_long_listing_joins_the_tags_as_a_page_does(store: SqliteStore) -> None:
    # Past JOIN_TAGS_ABOVE rows the tags come from a second query joined in Python (and
    # fewer rows' tags by id); a page's come with each row. Both give equal conversations.
    total = JOIN_TAGS_ABOVE + 100
    for i in range(total):
        tags = [("a", "b", "c")[: i % 4], ("zeta", "alpha")][i % 7 == 0]
        add_conversation(
            store,
            f"chat-{i:04d}",
            updated_at=float(i // 2),  # ties: the order's id tiebreak
            trashed_at=5.0 if i % 9 == 0 else None,
            pinned=i % 5 == 0,
            draft="unsent" if i % 11 == 0 else "",
            tags=tuple(tags),
        )
    everything = store.list_conversations()  # every tag read at once
    trash = store.list_conversations(trashed=True)  # its rows' tags read by id
    assert len(everything) + len(trash) == total and len(everything) > JOIN_TAGS_ABOVE
    paged: list[Conversation] = []
    for trashed in (False, True):
        before: tuple[float, str] | None = None
        while page := store.list_conversations(100, before=before, trashed=trashed):
            paged.extend(page)
            before = (page[-1].updated_at, page[-1].id)
    assert everything + trash == paged
    assert [store.get_conversation(c.id) for c in paged] == paged
    found = {c.id: c.tags for c in everything}
    assert found["chat-0007"] == ("alpha", "zeta")  # sorted
    assert (found["chat-0001"], found["chat-0003"], found["chat-0004"]) == (
        ("a",),
        ("a", "b", "c"),
        (),
    )


def test_the_listing_tables_rows_are_the_listings_conversations(store: SqliteStore) -> None:
    _populate(store)
    store.update_conversation("chat-0003", title="Third")
    store.set_pinned(["chat-0001"], True)
    for limit, filters in (
        (None, {}),
        (2, {}),
        (0, {}),
        (None, {"trashed": True}),
        (None, {"agent": "coder"}),
        (None, {"tags": ("work",)}),
        (None, {"tags": ("WORK", "api")}),
    ):
        convs = store.list_conversations(limit, **filters)  # type: ignore[arg-type]
        shown = [
            ListingRow(
                c.id,
                c.agent,
                c.message_count,
                c.updated_at,
                c.title,
                c.status,
                c.trashed_at,
                c.pinned,
            )
            for c in convs
        ]
        assert store.listing_rows(limit, **filters) == shown  # type: ignore[arg-type]
    assert [r.pinned for r in store.listing_rows()] == [0, 0, 0, 1, 0]
