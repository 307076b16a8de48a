"""A streaming reply reads like its final result: finished Markdown blocks render while it
streams, only the unfinished last block is plain text, and the end changes no layout."""

from __future__ import annotations

import random
from typing import Any

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QTextCursor, QTextFormat, QTextFrame

from ikgui.domain.events import Event
from ikgui.ui.transcript.scrollback import ScrollbackView
from ikgui.ui.transcript.stream_blocks import Blocks
from ikgui.ui.transcript.stream_render import RENDER_SLICE

C = "chat-stream"
_PROPS = (
    QTextFormat.Property.BlockCodeFence,
    QTextFormat.Property.BlockTrailingHorizontalRulerWidth,
    QTextFormat.Property.BlockQuoteLevel,
    QTextFormat.Property.LineHeight,
    QTextFormat.Property.BlockTopMargin,
    QTextFormat.Property.BlockBottomMargin,
)

REPLIES = {
    "mixed": (
        "# Title\n\nSome **bold** and `code` and a [link](https://example.com).\n\n"
        "- one\n- two\n  - nested\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "## Code\n\nHere:\n```python\ndef f():\n\n    return 1\n```\nDone.\n\n"
        "1. first\n2. second\n\n> quoted\n> more\n\n---\n\nThe end, *really*."
    ),
    "loose list": "Intro\n\n1. a\n\n2. b\n\n   still b\n\n3. c\n\nAfter the list.",
    "adjacent code": "```sh\nls\n```\n\n```py\nx = 1\n```\n\n    indented\n\nText.",
    "frames first": "| x | y |\n|---|---|\n| 1 | 2 |\n\n| p |\n|---|\n| q |\n\n```\ncode\n```",
    "rules": "a\n\n---\n\n***\n\n## h\n\n---\n\n- x\n\n---",
    "unclosed fence": "Look:\n\n```js\nlet a = 1;\n\nlet b = 2;\n",
    "stopped": "Para one.\n\n## Half a head",
    "stopped mid-bold": "Para one.\n\nSome **bold and *half an it",
    "front matter": "---\nlooks: like yaml\n---\n\nText.\n\n---\nmore: yaml\n---\n\nEnd.",
    "list with code": (
        "Steps:\n\n1. Install:\n\n   ```sh\n   pip install x\n   ```\n\n2. Run it.\n\n"
        "Title\n=====\n\n> ```\n> quoted code\n> ```\n\n~~~~\n```\nstill code\n~~~~\n"
        "* a\n* b\n\n+ c\n\nok"
    ),
    "tables and text": (
        "| k | v |\n|:--|--:|\n| a | 1 |\n| b | 2 |\n\nSo **a** < b.\n\n| only |\n|---|\n| row |\n"
    ),
}


def ev(id: int, kind: str, content: str = "", data: dict[str, Any] | None = None) -> Event:
    return Event(id, C, kind, content, data or {})


@pytest.fixture
def view(qtbot: Any) -> ScrollbackView:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.resize(800, 600)
    widget.show()
    return widget


def blocks_of(frame: QTextFrame) -> list[tuple[Any, ...]]:
    """Every block of an item, with what decides its look: depth of frames, text, heading,
    list, the block properties above and the first run's character format."""
    out: list[tuple[Any, ...]] = []
    cursor = QTextCursor(frame.document())
    cursor.setPosition(frame.firstPosition())
    block = cursor.block()
    while block.isValid() and block.position() <= frame.lastPosition():
        inner = QTextCursor(block).currentFrame()
        depth = 0
        while inner is not None and inner != frame:
            depth += 1
            inner = inner.parentFrame()
        fmt = block.blockFormat()
        props = tuple(str(fmt.property(p)) if fmt.hasProperty(p) else None for p in _PROPS)
        listed = block.textList()
        style = listed.format().style() if listed is not None else None
        it = block.begin()
        char = it.fragment().charFormat() if not it.atEnd() else None
        chars = (
            (char.fontWeight(), char.fontItalic(), char.fontFixedPitch(), char.isAnchor())
            if char is not None
            else None
        )
        out.append((depth, block.text(), fmt.headingLevel(), style, props, chars))
        block = block.next()
    return out


