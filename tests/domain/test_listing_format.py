"""The ``ikgui conv list`` table (SPEC §9): columns as wide as their widest cell, states
and pins after the title, untrusted text on one line, no trailing spaces."""

from __future__ import annotations

from ikgui.domain.events import Conversation
from ikgui.domain.library.listing import format_listing

NOW = 1_000_000.0


def test_the_table_lines_up_its_columns() -> None:
    rows = [
        Conversation("chat-a1", agent="coder", title="First", updated_at=NOW - 30, pinned=True),
        Conversation("research-long-id", message_count=12345, updated_at=NOW - 7200),
        Conversation("chat-b2", title="Gone", status="killed", updated_at=NOW - 3 * 86400),
        Conversation("chat-c3", title="Binned", trashed_at=NOW, updated_at=NOW - 300),
        Conversation("chat-d4", agent="a\x1b[2Jb", title="line\none \u202eevil"),
    ]
    assert format_listing(rows, NOW).split("\n") == [
        "ID                AGENT      MSGS   UPDATED  TITLE",
        "chat-a1           coder      0      now      First [pinned]",
        "research-long-id  -          12345  2h ago   -",
        "chat-b2           -          0      3d ago   Gone [closed]",
        "chat-c3           -          0      5m ago   Binned [trashed]",
        "chat-d4           a\\x1b[2Jb  0      11d ago  line\\x0aone ⟨U+202E⟩evil",
    ]


def test_an_empty_listing_says_so() -> None:
    assert format_listing([], NOW) == "No conversations."
    assert format_listing([Conversation("c-1", updated_at=NOW)], NOW) == (
        "ID   AGENT  MSGS  UPDATED  TITLE\nc-1  -      0     now      -"
    )
