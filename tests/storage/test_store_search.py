"""Full-text search: plain words ANDed, syntax-proof, titles, reindexing, the Trash, snippets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ikgui.storage import SqliteStore, open_store
from ikgui.storage.search import snippet
from tests.storage.conftest import BOTH

from .helpers import add_conversation

#: Each test runs on SQLite and on PostgreSQL (see conftest.py).
STORES = BOTH


def test_two_words_must_both_match(store: SqliteStore) -> None:
    add_conversation(store, "chat-both")
    add_conversation(store, "chat-one1")
    hit_event = store.append_event("chat-both", "user", "The database migration failed")
    store.append_event("chat-one1", "user", "A database without problems")
    store.append_event("chat-one1", "assistant", "No migration needed")  # other message
    hits = store.search("database migration")
    assert [(h.conversation.id, h.event_id) for h in hits] == [("chat-both", hit_event.id)]
    assert hits[0].snippet == "The database migration failed"
    assert {h.conversation.id for h in store.search("DATABASE")} == {"chat-both", "chat-one1"}


def test_the_newest_matching_message_is_reported(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    store.append_event("chat-aaaa", "user", "kiwi one")
    newest = store.append_event("chat-aaaa", "assistant", "kiwi two")
    store.append_event("chat-aaaa", "user", "banana")
    [hit] = store.search("kiwi")
    assert hit.event_id == newest.id and hit.snippet == "kiwi two"


@pytest.mark.parametrize(
    "words",
    [
        '"',
        'say "hi',
        "*",
        "kiwi*",
        "NEAR(kiwi banana, 2)",
        "NEAR",
        "-kiwi",
        "kiwi -banana",
        "content:kiwi",
        ":",
        "kiwi AND OR NOT",
        "^kiwi",
        "(kiwi",
        "{content}: kiwi",
        "+",
        "''",
        "kiwi's",
        "_",
        "__init__",
        "\x00",
        "",
        "   ",
        "!!! ??? ...",
    ],
)
def test_user_text_is_never_query_syntax(store: SqliteStore, words: str) -> None:
    add_conversation(store, "chat-aaaa", title="Fruit: kiwi & banana")
    store.append_event("chat-aaaa", "user", 'kiwi and banana, near "the" content_init init')
    hits = store.search(words)
    assert all(h.conversation.id == "chat-aaaa" for h in hits)


def test_punctuation_only_finds_nothing(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa", title="!!!")
    store.append_event("chat-aaaa", "user", "!!! --- ***")
    for words in ["", "  ", "!!!", '"*"', "-:-", "_"]:
        assert store.search(words) == []


def test_operators_are_plain_words(store: SqliteStore) -> None:
    add_conversation(store, "chat-near")
    add_conversation(store, "chat-far1")
    store.append_event("chat-near", "user", "the shop is near the station")
    store.append_event("chat-far1", "user", "station far away")
    assert [h.conversation.id for h in store.search("NEAR station")] == ["chat-near"]
    assert [h.conversation.id for h in store.search("station -near")] == ["chat-near"]
    assert [h.conversation.id for h in store.search("station OR")] == []


def test_title_only_match(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa", title="Quarterly budget review")
    store.append_event("chat-aaaa", "user", "numbers please")
    [hit] = store.search("budget")
    assert (hit.conversation.id, hit.event_id, hit.snippet) == (
        "chat-aaaa",
        None,
        "Quarterly budget review",
    )
    store.update_conversation("chat-aaaa", title="Something else")
    assert store.search("budget") == []
    assert [h.conversation.id for h in store.search("else")] == ["chat-aaaa"]
    store.update_conversation("chat-aaaa", title=None)
    assert store.search("else") == []


def test_a_title_match_ranks_higher(store: SqliteStore) -> None:
    add_conversation(store, "chat-titl", title="Pelican facts")
    add_conversation(store, "chat-body", title="Birds")
    store.append_event("chat-titl", "user", "tell me about the pelican")
    store.append_event("chat-body", "user", "tell me about the pelican")
    assert [h.conversation.id for h in store.search("pelican")] == ["chat-titl", "chat-body"]


def test_ranking_title_then_match_count_then_newest(store: SqliteStore) -> None:
    add_conversation(store, "chat-told", title="Gecko notes")  # title only
    add_conversation(store, "chat-many")
    add_conversation(store, "chat-old1")
    add_conversation(store, "chat-new1")
    add_conversation(store, "chat-both", title="gecko")
    store.append_event("chat-old1", "user", "a gecko")
    for _ in range(3):
        store.append_event("chat-many", "user", "gecko again")
    store.append_event("chat-new1", "user", "one gecko")
    store.append_event("chat-both", "user", "a gecko", created_at=1.0)
    assert [h.conversation.id for h in store.search("gecko")] == [
        "chat-both",
        "chat-told",
        "chat-many",
        "chat-new1",
        "chat-old1",
    ]


def test_updated_event_is_reindexed(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    ev = store.append_event("chat-aaaa", "assistant", "first walrus", {})
    assert len(store.search("walrus")) == 1
    store.update_event(ev.id, "final narwhal answer", {})
    assert store.search("walrus") == []
    [hit] = store.search("narwhal")
    assert hit.event_id == ev.id
    if store.kind == "sqlite":
        conn = store._connection()
        conn.execute("INSERT INTO event_fts (event_fts, rank) VALUES ('integrity-check', 1)")


def test_trashed_conversations_are_excluded(store: SqliteStore) -> None:
    add_conversation(store, "chat-kept", title="ocelot")
    add_conversation(store, "chat-bin1", title="ocelot", trashed_at=5.0)
    store.append_event("chat-bin1", "user", "ocelot")
    store.append_event("chat-kept", "user", "ocelot")
    assert [h.conversation.id for h in store.search("ocelot")] == ["chat-kept"]
    store.update_conversation("chat-bin1", trashed_at=None)
    assert {h.conversation.id for h in store.search("ocelot")} == {"chat-kept", "chat-bin1"}


def test_only_text_kinds_are_indexed(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    searchable = ["user", "assistant", "system", "prompt_edit", "tool_call", "tool_result"]
    for kind in searchable:
        store.append_event("chat-aaaa", kind, f"{kind.replace('_', '')}word")
    for kind in ["command", "error", "fork", "mark", "agent_killed"]:
        store.append_event("chat-aaaa", kind, f"{kind.replace('_', '')}word")
    for kind in searchable:
        assert len(store.search(f"{kind.replace('_', '')}word")) == 1, kind
    for kind in ["command", "error", "fork", "mark", "agentkilled"]:
        assert store.search(f"{kind}word") == [], kind


def test_diacritics_and_case_are_ignored(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    store.append_event("chat-aaaa", "user", "Un Café crème à Zürich")
    assert len(store.search("cafe CREME zurich")) == 1


def test_results_are_grouped_and_limited(store: SqliteStore) -> None:
    for i in range(8):
        add_conversation(store, f"chat-{i:04d}")
        for _ in range(3):
            store.append_event(f"chat-{i:04d}", "user", "lemur sighting")
    hits = store.search("lemur")
    assert sorted(h.conversation.id for h in hits) == [f"chat-{i:04d}" for i in range(8)]
    assert len(store.search("lemur", limit=3)) == 3
    assert store.search("lemur", limit=0) == []


def test_snippet_is_short_and_around_the_match(store: SqliteStore) -> None:
    add_conversation(store, "chat-aaaa")
    long = ("filler text " * 40) + "the hidden\n\ncapybara is here " + ("more words " * 40)
    store.append_event("chat-aaaa", "assistant", long)
    [hit] = store.search("capybara")
    assert len(hit.snippet) <= 80
    assert "capybara" in hit.snippet and "\n" not in hit.snippet
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")


@pytest.mark.parametrize(
    "text",
    ["short", "word " * 100, "x" * 300, "a" * 10 + " needle " + "b" * 200, "needle " + "z " * 80],
)
def test_snippet_bounds(text: str) -> None:
    out = snippet(text, ["needle"])
    assert len(out) <= 80
    if "needle" in text:
        assert "needle" in out


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.lists(st.text(min_size=1, max_size=12), max_size=3))
def test_snippet_is_never_longer_than_80(text: str, words: list[str]) -> None:
    out = snippet(text, words)
    assert len(out) <= 80
    assert "\n" not in out


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqliteStore]:
    path: Path = tmp_path_factory.mktemp("search") / "ikgui.db"
    with open_store(path) as s:
        add_conversation(s, "chat-aaaa", title="Anything: at all?")
        s.append_event("chat-aaaa", "user", 'quotes " stars * NEAR(a b) col:x -y ^z (')
        yield s


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_never_errors(shared_store: SqliteStore, words: str) -> None:
    for hit in shared_store.search(words):
        assert hit.conversation.id == "chat-aaaa"
        assert len(hit.snippet) <= 80


@pytest.mark.parametrize(
    "words",
    [
        '"',
        "-",
        "*",
        ":",
        "|",
        "&",
        "!",
        "(",
        "\\",
        "<->",
        "'",
        "kiwi | banana",
        "!kiwi & (x",
        'kiwi\\" -"banana',
        "kiwi:* & !",
        "a <-> b",
        "kiwi:A",
        "\\'kiwi'",
    ],
)
def test_search_syntax_characters_never_raise(store: SqliteStore, words: str) -> None:
    add_conversation(store, "chat-aaaa", title="Fruit: kiwi & banana")
    store.append_event("chat-aaaa", "user", "kiwi | banana ! (x) \\ a <-> b")
    hits = store.search(words)
    assert all(h.conversation.id == "chat-aaaa" and len(h.snippet) <= 80 for h in hits)
    if "kiwi" in words:  # the words are still found, as plain words
        assert [h.conversation.id for h in hits] == ["chat-aaaa"]
