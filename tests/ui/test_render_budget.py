"""The scrollback's render budget (issue 8, items 2 and 3): big tables and long replies
never freeze the event loop, they degrade to text with "Show as table" / "Open full
reply", and bidi controls show as ``⟨U+202E⟩`` in every kind of item.

The real ``ScrollbackView`` under pytest-qt. What would freeze the loop is counted, not
timed (``tests/support/layout_work.py``): the blocks, characters and format runs Qt must
lay out again in each pass of the event loop while a reply streams in, finishes and is
shown again (a reopen) stay within one item's budget. How long that takes on this
machine is ``benchmarks/bench_scrollback.py``'s to measure.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Event
from ikgui.ui.transcript import reply_viewer
from ikgui.ui.transcript.body import OPEN_FULL, SHOW_TABLE, STILL_ARRIVING
from ikgui.ui.transcript.render_budget import (
    DISPLAY_LIMIT,
    MAX_LINES,
    MAX_MARKUP,
    STREAM_LIMIT,
    TABLE_CELL_BUDGET,
    find_tables,
    head_of,
    plan,
    table_at,
)
from ikgui.ui.transcript.reply_viewer import FullTextDialog, TableDialog
from ikgui.ui.transcript.scrollback import ScrollbackView
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.layout_work import LayoutWork, Work
from tests.support.waiting import wait_until
from tests.support.wire_server import WireServer
from tests.ui.test_window import closed, opened, quiet, reply, write_config

__all__ = ["wire_server", "wire_server_session"]

C = "chat-budget"
#: The most one pass of the event loop may lay out again: one item at its budget (its
#: shown lines, characters and format runs) and a little more (the notes and links the
#: budget adds, the item's frame, a short neighbour). The code before the budget laid
#: out a 3,550-cell table (3,550 blocks), 3 MB at once, and a growing 2 MB paragraph on
#: every append.
MOST = Work(blocks=MAX_LINES + 60, chars=DISPLAY_LIMIT + 2_000, runs=MAX_MARKUP + 400)
RLO = "\u202e"
SHOWN = "⟨U+202E⟩"


def ev(id: int, kind: str, content: str = "", data: dict[str, Any] | None = None) -> Event:
    return Event(id, C, kind, content, data or {})


def md_table(rows: int, columns: int) -> str:
    head = "| " + " | ".join(f"h{c}" for c in range(columns)) + " |\n"
    rule = "|" + "|".join("---" for _ in range(columns)) + "|\n"
    body = "".join(
        "| " + " | ".join(f"r{r}c{c}" for c in range(columns)) + " |\n" for r in range(rows)
    )
    return head + rule + body


@pytest.fixture
def view(qtbot: Any) -> ScrollbackView:
    widget = ScrollbackView()
    qtbot.addWidget(widget)
    widget.resize(900, 650)
    widget.show()
    return widget


def within(work: LayoutWork, most: Work = MOST) -> None:
    """No pass of the loop laid out more than ``most`` (each count on its own)."""
    worst = work.most()
    assert work.passes, "nothing was laid out"
    assert worst.blocks <= most.blocks, f"{worst.blocks} blocks laid out in one pass"
    assert worst.chars <= most.chars, f"{worst.chars} characters laid out in one pass"
    assert worst.runs <= most.runs, f"{worst.runs} format runs laid out in one pass"


def run_steps(qtbot: Any, steps: Iterator[Callable[[], None]] | list[Callable[[], None]]) -> None:
    """Each step as its own event-loop callback, 5 ms apart (as the bridge's flushes)."""
    pending = iter(steps)
    done = []

    def next_step() -> None:
        step = next(pending, None)
        if step is None:
            done.append(True)
            return
        step()
        QTimer.singleShot(5, next_step)

    QTimer.singleShot(0, next_step)
    qtbot.waitUntil(lambda: bool(done), timeout=60_000)


def stream_steps(
    view: ScrollbackView, event_id: int, text: str, chunk: int, final: Event
) -> list[Callable[[], None]]:
    start = ev(event_id, "assistant", "", {"streaming": True, "model": "m"})
    steps: list[Callable[[], None]] = [lambda: view.append_event(start)]
    for at in range(0, len(text), chunk):
        piece = text[at : at + chunk]
        steps.append(lambda piece=piece: view.append_text(event_id, piece))  # type: ignore[misc]
    steps.append(lambda: view.update_event(final))
    steps.append(lambda: view.viewport().repaint())
    return steps


def find_link(view: ScrollbackView, label: str) -> QTextCursor:
    """A cursor inside the first anchor whose text is ``label``."""
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().isAnchor() and fragment.text() == label:
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + 1)
                return cursor
            it += 1
        block = block.next()
    raise AssertionError(f"no {label!r} link in the transcript")