def weights(frame: QTextFrame) -> set[tuple[int, bool]]:
    """(weight, italic) of every run of text in an item."""
    found = set()
    cursor = QTextCursor(frame.document())
    cursor.setPosition(frame.firstPosition())
    block = cursor.block()
    while block.isValid() and block.position() <= frame.lastPosition():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            found.add((fmt.fontWeight(), fmt.fontItalic()))
            it += 1
        block = block.next()
    return found


def stream(view: ScrollbackView, text: str, step: int) -> None:
    view.show_events([ev(1, "user", "Tell me")])
    view.append_event(ev(2, "assistant", "", {"streaming": True, "model": "m"}))
    for start in range(0, len(text), step):
        view.append_text(2, text[start : start + step])


def coloured(view: ScrollbackView, qtbot: Any) -> None:
    """Wait until the view's code is all coloured. What is coloured at once depends on
    the clock (the late highlighter's first slice is 8 ms), so a comparison of formats
    waits for the rest (a keyword's bold, ``let`` in JavaScript, came and went)."""
    late = view._writer.late
    assert late is not None
    qtbot.waitUntil(lambda: not late.batches)


def one_shot(qtbot: Any, event: Event) -> list[tuple[Any, ...]]:
    other = ScrollbackView()
    qtbot.addWidget(other)
    other.resize(800, 600)
    other.show_events([ev(1, "user", "Tell me"), event])
    coloured(other, qtbot)
    frame = other.item_frame(event.id)
    assert frame is not None
    # A page of items is coloured from the event loop, a slice at a time: compare the
    # finished look (a busy machine once compared half-coloured code, issue 20).
    late = other._writer.late
    assert late is not None
    qtbot.waitUntil(lambda: not late.batches)
    return blocks_of(frame)


@pytest.mark.parametrize("name", sorted(REPLIES))
@pytest.mark.parametrize("step", [1, 7, 10_000])
def test_the_streamed_reply_ends_as_the_one_shot_render(
    view: ScrollbackView, qtbot: Any, name: str, step: int
) -> None:
    text = REPLIES[name]
    stream(view, text, step)
    frame = view.item_frame(2)
    assert frame is not None
    data: dict[str, Any] = {"model": "m"}
    if name.startswith("stopped"):
        data["interrupted"] = True
    final = ev(2, "assistant", text, data)
    before = blocks_of(frame)
    view.update_event(final)
    assert view.item_frame(2) is frame  # not written again
    coloured(view, qtbot)
    after = blocks_of(frame)
    assert after == one_shot(qtbot, final)
    assert "yaml" not in text or "looks: like yaml" in view.item_texts()[1]  # (not dropped)
    if name == "stopped mid-bold":  # rendered as a finished reply: no raw marks
        assert "**" not in view.item_texts()[1] and "bold and half an it" in view.item_texts()[1]
        assert (700, True) in weights(frame)
    if not name.startswith("stopped"):  # (the badge is the one thing the end adds)
        rendered = [b for b in before if b[1] and "```" not in b[1]]
        assert len(rendered) >= 2


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_chunking_ends_as_the_one_shot_render(
    view: ScrollbackView, qtbot: Any, seed: int
) -> None:
    rng = random.Random(seed)
    text = "\n\n".join(
        REPLIES[name]
        for name in sorted(REPLIES)
        if name not in ("unclosed fence", "stopped mid-bold")
    )
    view.show_events([ev(1, "user", "Tell me")])
    view.append_event(ev(2, "assistant", "", {"streaming": True, "model": "m"}))
    position = 0
    while position < len(text):
        size = rng.choice([1, 2, 3, 5, 8, 13, 40, 200])
        view.append_text(2, text[position : position + size])
        position += size
    frame = view.item_frame(2)
    final = ev(2, "assistant", text, {"model": "m"})
    view.update_event(final)
    assert frame is not None and view.item_frame(2) is frame
    assert blocks_of(frame) == one_shot(qtbot, final)


