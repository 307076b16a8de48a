"""The scrollback view: what each event kind shows, safe Markdown, streaming, paging,
links and the per-item menu."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QGuiApplication,
    QPalette,
    QTextCursor,
    QTextFormat,
    QTextFrame,
    QTextTable,
)
from PySide6.QtWidgets import QApplication, QMenu

from ikgui.domain.events import Event
from ikgui.ui.transcript import menu as scrollback_menu
from ikgui.ui.transcript.items import ROLE_PROPERTY, Colors, display_for
from ikgui.ui.transcript.markdown import SafeDocument, hard_breaks, is_safe_link, render_markdown
from ikgui.ui.transcript.scrollback import MAX_LOADED, PAGE_SIZE, ScrollbackView

C = "chat-test"


def ev(id: int, kind: str, content: str = "", data: dict[str, Any] | None = None) -> Event:
    return Event(id, C, kind, content, data or {})


@pytest.fixture
def view(qtbot: Any) -> ScrollbackView:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.resize(800, 600)
    widget.show()
    return widget


def role(view: ScrollbackView, event_id: int) -> str:
    frame = view.item_frame(event_id)
    assert frame is not None
    return str(frame.frameFormat().property(ROLE_PROPERTY))


def background(view: ScrollbackView, event_id: int) -> str | None:
    frame = view.item_frame(event_id)
    assert frame is not None
    fmt = frame.frameFormat()
    return (
        fmt.background().color().name()
        if fmt.hasProperty(QTextFormat.Property.BackgroundBrush)
        else None
    )


ALL_KINDS = [
    ev(1, "system", "Be brief."),
    ev(2, "user", "What is 2+2?"),
    ev(3, "assistant", "It is 4.", {"model": "m1"}),
    ev(4, "tool_call", 'calc({"x": 2})', {"name": "calc"}),
    ev(5, "tool_result", "4", {"name": "calc", "success": True}),
    ev(6, "prompt_edit", '[user edited prompt to: "p"]', {"prompt": "p"}),
    ev(7, "mark", "", {"label": "start"}),
    ev(8, "mark", "", {"label": None}),
    ev(9, "rewind", "", {"target_event_id": 7, "target_label": "start"}),
    ev(10, "rewind", "", {"target_event_id": 8, "target_label": None}),
    ev(11, "fork", "Forked child chat-abc", {"role": "parent"}),
    ev(12, "command", "Model set to m2", {"input": "/model m2", "ok": True}),
    ev(13, "agent_killed", "Closed chat-abc", {"target": "chat-abc"}),
    ev(14, "error", "Rate limited (HTTP 429)", {"category": "rate_limit", "status": 429}),
    ev(15, "hologram", "from the future"),
    ev(16, "assistant", "Half an ans", {"interrupted": True}),
]


def test_every_kind_shows_its_text_and_role(view: ScrollbackView) -> None:
    view.show_events(ALL_KINDS)
    assert view.objectName() == "scrollback" and view.accessibleName() == "Transcript"
    assert view.item_kinds() == [e.kind for e in ALL_KINDS]
    assert view.item_texts() == [
        "Be brief.",
        "What is 2+2?",
        "It is 4.",
        'calc({"x": 2})',
        "4",
        "✎ You edited the prompt  ·  1 word\nShow changes   Restore this version",
        "⚑ start",
        "⚑ mark",
        "Rewound to start",
        "Rewound to last mark",
        "Forked child chat-abc",
        "Model set to m2",
        "Closed chat-abc",
        "Rate limited (HTTP 429)",
        "[hologram] from the future",
        "Half an ans (stopped)",
    ]
    roles = {e.id: role(view, e.id) for e in ALL_KINDS}
    assert roles == {
        1: "system",
        2: "user",
        3: "assistant",
        4: "tool",
        5: "tool",
        6: "prompt",
        7: "mark",
        8: "mark",
        9: "notice",
        10: "notice",
        11: "notice",
        12: "notice",
        13: "notice",
        14: "error",
        15: "unknown",
        16: "assistant",
    }
    # Bubbles differ by colour; notices and marks have none; a mark is a ruled table.
    fills = {background(view, i) for i in (2, 3, 4, 14)}
    assert None not in fills and len(fills) == 4
    assert background(view, 6) is not None and background(view, 15) is None  # a prompt card
    assert isinstance(view.item_frame(7), QTextTable)
    error_fill = QColor(background(view, 14))
    assert error_fill.red() > error_fill.green() and error_fill.red() > error_fill.blue()


def test_labels_dim_system_text_and_the_stopped_badge(view: ScrollbackView) -> None:
    view.show_events(ALL_KINDS)
    plain = view.document().toPlainText()
    assert "You\nWhat is 2+2?" in plain
    assert "Assistant  m1\nIt is 4." in plain
    assert "Error  rate limited" in plain
    text_colour = view.palette().color(QPalette.ColorRole.Text)
    frame = view.item_frame(1)
    assert frame is not None
    body = frame.firstCursorPosition().block().next()
    fmt = body.begin().fragment().charFormat()
    assert fmt.fontItalic() and fmt.foreground().color() != text_colour
    badge = display_for(ALL_KINDS[-1])
    assert (badge.text, badge.badge) == ("Half an ans", "(stopped)")
    view.show_events([ev(1, "assistant", "", {"interrupted": True})])
    assert view.item_texts() == ["(stopped)"]
    view.show_events([ev(1, "assistant", "Answer\nPROMPT: x", {"display_end": 6})])
    assert view.item_texts() == ["Answer"]


def test_streaming_reply_grows_by_appending_and_renders_finished_blocks(
    view: ScrollbackView,
) -> None:
    view.show_events([ev(1, "user", "Show code")])
    view.append_event(ev(2, "assistant", "", {"streaming": True, "model": "m"}))
    assert view.item_texts() == ["Show code", ""]
    assert "…" in view.document().toPlainText()  # the placeholder, until text arrives
    user_frame = view.item_frame(1)
    reply_frame = view.item_frame(2)
    parts = ["Here", " you", " go:\n", "```py", "thon\nprint(", "'hi')\n", "```\n", "Done."]
    for part in parts:
        view.append_text(2, part)
    text = "".join(parts)
    # The code block is finished (its fence closed, a new line begun): it is rendered;
    # the last paragraph is plain text until the reply ends.
    rendered = "Here you go:\n\nprint('hi')\n\nDone."
    assert view.item_texts() == ["Show code", rendered]
    assert "…" not in view.document().toPlainText()
    # Appending never rebuilt anything: the same frames are still in the document.
    assert view.item_frame(1) is user_frame and view.item_frame(2) is reply_frame
    # A periodic save while streaming does not replace what was appended.
    view.update_event(ev(2, "assistant", "Here", {"streaming": True}))
    assert view.item_texts()[1] == rendered

    view.update_event(ev(2, "assistant", text, {"model": "m", "interrupted": False}))
    assert view.item_texts() == ["Show code", "Here you go:\n\nprint('hi')\n\nDone."]
    assert "```" not in view.document().toPlainText()
    code = view.document().find("print('hi')")
    assert code.block().blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence)
    assert code.charFormat().fontFixedPitch() or "mono" in code.charFormat().font().family().lower()
    assert code.currentFrame() is not view.item_frame(2)  # a padded code frame inside


def test_failed_empty_reply_is_removed_and_never_shown(view: ScrollbackView) -> None:
    view.show_events([ev(1, "user", "hi"), ev(2, "assistant", "", {"failed": True})])
    assert view.item_kinds() == ["user"]
    view.append_event(ev(3, "assistant", "", {"streaming": True}))
    blocks = view.document().blockCount()
    view.append_event(ev(4, "mark", "", {"label": "m"}))
    view.remove_event(4)
    assert view.document().blockCount() == blocks  # no stray blocks left behind
    view.append_event(ev(4, "mark", "", {"label": "m"}))
    view.update_event(ev(3, "assistant", "", {"interrupted": True, "failed": True}))
    view.append_event(ev(5, "error", "Connection refused"))
    assert view.item_kinds() == ["user", "mark", "error"]
    assert view.item_texts() == ["hi", "⚑ m", "Connection refused"]
    view.append_event(ev(6, "clear"))  # a clear is shown by the group it makes
    assert view.item_kinds() == ["user", "mark", "error"]


def test_model_html_is_text_and_nothing_is_loaded(view: ScrollbackView) -> None:
    evil = (
        "Hi <script>alert(1)</script> <b>bold</b> <img src=http://evil/x.png onerror=alert(2)>\n\n"
        '<iframe src="http://evil"></iframe>\n\n'
        "![tracker](http://evil/t.png) [js](javascript:alert(3)) [file](file:///etc/passwd) "
        "[data](data:text/html,<b>x</b>) [ok](https://example.com/a)"
    )
    document = render_markdown(evil)
    assert isinstance(document, SafeDocument)
    plain = document.toPlainText()
    assert "<script>alert(1)</script>" in plain
    assert "<b>bold</b>" in plain
    assert '<iframe src="http://evil"></iframe>' in plain
    assert "[image: tracker]" in plain
    html = document.toHtml()
    assert "<script" not in html and "<iframe" not in html and "<img" not in html
    hrefs = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            assert not fmt.isImageFormat()
            if fmt.isAnchor():
                hrefs.append(fmt.anchorHref())
            it += 1
        block = block.next()
    assert hrefs == ["https://example.com/a"]
    assert document.loadResource(2, QUrl("http://evil/t.png")) is None
    assert document.loadResource(2, QUrl("file:///etc/passwd")) is None

    view.show_events([ev(1, "assistant", evil)])
    shown = view.item_texts()[0]
    assert "<script>alert(1)</script>" in shown and "[image: tracker]" in shown
    assert "<img" not in view.document().toHtml().replace("&lt;img", "")
    assert view.loadResource(2, QUrl("http://evil/x.png")) is None


def test_only_http_links_open_and_only_on_click(
    view: ScrollbackView, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(
        scrollback_menu.QDesktopServices, "openUrl", lambda url: opened.append(url.toString())
    )
    view.show_events([ev(1, "assistant", "[docs](https://example.com/docs) and http://a.example")])
    assert not view.openLinks() and not view.openExternalLinks()
    assert opened == []  # showing a link opens nothing
    link = view.document().find("docs")
    link.setPosition(link.selectionStart() + 1)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.cursorRect(link).center())
    assert opened == ["https://example.com/docs"]  # a real click on it does
    opened.clear()
    for url in (
        "https://example.com/docs",
        "http://a.example",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "data:text/html,x",
        "relative/page.html",
        "ftp://example.com/x",
    ):
        view.anchorClicked.emit(QUrl(url))
    assert opened == ["https://example.com/docs", "http://a.example"]
    assert view.item_texts() == ["docs and http://a.example"]  # still showing it
    assert is_safe_link("https://x.org") and not is_safe_link("https://")


def test_follows_the_bottom_unless_scrolled_up(view: ScrollbackView, qtbot: Any) -> None:
    view.show_events(
        [ev(i, "user" if i % 2 else "assistant", f"message {i}") for i in range(1, 41)]
    )
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    view.append_event(ev(100, "assistant", "", {"streaming": True}))
    for i in range(20):
        view.append_text(100, f"line {i}\n")
        assert bar.value() == bar.maximum()
    qtbot.wait(10)
    assert bar.value() == bar.maximum()
    bar.setValue(bar.maximum() // 2)
    position = bar.value()
    for i in range(20):
        view.append_text(100, f"more {i}\n")
    view.update_event(ev(100, "assistant", "done", {}))
    assert bar.value() == position < bar.maximum()
    view.append_event(ev(101, "user", "next question"))  # sending jumps to the end
    assert bar.value() == bar.maximum()


def test_ten_thousand_events_show_fast_and_earlier_pages_load_at_the_top(
    view: ScrollbackView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Showing 10,000 events renders one page of them, not all (how long that takes is
    benchmarks/bench_scrollback.py's "10,000 events shown")."""
    kinds = ["user", "assistant", "assistant", "tool_call", "mark", "error", "command"]
    events = [
        ev(i, kinds[i % len(kinds)], f"message {i} with *some* `markdown`\n\n- a\n- b", {})
        for i in range(1, 10_001)
    ]
    view.show_events([ev(1, "user", "warm up")])
    QApplication.processEvents()
    rendered: list[int] = []
    insert = view._writer.insert

    def counted(position: int, event: Event) -> Any:
        rendered.append(event.id)
        return insert(position, event)

    monkeypatch.setattr(view._writer, "insert", counted)
    view.show_events(events)
    view.repaint()
    assert rendered == list(range(10_001 - PAGE_SIZE, 10_001))  # the last page, once each
    assert len(view.item_kinds()) == PAGE_SIZE and view.has_earlier()
    assert view.item_texts()[-1] == "⚑ mark"  # event 10,000 is a mark
    assert view.item_texts()[-2].startswith("message 9999")
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum()

    point = QPoint(300, 40)
    bar.setValue(bar.minimum() + 1)
    top_id = view.event_id_at(point)
    top_y = view.cursorRect(view.cursorForPosition(point)).top()
    bar.setValue(bar.minimum())  # reaching the top loads the page above
    assert len(view.item_kinds()) == 2 * PAGE_SIZE
    assert bar.value() > 0
    bar.setValue(bar.value() + 1)
    assert view.event_id_at(point) == top_id  # what the user saw did not move
    assert abs(view.cursorRect(view.cursorForPosition(point)).top() - top_y) <= 2
    assert view.item_texts()[0].startswith(f"message {10_000 - 2 * PAGE_SIZE + 1}")

    for _ in range(8):  # keep scrolling up: the document never holds more than a window
        bar.setValue(bar.minimum())
    assert len(view.item_kinds()) == MAX_LOADED and view.has_later()
    assert view.item_texts()[0].startswith(f"message {10_000 - 10 * PAGE_SIZE + 1}")

    # Scrolling down brings the dropped pages back, without moving what is on screen.
    bar.setValue(bar.maximum() - 1)
    seen = view.event_id_at(point)
    bar.setValue(bar.maximum())
    assert view.has_later() and view.item_texts()[-1].startswith("message 9550")
    assert view.event_id_at(point) == seen
    assert len(view.item_kinds()) == MAX_LOADED

    assert view.scroll_to_event(42)  # e.g. a search hit far up: its page is loaded
    assert view.event_id_at(QPoint(300, 20)) == 42
    assert view.textCursor().selectedText().startswith("message 42")
    assert len(view.item_kinds()) == PAGE_SIZE and view.has_later()
    view.append_event(ev(20_000, "assistant", "arrives while reading far back"))
    assert view.event_id_at(QPoint(300, 20)) == 42  # not pulled away
    view.scroll_to_bottom()
    assert view.item_texts()[-1] == "arrives while reading far back"
    assert not view.has_later() and bar.value() == bar.maximum()