def largest_table(view: ScrollbackView) -> int:
    """The most cells of a table in the transcript (0: no table)."""
    cells = 0
    block = view.document().begin()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None:
            cells = max(cells, table.rows() * table.columns())
        block = block.next()
    return cells


def click_link(view: ScrollbackView, qtbot: Any, label: str) -> None:
    """Scroll the link into view and click it with the mouse, as a user would."""
    cursor = find_link(view, label)
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    point = view.cursorRect(cursor).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_big_table_streams_finishes_and_reopens_without_freezing(
    view: ScrollbackView, qtbot: Any
) -> None:
    """A 3,550-cell table froze the old scrollback for ~1 s when the reply finished and
    again on the reopen; now it is preformatted text and no step blocks the loop long."""
    table = md_table(70, 50)
    text = f"Here it is:\n\n{table}\nThat is all."
    assert len(text) < DISPLAY_LIMIT  # the table is degraded, not cut
    final = ev(2, "assistant", text, {"model": "m"})
    history = [ev(1, "user", "a big table please"), final]
    view.show_events(history[:1])
    with LayoutWork(view.document()) as finish:
        run_steps(qtbot, stream_steps(view, 2, text, 2_000, final))
    with LayoutWork(view.document()) as reopen:
        run_steps(qtbot, [lambda: view.show_events([]), lambda: view.show_events(history)])
    within(finish)
    within(reopen)
    shown = view.item_texts()[-1]
    assert shown.startswith("Here it is:") and shown.endswith("That is all.")
    assert SHOW_TABLE in shown and "| r69c0 | r69c1 |" in shown  # one row, one line
    assert largest_table(view) == 0  # no QTextTable of 3,550 cells


def test_show_as_table_opens_the_whole_table_in_a_table_view(
    view: ScrollbackView, qtbot: Any
) -> None:
    table = md_table(80, 60).replace("| r5c3 |", f"| a {RLO}cod.exe |")
    table = table.replace("| r6c2 |", "| <b>bold</b> |")
    view.show_events([ev(3, "assistant", f"Intro\n\n{table}\nOutro", {"model": "m"})])
    click_link(view, qtbot, SHOW_TABLE)
    qtbot.waitUntil(lambda: bool(view.findChildren(TableDialog)))
    dialog = view.findChildren(TableDialog)[0]
    qtbot.addWidget(dialog)
    model = dialog.model
    assert (model.rowCount(), model.columnCount()) == (80, 60)
    assert model.headerData(59, Qt.Orientation.Horizontal) == "h59"
    assert model.index(79, 59).data() == "r79c59"
    assert model.index(5, 3).data() == f"a {SHOWN}cod.exe"
    assert "&lt;b&gt;bold&lt;/b&gt;" in model.index(6, 2).data(Qt.ItemDataRole.ToolTipRole)
    copy = dialog.findChild(QPushButton, "tableCopy")
    assert copy is not None
    copy.click()
    assert QGuiApplication.clipboard().text() == table.rstrip("\n")  # the original text