PARTIAL = (
    "## Title\n\nSome **bold** text.\n\n- apples\n- pears\n\n"
    "| fruit | count |\n|---|---|\n| apple | 3 |\n\nStill **typing"
)


def test_finished_blocks_render_while_the_last_one_is_plain(view: ScrollbackView) -> None:
    stream(view, PARTIAL, 5)
    assert_reads_rendered(view, 2)


def assert_reads_rendered(view: ScrollbackView, event_id: int) -> None:
    """The heading, list and table of ``PARTIAL`` are rendered; its last paragraph,
    unfinished, is plain text (its ``**`` shows)."""
    frame = view.item_frame(event_id)
    assert frame is not None
    rows = blocks_of(frame)
    texts = [row[1] for row in rows]
    assert "## Title" not in texts and ("Title" in texts)
    assert rows[texts.index("Title")][2] == 2  # a level-2 heading
    assert "Some bold text." in texts
    assert rows[texts.index("apples")][3] is not None  # a list item
    assert any(row[0] == 1 and row[1] == "apple" for row in rows)  # a table cell
    plain = view.document().toPlainText()
    assert "|---|" not in plain and "## " not in plain and "**bold**" not in plain
    assert texts[-1] == "Still **typing"


def test_blocks_end_only_where_the_whole_text_agrees() -> None:
    def ends(text: str) -> list[str]:
        blocks = Blocks()
        done = [blocks.feed(text[:i]) for i in range(1, len(text) + 1)]
        marks = sorted(set(done) - {0})
        return [text[a:b] for a, b in zip([0, *marks], marks, strict=False)]

    assert ends("# T\n\npara\n\n- a\n- b\n\nlast") == ["# T\n\n", "para\n\n", "- a\n- b\n\n"]
    # A code block ends at its closing fence, even with no blank line after it.
    assert ends("Code:\n```\nx\n\ny\n```\nDone.") == ["Code:\n```\nx\n\ny\n```\n"]
    assert ends("```\nopen\n\nstill open\n") == []  # an unclosed fence never ends
    # A loose list, an indented continuation, adjacent code blocks: not split.
    assert ends("- a\n\n- b\n\n  more b\n\nafter") == ["- a\n\n- b\n\n  more b\n\n"]
    assert ends("```\na\n```\n\n```\nb\n```\n\nz") == ["```\na\n```\n\n```\nb\n```\n"]
    assert ends("1. a\n\n2") == []  # "2" may yet become "2. b"
    assert ends("1. a\n\nZ") == ["1. a\n\n"]


def test_over_budget_replies_stay_plain_and_render_whole_at_the_end(
    view: ScrollbackView,
) -> None:
    rows = "".join(f"| r{i} | {i} |\n" for i in range(300))
    text = f"Intro.\n\n| k | v |\n|---|---|\n{rows}\nAfter the table.\n\nEnd"
    stream(view, text, 50)
    frame = view.item_frame(2)
    assert frame is not None
    assert "| r299 | 299 |" in view.item_texts()[1]  # the big table stays text
    view.update_event(ev(2, "assistant", text, {"model": "m"}))
    assert "Show as table" in view.document().toPlainText()  # as a finished reply shows it