def test_context_menu_actions(view: ScrollbackView, qtbot: Any) -> None:
    view.show_events(
        [
            ev(1, "user", "Original *question*"),
            ev(2, "assistant", "Answer", {"interrupted": True}),
            ev(3, "error", "Timed out"),
            ev(4, "assistant", "", {"streaming": True}),
        ]
    )
    view.append_text(4, "partial")
    forks: list[int] = []
    edits: list[tuple[int, str]] = []
    retries: list[int] = []
    view.fork_requested.connect(forks.append)
    view.edit_resend_requested.connect(lambda i, t: edits.append((i, t)))
    view.retry_requested.connect(retries.append)

    def actions(event_id: int) -> dict[str, Any]:
        menu = view.menu_for(event_id)
        return {a.objectName(): a for a in menu.actions() if a.objectName()}

    user = actions(1)
    assert set(user) == {"actionCopyItem", "actionForkHere", "actionEditResend"}
    user["actionCopyItem"].trigger()
    assert QGuiApplication.clipboard().text() == "Original *question*"
    user["actionForkHere"].trigger()
    user["actionEditResend"].trigger()  # the message turns into an editor, in place
    editor = view.item_actions.edits.editor
    assert forks == [1] and editor is not None and editor.text() == "Original *question*"
    editor.cancel_requested.emit()
    assert edits == [] and view.item_actions.edits.editor is None

    reply = actions(2)
    assert set(reply) == {"actionCopyItem", "actionForkHere", "actionRetry"}
    reply["actionCopyItem"].trigger()
    assert QGuiApplication.clipboard().text() == "Answer"  # without the badge
    reply["actionForkHere"].trigger()
    reply["actionRetry"].trigger()
    assert forks == [1, 2] and retries == [2]

    error = actions(3)
    assert set(error) == {"actionCopyItem", "actionForkHere", "actionRetry"}
    error["actionRetry"].trigger()
    assert retries == [2, 3]

    growing = actions(4)
    assert not growing["actionForkHere"].isEnabled() and "actionRetry" not in growing
    growing["actionCopyItem"].trigger()
    assert QGuiApplication.clipboard().text() == "partial"

    # A right click on an item pops up its menu.
    frame = view.item_frame(3)
    assert isinstance(frame, QTextFrame)
    cursor = QTextCursor(view.document())
    cursor.setPosition(frame.lastPosition())
    view.scroll_to_event(3)
    point = view.cursorRect(cursor).center()
    assert view.event_id_at(point) == 3
    click = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, point, view.viewport().mapToGlobal(point)
    )
    QApplication.sendEvent(view.viewport(), click)
    menus = [m for m in view.findChildren(QMenu) if m.isVisible()]
    assert len(menus) == 1
    assert "actionRetry" in [a.objectName() for a in menus[0].actions()]
    menus[0].close()