def test_long_reply_shows_its_head_and_open_full_reply_has_everything(
    view: ScrollbackView, qtbot: Any
) -> None:
    """A 3 MB reply (one 1 MB line in it) took seconds to show on the old scrollback."""
    lines = "\n".join(f"line {n}: " + "lorem ipsum " * 8 for n in range(20_000))
    text = "# Report\n\n" + lines + "\n\n" + "x" * 1_000_000 + "\n\nThe end."
    final = ev(4, "assistant", text, {"model": "m"})
    with LayoutWork(view.document()) as probe:
        run_steps(qtbot, stream_steps(view, 4, text, 200_000, final))
    with LayoutWork(view.document()) as reopen:
        run_steps(qtbot, [lambda: view.show_events([]), lambda: view.show_events([final])])
    within(probe)
    within(reopen)
    shown = view.item_texts()[-1]
    assert shown.startswith("Report\nline 0: ")
    assert len(shown) < DISPLAY_LIMIT and "The end." not in shown
    assert f"of {len(text):,} characters." in shown and OPEN_FULL in shown
    click_link(view, qtbot, OPEN_FULL)
    qtbot.waitUntil(lambda: bool(view.findChildren(FullTextDialog)))
    dialog = view.findChildren(FullTextDialog)[0]
    qtbot.addWidget(dialog)
    with LayoutWork(dialog.editor.document()) as loading:
        qtbot.waitUntil(dialog.loaded, timeout=60_000)
    # The viewer takes the text in slices (a plain-text view lays out only what is on
    # screen, but each slice is read in one pass).
    assert len(loading.passes) > 1
    within(loading, Work(blocks=len(text), chars=2 * reply_viewer.SLICE, runs=len(text)))
    shown_text = dialog.editor.toPlainText()
    assert shown_text.replace("\u2029", "\n").replace("\n", "") == text.replace("\n", "")
    assert dialog.editor.isReadOnly()
    dialog.copy_all()
    assert QGuiApplication.clipboard().text() == text  # the original, lines not split


def test_a_streaming_reply_shows_at_most_its_limit_until_it_finishes(
    view: ScrollbackView, qtbot: Any
) -> None:
    """A 2 MB single line streamed in: the old view re-laid the growing paragraph at
    every append; now it stops at STREAM_LIMIT with a note, and Copy has it all."""
    text = "word " * 400_000
    view.append_event(ev(5, "assistant", "", {"streaming": True}))
    with LayoutWork(view.document()) as probe:
        steps = [
            (lambda at=at: view.append_text(5, text[at : at + 100_000]))
            for at in range(0, len(text), 100_000)
        ]
        run_steps(qtbot, steps)
    within(probe)
    shown = view.item_texts()[-1]
    assert len(shown) <= STREAM_LIMIT + len(STILL_ARRIVING) + 1
    assert shown.endswith(STILL_ARRIVING)
    view._copy_item(5)
    assert QGuiApplication.clipboard().text() == text


def test_bidi_controls_are_shown_in_every_kind_of_item(view: ScrollbackView) -> None:
    name = f"invoice{RLO}gpj.exe"
    events = [
        ev(1, "system", f"Be brief {name}"),
        ev(2, "user", f"Rename {name}"),
        ev(
            3,
            "assistant",
            f"Done: **{name}**\n\n```\ncp {name} x\n```\n\n| f |\n|---|\n| {name} |",
            {"model": f"m{RLO}1"},
        ),
        ev(4, "tool_call", f"mv({name})", {"name": f"mv{RLO}"}),
        ev(5, "tool_result", name, {"name": "mv"}),
        ev(6, "command", f"Model set to {name}", {"input": "/model", "ok": True}),
        ev(7, "error", f"No such file {name}", {"category": "x"}),
        ev(8, "mark", "", {"label": name}),
        ev(9, "fork", f"Forked child {name}", {"role": "parent"}),
    ]
    view.show_events(events)
    view.append_event(ev(10, "assistant", "", {"streaming": True}))
    view.append_text(10, f"streaming {name}")
    texts = view.item_texts()
    document = view.document().toPlainText()
    assert RLO not in document
    for text in texts[:2] + texts[3:]:
        assert f"invoice{SHOWN}gpj.exe" in text, text
    assert document.count(f"invoice{SHOWN}gpj.exe") >= 12  # code block and table cell too
    assert f"m{SHOWN}1" in document and f"mv{SHOWN}" in document  # details of labels
    frame = view.item_frame(8)
    assert frame is not None
    view._copy_item(3)
    assert RLO in QGuiApplication.clipboard().text()  # Copy keeps the original
    assert view._by_id[2].event.content == f"Rename {name}"  # the stored text is unchanged


