"""The scrollback's groups (issue 10 item 1) on the view alone: a collapse keeps the
reader's place, and a group of hundreds of items expands a page at a time."""

from __future__ import annotations

from typing import Any

import pytest

from ikgui.domain.events import Event
from ikgui.domain.state.facts import TranscriptChange
from ikgui.domain.state.transcript import Entry, Group, GroupKind
from ikgui.ui.transcript.scrollback import PAGE_SIZE, ScrollbackView

C = "chat-test"


def user(i: int) -> Event:
    return Event(i, C, "user", f"message {i}", {})


@pytest.fixture
def view(qtbot: Any) -> ScrollbackView:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.resize(700, 500)
    widget.show()
    return widget


def test_a_collapse_below_the_reader_keeps_their_place(view: ScrollbackView) -> None:
    view.show_events([user(i) for i in range(1, 101)])
    bar = view.verticalScrollBar()
    view.scroll_to_event(30)
    place = bar.value()
    rewound = tuple(user(i) for i in range(90, 101))
    notice = Event(200, C, "rewind", "", {"target_event_id": 89, "target_label": "m"})
    group = Group(GroupKind.REWOUND, 200, len(rewound), C, rewound)
    view.apply_change(TranscriptChange((notice,), collapsed=group))
    assert bar.value() == place
    assert view.item_texts()[-2:] == ["11 items rewound · Show", "Rewound to m"]
    assert len(view.item_texts()) == 89 + 2


def test_a_large_cleared_group_expands_a_page_at_a_time(view: ScrollbackView) -> None:
    earlier = [user(i) for i in range(1, 401)]
    asked: list[Group] = []

    def load(group: Group) -> list[Entry]:
        asked.append(group)
        return list(earlier)

    view.group_loader = load
    cleared = Group(GroupKind.CLEARED, 500, len(earlier), C)
    view.show_events([cleared, user(501)])
    assert asked == []  # nothing is read until the group is expanded
    assert view.item_texts() == ["Context cleared · 400 earlier items · Show", "message 501"]
    assert view.expand_group(500)
    assert asked == [cleared]
    shown = view.item_texts()
    assert len(shown) == 1 + PAGE_SIZE and shown[1] == "message 1"
    assert view.has_later()
    while view.load_later():
        pass
    assert view.item_texts()[-2:] == ["message 400", "message 501"]
    assert view.scroll_to_event(250) and view.item_frame(250) is not None
    assert view.collapse_group(500)
    view.scroll_to_bottom()
    assert view.item_texts() == ["Context cleared · 400 earlier items · Show", "message 501"]
