"""Code blocks in the transcript: a header with the language and Copy, Pygments colours
in light and dark, wrapped lines that keep their indentation; and copying a table gives
tab-separated cells."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor, QTextFormat
from PySide6.QtWidgets import QApplication

from ikgui.domain.events import Event
from ikgui.ui.style import dark_palette, light_palette
from ikgui.ui.transcript import highlight
from ikgui.ui.transcript.code_blocks import code_source, fenced_blocks
from ikgui.ui.transcript.scrollback import ScrollbackView

CODE = 'def greet(name):\n\treturn "hello " + name  # a tab, kept by Copy'
REPLY = f"Here:\n\n```python\n{CODE}\n```\n\nAnd a shell one:\n\n```\nls -l\n```\n"


def reply(text: str, event_id: int = 2) -> Event:
    return Event(event_id, "chat-test", "assistant", text, {"model": "m"})


@pytest.fixture
def view(qtbot: Any) -> ScrollbackView:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.resize(800, 600)
    widget.show()
    return widget


def found(view: ScrollbackView, text: str) -> QTextCursor:
    cursor = view.document().find(text)
    assert not cursor.isNull(), text
    return cursor


def colour_at(view: ScrollbackView, text: str) -> str | None:
    """The foreground colour set on the first character of ``text`` (None: none set)."""
    cursor = found(view, text)
    cursor.setPosition(cursor.selectionStart() + 1)
    fmt = cursor.charFormat()
    if not fmt.hasProperty(QTextFormat.Property.ForegroundBrush):
        return None
    return str(fmt.foreground().color().name())


def test_a_fenced_block_has_a_header_with_its_language_and_copy(view: ScrollbackView) -> None:
    view.show_events([reply(REPLY)])
    header = found(view, "python").block()
    assert "Copy" in header.text()
    assert found(view, "def greet").block().blockNumber() == header.blockNumber() + 1
    assert "code" in found(view, "ls -l").block().previous().text()  # no language
    # The header is no part of the item's text, nor of what a selection copies.
    assert view.item_texts() == [
        'Here:\n\ndef greet(name):\n    return "hello " + name  # a tab, kept by Copy'
        "\n\nAnd a shell one:\n\nls -l"
    ]


@pytest.mark.parametrize("palette", [light_palette, dark_palette])
def test_tokens_carry_colours_of_the_theme(qtbot: Any, palette: Any) -> None:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.setPalette(palette())
    widget.show_events([reply(REPLY)])
    keyword, string, comment = (colour_at(widget, t) for t in ("def greet", '"hello', "# a tab"))
    assert None not in (keyword, string, comment)
    assert len({keyword, string, comment}) == 3
    assert colour_at(widget, "ls -l") is None  # no language: plain
    other = dark_palette if palette is light_palette else light_palette
    widget.setPalette(other())  # the theme changes: the colours follow
    assert colour_at(widget, "def greet") not in (None, keyword)


def test_copy_puts_the_exact_source_on_the_clipboard(view: ScrollbackView, qtbot: Any) -> None:
    view.show_events([reply(REPLY)])
    QGuiApplication.clipboard().setText("before")
    for expected, language in ((CODE, "python"), ("ls -l", "code")):
        header = found(view, language).block()
        link = QTextCursor(header)
        link.setPosition(header.position() + header.text().index("Copy") + 2)
        point = view.cursorRect(link).center()
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
        assert QGuiApplication.clipboard().text() == expected
        assert "Copied" in found(view, language).block().text()  # for a moment
    qtbot.waitUntil(lambda: "Copied" not in view.document().toPlainText(), timeout=3000)
    assert found(view, "python").block().text().endswith("Copy")


def test_fenced_sources_are_found_as_written() -> None:
    text = "a\n\n~~~\nx\n~~~\n\n- item\n\n  ```js\n  let y = 1;\n    deeper\n  ```\n"
    assert fenced_blocks(text) == ["x", "let y = 1;\n  deeper"]
    assert fenced_blocks("```py\nunclosed\n") == ["unclosed"]
    assert code_source("no code", 0) is None


def test_a_long_indented_line_wraps_under_its_indentation(qtbot: Any) -> None:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.resize(420, 600)
    widget.show()
    line = "        result = compute(" + ", ".join(f"argument_{i}" for i in range(12)) + ")"
    widget.show_events([reply(f"```python\ndef f():\n{line}\n```")])
    start = found(widget, "result = compute")
    block = start.block()
    layout = block.layout()
    assert layout.lineCount() >= 3
    indent_left = widget.cursorRect(_at(block, 8)).left()
    for number in range(1, layout.lineCount()):
        continued = _at(block, layout.lineAt(number).textStart())
        assert widget.cursorRect(continued).left() > indent_left, number


def _at(block: Any, offset: int) -> QTextCursor:
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + offset)
    return cursor


def test_copying_a_table_gives_tab_separated_cells(view: ScrollbackView) -> None:
    table = (
        "| Option | Meaning |\n|---|---|\n| `encoding` | bytes to text |\n| errors | bad bytes |"
    )
    view.show_events([reply(f"Options:\n\n{table}\n\nDone.")])
    cursor = view.textCursor()
    cursor.setPosition(found(view, "Options").selectionStart())
    cursor.setPosition(found(view, "Done").selectionEnd(), QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    view.copy()
    copied = QApplication.clipboard().text()
    assert "Option\tMeaning\nencoding\tbytes to text\nerrors\tbad bytes" in copied
    assert copied.startswith("Options:") and copied.endswith("Done")


def test_code_past_the_budget_is_coloured_later(
    view: ScrollbackView, qtbot: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(highlight, "HIGHLIGHT_LIMIT", 200)
    small = "def small(): pass"
    big = "\n".join(f"def f{i}(): pass" for i in range(40))
    view.append_event(reply(f"```python\n{small}\n```\n\n```python\n{big}\n```"))
    assert colour_at(view, "def small") is not None
    assert colour_at(view, "def f0") is not None  # the budget's worth at once...
    assert colour_at(view, "def f39") is None
    qtbot.waitUntil(lambda: colour_at(view, "def f39") is not None)  # ...the rest soon after
    # A reply re-rendered meanwhile: the old jobs stop (they colour nothing stale).
    view.show_events([reply(f"```python\n{big}\n```")])
    view.show_events([reply("No code now.")])
    qtbot.wait(50)
    assert view.item_texts() == ["No code now."]


def test_a_page_of_code_shows_at_once_and_is_coloured_from_the_bottom(
    view: ScrollbackView, qtbot: Any
) -> None:
    highlight.lexer_for("python")  # (Pygments loaded: the slice is not spent importing)
    body = "\n".join(f"    value_{i} = compute({i})  # step {i}" for i in range(40))
    events = [reply(f"```python\ndef item_{n}():\n{body}\n```", n) for n in range(1, 61)]
    view.show_events(events)
    assert colour_at(view, "def item_60") is not None  # the bottom: in the first slice
    assert colour_at(view, "def item_1(") is None  # the top: later, from the event loop
    qtbot.waitUntil(lambda: colour_at(view, "def item_1(") is not None, timeout=20_000)


def test_a_table_right_after_code_keeps_its_header_cell(view: ScrollbackView) -> None:
    view.show_events([reply("```\nx\n```\n\n| Option | Meaning |\n|---|---|\n| a | b |")])
    cursor = found(view, "Option")
    table = cursor.currentTable()
    assert table is not None
    cell = table.cellAt(0, 0)
    assert cell.firstCursorPosition().block().text() == "Option"  # no empty line above
    assert cursor.charFormat().fontWeight() == 700  # bold like the other header cells