def test_the_plan_counts_cells_and_keeps_tables_in_code_fences() -> None:
    small, big = md_table(3, 4), md_table(40, 20)
    text = f"a\n\n{small}\n```\n{big}```\n\n{big}\nz"
    tables = find_tables(text)
    assert [(t.rows, t.columns) for t in tables] == [(3, 4), (40, 20)]  # not the fenced one
    segments = plan(text)
    assert [s.preformatted for s in segments] == [False, True, False]
    assert tables[1].cells > TABLE_CELL_BUDGET >= tables[0].cells
    assert table_at(text, tables[1].start) == big.rstrip("\n")
    wordy = md_table(10, 8).replace("r", "a long cell text " * 8)  # few cells, much text
    assert find_tables(wordy)[0].cells < TABLE_CELL_BUDGET
    assert [s.preformatted for s in plan(wordy.rstrip("\n"))] == [True]
    assert head_of("x" * 10) == "x" * 10
    assert len(head_of("y\n" * 40_000)) < DISPLAY_LIMIT


def test_model_text_cannot_make_the_scrollbacks_own_links(view: ScrollbackView) -> None:
    """Only the scrollback writes ``ikgui-full:``/``ikgui-table:`` anchors: a model's
    Markdown link with those schemes loses its anchor like any non-http(s) link."""
    view.show_events([ev(1, "assistant", "[Show as table](ikgui-table:1/0) [x](ikgui-full:1)")])
    with pytest.raises(AssertionError, match="no 'Show as table' link"):
        find_link(view, SHOW_TABLE)
    with pytest.raises(AssertionError):
        find_link(view, "x")


def test_the_table_window_takes_in_at_most_its_cap(qtbot: Any, monkeypatch: Any) -> None:
    """A table of megabytes opens its first rows (the rest are counted, and in Open full
    reply); Copy still copies all of it."""
    monkeypatch.setattr(reply_viewer, "TABLE_TEXT_CAP", 2_000)
    table = md_table(100, 5).rstrip("\n")
    dialog = TableDialog(table)
    qtbot.addWidget(dialog)
    dialog.show()
    assert 0 < dialog.model.rowCount() < 100
    assert dialog.note.isVisible() and "of 100 rows" in dialog.note.text()
    assert dialog.windowTitle() == "Table: 100 rows × 5 columns"
    copy = dialog.findChild(QPushButton, "tableCopy")
    assert copy is not None
    copy.click()
    assert QGuiApplication.clipboard().text() == table