def test_a_reader_scrolled_up_stays_put_while_blocks_render(
    view: ScrollbackView, qtbot: Any
) -> None:
    view.show_events(
        [ev(i, "user" if i % 2 else "assistant", f"message {i}") for i in range(1, 41)]
    )
    view.append_event(ev(100, "assistant", "", {"streaming": True, "model": "m"}))
    parts = [
        f"## Part {i}\n\nText {i} with **bold**.\n\n| a | {i} |\n|---|---|\n\n" for i in range(30)
    ]
    for part in parts[:10]:
        view.append_text(100, part)
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum()  # following the reply
    bar.setValue(bar.maximum() // 2)
    position = bar.value()
    top = view.cursorForPosition(QPoint(20, 20)).position()
    for part in parts[10:]:
        view.append_text(100, part)
        qtbot.wait(1)
    final = ev(100, "assistant", "".join(parts), {"model": "m"})
    view.update_event(final)
    qtbot.wait(5)
    assert bar.value() == position < bar.maximum()
    assert view.cursorForPosition(QPoint(20, 20)).position() == top  # the same text


def test_the_end_brings_the_last_deltas_itself(view: ScrollbackView, qtbot: Any) -> None:
    """The bridge drops deltas still pending when the finished reply arrives: the end
    renders them too, in place."""
    text = REPLIES["mixed"]
    stream(view, text[:200], 10)
    frame = view.item_frame(2)
    final = ev(2, "assistant", text, {"model": "m"})
    view.update_event(final)
    assert view.item_frame(2) is frame and frame is not None
    assert blocks_of(frame) == one_shot(qtbot, final)


def test_the_end_moves_nothing(view: ScrollbackView) -> None:
    """The unfinished paragraph is spaced as the paragraph it becomes: when the reply
    ends, its text stays where it was and the item keeps its height."""
    text = "# Title\n\nA paragraph.\n\n- a\n- b\n\n```\ncode\n```\nThe last paragraph, complete."
    stream(view, text, 4)
    frame = view.item_frame(2)
    assert frame is not None
    layout = view.document().documentLayout()

    def geometry() -> tuple[float, float]:
        last = view.document().findBlock(frame.lastPosition())
        assert last.text() == "The last paragraph, complete."
        return layout.blockBoundingRect(last).top(), layout.frameBoundingRect(frame).height()

    before = geometry()
    view.update_event(ev(2, "assistant", text, {"model": "m"}))
    assert geometry() == before


def test_a_reply_that_ends_before_any_delta_shows_shows_its_text(view: ScrollbackView) -> None:
    view.show_events([ev(1, "user", "Tell me")])
    view.append_event(ev(2, "assistant", "", {"streaming": True, "model": "m"}))
    frame = view.item_frame(2)
    view.update_event(ev(2, "assistant", "All **at once**.", {"model": "m"}))
    assert view.item_frame(2) is frame
    assert view.item_texts() == ["Tell me", "All at once."]
    assert "…" not in view.document().toPlainText()


def test_a_burst_renders_a_slice_at_a_time(view: ScrollbackView, qtbot: Any) -> None:
    """Many blocks finished by one delta render a few thousand characters per delta (the
    loop is never held long); the end renders the rest, as the one-shot render."""
    paragraphs = "".join(f"Paragraph {i} with **bold** words in it.\n\n" for i in range(300))
    text = paragraphs + "The end."
    stream(view, text, len(text))
    item = view._items[-1]
    assert item.live is not None
    assert 0 < item.live.rendered <= RENDER_SLICE
    view.append_text(2, " More.")
    assert RENDER_SLICE < item.live.rendered <= 2 * RENDER_SLICE
    final = ev(2, "assistant", text + " More.", {"model": "m"})
    frame = view.item_frame(2)
    view.update_event(final)
    assert frame is not None and view.item_frame(2) is frame
    assert blocks_of(frame) == one_shot(qtbot, final)


def test_a_link_reference_defined_late_renders_the_reply_whole(
    view: ScrollbackView, qtbot: Any
) -> None:
    """A definition at the end changes a link in a block rendered earlier: the end
    renders the reply whole, so it still ends as the one-shot render."""
    text = "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs"
    stream(view, text, 6)
    final = ev(2, "assistant", text, {"model": "m"})
    view.update_event(final)
    frame = view.item_frame(2)
    assert frame is not None
    assert blocks_of(frame) == one_shot(qtbot, final)
    assert view.item_texts()[1].startswith("See the docs.")


def _code_line(frame: QTextFrame, text: str) -> tuple[QTextFrame, Any]:
    """The frame holding the block whose text is ``text``, and its first run's format."""
    block = frame.document().findBlock(frame.firstPosition())
    while block.isValid() and block.position() <= frame.lastPosition():
        if block.text() == text:
            holder = QTextCursor(block).currentFrame()
            return holder, block.begin().fragment().charFormat()
        block = block.next()
    raise AssertionError(f"no block {text!r}")


@pytest.mark.parametrize("step", [1, 5, 10_000])
def test_an_open_code_block_streams_inside_its_box(view: ScrollbackView, step: int) -> None:
    """Issue 20 item 15: an open fence streamed as raw text in the proportional font,
    then jumped into a styled box when it closed."""
    from PySide6.QtGui import QFontInfo

    from ikgui.ui.transcript.markdown import monospace_family

    opening = "Here is the code:\n\n```python\ndef area(r):\n"
    stream(view, opening + "    return 3.14 * r * r\n", step)
    frame = view.item_frame(2)
    assert frame is not None
    box, char = _code_line(frame, "def area(r):")
    assert box != frame and box.parentFrame() == frame  # in its own box...
    assert "```" not in view.item_texts()[1]  # ...without its fence...
    assert _code_line(frame, "python   ·   Copy")[0] == box  # ...under its header
    assert char.fontFamilies() == [monospace_family()] or QFontInfo(char.font()).fixedPitch()
    later, more = _code_line(frame, "    return 3.14 * r * r")  # what arrived after
    assert later == box and more.fontFamilies() == char.fontFamilies()
    assert more.fontPointSize() == char.fontPointSize()
    streamed_box = box.frameFormat()

    last = frame.document().findBlock(box.lastPosition())
    assert last.text() == "    return 3.14 * r * r"  # (no empty line the end would take away)
    view.append_text(2, "``")
    view.append_text(2, "`\n")
    assert "```" not in view.document().toPlainText()  # the closing fence never shows
    view.append_text(2, "\nDone.")
    final = ev(2, "assistant", opening + "    return 3.14 * r * r\n```\n\nDone.", {"model": "m"})
    view.update_event(final)
    assert view.item_frame(2) is frame
    box, char_after = _code_line(frame, "def area(r):")
    assert box != frame
    assert box.frameFormat() == streamed_box  # the same box, border, padding and ground
    assert char_after.fontFamilies() == char.fontFamilies()
    assert char_after.fontPointSize() == char.fontPointSize()


def test_an_open_fence_in_a_list_or_a_quote_stays_plain_until_it_renders(
    view: ScrollbackView,
) -> None:
    stream(view, "1. Install:\n\n   ```sh\n   pip install x\n", 4)
    frame = view.item_frame(2)
    assert frame is not None
    box, _ = _code_line(frame, "   pip install x")
    assert box == frame  # (no box of its own yet: it becomes a list item's code)


def test_code_coloured_late_ends_as_coloured_at_once(
    view: ScrollbackView, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20 item 20: ``let b = 2;`` once showed bold after streaming and plain in the
    one-shot render. Not a rendering bug: the one-shot page colours its code from the
    event loop in slices of a few ms, and on a busy machine the comparison ran before
    the slice reached ``let``. With slices of no time at all (each colours one token),
    the streamed reply and the page agree once the colouring is done."""
    from ikgui.ui.transcript import highlight

    text = REPLIES["unclosed fence"]
    stream(view, text, 7)
    frame = view.item_frame(2)
    final = ev(2, "assistant", text, {"model": "m"})
    view.update_event(final)
    assert frame is not None
    streamed = blocks_of(frame)
    assert ("let b = 2;", 700) in [(row[1], row[5][0]) for row in streamed if row[5]]
    monkeypatch.setattr(highlight, "SLICE_MS", 0.0)
    other = ScrollbackView()
    qtbot.addWidget(other)
    other.resize(800, 600)
    other.show_events([ev(1, "user", "Tell me"), final])
    late = other._writer.late
    assert late is not None and late.batches  # not coloured yet: the race the test lost
    steps = 0
    while late.batches and steps < 1000:
        late.step()
        steps += 1
    assert not late.batches and steps > 1  # one token a slice, never none
    one = other.item_frame(2)
    assert one is not None and blocks_of(one) == streamed