def test_selection_across_items_and_ctrl_c(view: ScrollbackView, qtbot: Any) -> None:
    view.show_events([ev(1, "user", "first line"), ev(2, "assistant", "second **line**")])
    view.selectAll()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text()
    assert "first line" in copied and "second line" in copied
    assert "actionCopySelection" in [a.objectName() for a in view.menu_for(1).actions()]


def test_palette_change_restyles_for_dark(view: ScrollbackView) -> None:
    view.show_events(ALL_KINDS)
    light = QColor(background(view, 3))
    texts = view.item_texts()
    dark = QPalette()
    dark.setColor(QPalette.ColorRole.Base, QColor("#1b1c1f"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#e4e4e7"))
    dark.setColor(QPalette.ColorRole.Window, QColor("#1e1f22"))
    view.setPalette(dark)
    assert view.item_texts() == texts
    for event_id in (2, 3, 4, 14):
        assert QColor(background(view, event_id)).lightness() < 80
    assert QColor(background(view, 3)) != light
    colors = Colors.from_palette(dark)
    assert colors.dark and colors.link.lightness() >= 140


def test_pure_display_and_line_breaks() -> None:
    assert display_for(ev(1, "tool_result", "ok", {"name": "grep"})).detail == "grep"
    streaming = display_for(ev(2, "assistant", "", {"streaming": True}))
    assert streaming.streaming and not streaming.markdown
    assert display_for(ev(3, "user", "**hi**")).markdown
    assert display_for(ev(4, "whatever", "x")).role == "unknown"
    assert hard_breaks("a\nb\n\n```\nx\ny\n```\nc\nd") == "a  \nb\n\n```\nx\ny\n```\nc  \nd"
    document = render_markdown("line one\nline two", keep_breaks=True)
    assert "line one\u2028line two" in document.toPlainText().replace("\n", "\u2028")