async def test_the_real_window_streams_a_big_table_and_reopens_it_without_freezing(
    tmp_path: Path, wire_server: WireServer, qtbot: QtBot
) -> None:
    """The whole path: a wire server streams a 3,550-cell table, the window stores it,
    shows it, and shows it again after /new and a switch back; a user's bidi control is
    revealed on screen but reaches the model and the database as it was typed."""
    table = md_table(70, 50)
    pieces = [table[at : at + 1_000] for at in range(0, len(table), 1_000)]
    wire_server.route("/v1/chat/completions", reply(*pieces))
    home = tmp_path / "home"
    write_config(home, wire_server.url)
    win = await opened(home)
    try:
        with LayoutWork(win.scrollback.document()) as probe:
            win.prompt.setFocus()  # (QTest types ASCII only: the text is pasted)
            win.prompt.setPlainText(f"table for invoice{RLO}gpj.exe")
            qtbot.keyClick(win.prompt, Qt.Key.Key_Return)
            await quiet(win)
            conv = win.current_id
            await asyncio.wait_for(win.run_line("/new"), 10)
            await quiet(win)
            win.open_conversation(conv)
            await wait_until(
                lambda: SHOW_TABLE in win.scrollback.item_texts()[-1] and not win.scrollback.filling
            )
            await quiet(win)
        within(probe)
        shown = win.scrollback.item_texts()
        assert shown[-2] == f"table for invoice{SHOWN}gpj.exe"
        assert SHOW_TABLE in shown[-1] and largest_table(win.scrollback) == 0
        sent = wire_server.bodies()[-1]["messages"][-1]["content"]
        assert sent == f"table for invoice{RLO}gpj.exe"
        stored = [e.content for e in win.session.state.scrollback]
        assert stored[-2:] == [f"table for invoice{RLO}gpj.exe", table]
    finally:
        await closed(win)


@pytest.mark.parametrize(
    ("shape", "cut"),
    [
        ("*a* **b** `c` " * 2_200, True),  # one paragraph of 6,600 format runs (old: ~2 s)
        ("- a\n" * 7_000, True),  # a list of 7,000 items (old: ~2 s)
        ("[x](https://example.com/a) " * 1_100, False),  # 1,100 links (old: ~0.3 s)
        ("a\n\n" * 10_000, True),  # 10,000 paragraphs
    ],
    ids=["format-runs", "list", "links", "paragraphs"],
)
def test_replies_of_30_kb_in_costly_shapes_stay_within_the_bound(
    view: ScrollbackView, qtbot: Any, shape: str, cut: bool
) -> None:
    """Under 32,000 characters but costly for Qt: the shown head is also held to
    MAX_LINES lines and MAX_MARKUP markup characters, and the rest is in Open full reply."""
    assert len(shape) < DISPLAY_LIMIT
    final = ev(6, "assistant", shape, {"model": "m"})
    with LayoutWork(view.document()) as probe:
        run_steps(qtbot, [lambda: view.show_events([final]), lambda: view.viewport().repaint()])
    within(probe)
    shown = view.item_texts()[-1]
    assert (f"of {len(shape):,} characters." in shown and OPEN_FULL in shown) is cut


def test_plain_text_is_not_cut_for_markup_it_does_not_have() -> None:
    """Markup characters cost formatting runs only in Markdown: a plain body (a tool
    result, an error) full of ``_`` and ``[`` is shown whole within the size limits."""
    from ikgui.ui.transcript.render_budget import MAX_MARKUP, head_of

    text = "a_b[c] " * MAX_MARKUP  # two markup characters each
    assert head_of(text, markup=False) == text
    assert len(head_of(text)) < len(text)  # as Markdown it is cut


def test_fences_open_and_close_as_commonmark_says() -> None:
    from ikgui.ui.transcript.render_budget import fence_after

    assert fence_after("", "```python") == "```"
    assert fence_after("", "  ~~~~") == "~~~~"
    assert fence_after("", "``` a`b") == ""  # a backtick in the info string: no fence
    assert fence_after("", "``") == ""
    assert fence_after("```", "```") == ""
    assert fence_after("```", "`````  ") == ""  # longer closes too
    assert fence_after("````", "```") == "````"  # shorter does not
    assert fence_after("```", "```python") == "```"  # nor one with an info string
    assert fence_after("```", "~~~") == "```"
    # A table inside a fence is no table, though a shorter fence line is in it too.
    tables = find_tables("````\n```\n| a |\n|---|\n````\n| b |\n|---|\n| 1 |")
    assert [(t.rows, t.columns) for t in tables] == [(1, 1)]
