"""Writes scrollback items into a ``QTextDocument``: one frame per item (a one-row table
for a mark), a small gap block between items, streaming text appended at a frame's end
(its finished Markdown blocks rendered as they complete, see
:mod:`ikgui.ui.transcript.stream_render`).

Everything model-provided goes in as plain text or through the safe Markdown renderer;
no HTML is ever inserted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtGui import (
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrame,
)

from ikgui.domain.attachments import listed
from ikgui.domain.events import Event, Kind
from ikgui.domain.text.safe import reveal_bidi
from ikgui.ui.transcript.body import BodyWriter
from ikgui.ui.transcript.command_output import write_show_all
from ikgui.ui.transcript.items import (
    PLACEHOLDER,
    Colors,
    ItemDisplay,
    badge_format,
    body_formats,
    display_for,
    frame_format,
    label_formats,
    mark_format,
    rule_format,
)
from ikgui.ui.transcript.markdown import is_code_block
from ikgui.ui.transcript.render_budget import STREAM_LIMIT
from ikgui.ui.transcript.selection import fragment_text
from ikgui.ui.transcript.tool_items import INTERRUPTED

if TYPE_CHECKING:
    from ikgui.ui.transcript.branch_notices import TitleLookup
    from ikgui.ui.transcript.highlight import LateHighlighter
    from ikgui.ui.transcript.stream_render import Live, StreamRenderer

_KEEP = QTextCursor.MoveMode.KeepAnchor
#: The events drawn as a fork, close or reopen notice.
_NOTICE_KINDS = frozenset({Kind.FORK, Kind.AGENT_KILLED, Kind.AGENT_REOPENED})


def notice_of(event: Event) -> tuple[str, str, str] | None:
    """A fork, close or reopen notice's parts (their module is loaded when one is drawn)."""
    if event.kind not in _NOTICE_KINDS:
        return None
    from ikgui.ui.transcript.branch_notices import notice_parts

    return notice_parts(event)


class Item:
    """One shown event: its frame, and the text so far while it streams."""

    __slots__ = ("event", "frame", "labelled", "live", "parts", "placeholder", "shown")

    def __init__(self, event: Event, frame: QTextFrame, labelled: bool) -> None:
        self.event = event
        self.frame = frame
        self.labelled = labelled
        self.placeholder = False
        #: The pieces of the text so far while the reply grows (``None``: not streaming);
        #: a list, so a reply of megabytes is not copied at every append.
        self.parts: list[str] | None = None
        #: Characters of a growing reply in the document (at most ``STREAM_LIMIT``).
        self.shown = 0
        #: How far a growing reply is rendered as Markdown (``None``: not rendering).
        self.live: Live | None = None

    @property
    def stream(self) -> str | None:
        """The text so far while the reply grows (``None``: not streaming)."""
        if self.parts is None:
            return None
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    @stream.setter
    def stream(self, text: str | None) -> None:
        self.parts = None if text is None else [text]


class ItemWriter:
    """Inserts, replaces, grows and reads items of one document."""

    def __init__(self, document: QTextDocument, colors: Colors, font: QFont) -> None:
        self.document = document
        self.body = BodyWriter(colors, font)
        #: Colours code left over by the render (set by the view, with ``alive``: whether
        #: an item is still shown).
        self.late: LateHighlighter | None = None
        self.alive: Callable[[Item], bool] = lambda item: False
        self._inserting: list[Item] = []
        #: The working prompt before an event that changed it (the prompt cards' "before").
        self.prompt_before: Callable[[int], str | None] = lambda event_id: None
        #: Prompt cards and command outputs the user unfolded ("Show all"), by event id:
        #: they stay whole through every rebuild while the window lives.
        self.expanded_cards: set[int] = set()
        #: Prompt cards unfolded past their fold ("Show all"), by event id.
        self.whole_cards: set[int] = set()
        #: The working prompt in force (``None``: unknown): its card offers no Restore.
        self.current_prompt: Callable[[], str | None] = lambda: None
        #: Whether the working-prompt panel shows the prompt: then cards are one compact
        #: line; with the panel collapsed they show what changed (the prompt is seen once).
        self.prompt_panel_open: Callable[[], bool] = lambda: True
        #: Prompt cards the user folded ("Hide changes") while the panel is collapsed.
        self.folded_cards: set[int] = set()
        #: The prompt cards drawn, by event id: (the version in force, unfolded).
        self.cards: dict[int, tuple[bool, bool]] = {}
        self._stream_renderer: StreamRenderer | None = None  # built on first use
        #: A conversation's title by id (fork and close notices name them; the view's
        #: owner sets it).
        self.titles: TitleLookup = lambda conv_id: None
        #: Whether a tool call was left without a result by a stop or a crash.
        self.interrupted: Callable[[Event], bool] = lambda event: False

    @property
    def stream_renderer(self) -> StreamRenderer:
        """Renders a growing reply's finished blocks (its module is loaded when a reply
        first streams, not before the first paint)."""
        if self._stream_renderer is None:
            from ikgui.ui.transcript.stream_render import StreamRenderer

            self._stream_renderer = StreamRenderer(self.document, self.body)
        return self._stream_renderer

    @property
    def colors(self) -> Colors:
        return self.body.colors

    @colors.setter
    def colors(self, colors: Colors) -> None:
        self.body.colors = colors

    @property
    def font(self) -> QFont:
        return self.body.font

    @font.setter
    def font(self, font: QFont) -> None:
        self.body.font = font

    def end_position(self) -> int:
        return self.document.rootFrame().lastPosition()

    def insert(self, position: int, event: Event) -> Item:
        """A new item for ``event`` at ``position`` (a gap block between two items)."""
        cursor = QTextCursor(self.document)
        cursor.setPosition(position)
        display = display_for(event)
        if display.role == "mark":
            frame: QTextFrame = self._insert_mark(cursor, event.id, reveal_bidi(display.text))
        else:
            frame = cursor.insertFrame(frame_format(display.role, event.id, self.colors))
        item = Item(event, frame, False)
        if display.streaming:
            item.stream = event.content
            item.shown = min(len(event.content), STREAM_LIMIT)
        if display.role != "mark":
            self._fill(cursor, item, display)
        if self.body.pending:  # code left to colour: from the event loop, while it lasts
            jobs, self.body.pending = self.body.pending, []
            if self.late is not None:
                for job in jobs:
                    job.alive = partial(self._alive, item)
                self.late.add(jobs)
        self.style_gap(frame.lastPosition() + 1)
        return item

    @contextmanager
    def batch(self) -> Iterator[list[Item]]:
        """Insert many items (append each to the list yielded): laid out once at the
        end, their code coloured after, the last items first."""
        items: list[Item] = []
        self._inserting = items
        self.document.setLayoutEnabled(False)
        self.body.highlight_limit = 0
        try:
            yield items
            if self.late is not None:
                self.late.step()  # one slice now: what shows at the bottom
        finally:
            self._inserting = []
            self.body.highlight_limit = None
            self.document.setLayoutEnabled(True)

    def insert_many(self, position: int, events: Sequence[Event]) -> list[Item]:
        """Items for ``events`` in order from ``position``, laid out once at the end."""
        with self.batch() as items:
            for event in events:
                item = self.insert(position, event)
                items.append(item)
                position = item.frame.lastPosition() + 1
        return items

    def _alive(self, item: Item) -> bool:
        """Whether an item is still shown (or being inserted)."""
        return item in self._inserting or self.alive(item)

    def remove(self, first: Item, last: Item | None = None) -> int:
        """Delete the frames from ``first`` to ``last`` (default: just ``first``);
        returns where they were."""
        cursor = QTextCursor(self.document)
        cursor.setPosition(first.frame.firstPosition() - 1)
        cursor.setPosition((last or first).frame.lastPosition() + 1, _KEEP)
        cursor.removeSelectedText()
        return cursor.position()

    def append(self, item: Item, text: str) -> None:
        """Streaming: ``text`` at the end of the item (replacing the placeholder); past
        ``STREAM_LIMIT`` characters only a note that more is arriving."""
        if item.parts is None:
            item.parts = [item.event.content]
        item.parts.append(text)
        room = STREAM_LIMIT - item.shown
        if room <= 0:
            return
        text = text[:room]
        item.shown += len(text)
        cursor = QTextCursor(self.document)
        if item.placeholder:
            cursor.setPosition(self.body_start(item))
            cursor.setPosition(item.frame.lastPosition(), _KEEP)
            item.placeholder = False
        else:
            cursor.setPosition(item.frame.lastPosition())
        boxed = item.live is not None and self.stream_renderer.write(item.live, text)
        if not boxed:  # (an open code block's text goes into its box)
            role = display_for(item.event, "").role
            char = body_formats(role, "", self.font, self.colors)[1]
            cursor.insertText(reveal_bidi(text), char)
        if item.shown >= STREAM_LIMIT:
            self.body.still_arriving(cursor)
        if item.live is not None:
            self.stream_renderer.grow(item.frame, item.live, text)

    def finish(self, item: Item, event: Event) -> bool:
        """A reply that streamed here ended as ``event``: render only what is not
        rendered yet (``False``: it must be written again whole)."""
        live, display = item.live, display_for(event)
        if live is None or display.streaming or not display.markdown:
            return False
        label = display.label + (f"  {reveal_bidi(display.detail)}" if display.detail else "")
        if item.frame.firstCursorPosition().block().text() != label:
            return False
        if not self.stream_renderer.finish(item.frame, live, display.text):
            return False
        item.event, item.parts, item.live, item.placeholder = event, None, None, False
        if display.badge:
            self._badge(item.frame, display.badge)
        self._reply_footer(item)
        return True

    def text_of(self, item: Item) -> str:
        """The item's plain text, without its label."""
        if item.placeholder:
            return ""
        cursor = QTextCursor(self.document)
        cursor.setPosition(self.body_start(item))
        cursor.setPosition(item.frame.lastPosition(), _KEEP)
        return fragment_text(cursor.selection(), tables=False).strip("\n")

    def body_start(self, item: Item) -> int:
        first = item.frame.firstCursorPosition().block()
        return first.next().position() if item.labelled else first.position()

    def style_gap(self, position: int) -> None:
        """Shrink the empty block Qt keeps between two frames to a small gap."""
        cursor = QTextCursor(self.document)
        cursor.setPosition(position)
        gap = QTextBlockFormat()
        gap.setLineHeight(4, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        cursor.setBlockFormat(gap)
        tiny = QTextCharFormat()
        tiny.setFontPointSize(2)
        cursor.setBlockCharFormat(tiny)

    def _insert_mark(self, cursor: QTextCursor, event_id: int, text: str) -> QTextFrame:
        table = cursor.insertTable(1, 3, mark_format(event_id, text, self.font))
        block, char = body_formats("mark", text, self.font, self.colors)
        for column in (0, 2):
            rule = table.cellAt(0, column).firstCursorPosition()
            rule.setBlockFormat(rule_format(self.colors))
            rule.setBlockCharFormat(char)
        label = table.cellAt(0, 1).firstCursorPosition()
        label.setBlockFormat(block)
        label.insertText(text, char)
        return table

    def card_state(self, event_id: int, prompt: object) -> tuple[bool, bool]:
        """How a prompt card is drawn now: (the version in force, unfolded)."""
        unfolded = event_id in self.expanded_cards or (
            event_id not in self.folded_cards and not self.prompt_panel_open()
        )
        return prompt == self.current_prompt(), unfolded

    def _card(self, cursor: QTextCursor, item: Item, first_block: bool) -> bool:
        """Write the prompt card of ``item`` (an edit, or a reply that drafted one)."""
        from ikgui.ui.transcript.prompt_cards import card_for, write_card

        event = item.event
        card = card_for(event, self.prompt_before(event.id))
        if card is None:
            return False
        colors = self.colors
        current, expanded = self.card_state(event.id, card.text)
        self.cards[event.id] = (current, expanded)
        write_card(
            cursor,
            card,
            event.id,
            accent=colors.accent("prompt"),
            link_color=colors.link,
            font=self.font,
            expanded=expanded,
            first_block=first_block,
            current=current,
            whole=event.id in self.whole_cards,
        )
        return True

    def _reply_footer(self, item: Item) -> None:
        """Under a finished reply: the prompt it drafted, or why it set none."""
        event = item.event
        if not event.may_have("prompt") and not event.may_have("prompt_warning"):
            return
        cursor = QTextCursor(self.document)
        cursor.setPosition(item.frame.lastPosition())
        if self._card(cursor, item, first_block=False):
            return
        warning = event.data.get("prompt_warning")
        if isinstance(warning, str):
            from ikgui.ui.transcript.prompt_cards import write_warning

            write_warning(cursor, warning, self.colors.accent("prompt"), self.font)

    def _fill(self, cursor: QTextCursor, item: Item, display: ItemDisplay) -> None:
        """Write an item's label and body into its (empty) frame at ``cursor``."""
        font, colors = self.font, self.colors
        item.labelled = bool(display.label)
        if display.label:
            label, detail = label_formats(display.role, font, colors)
            heading = QTextBlockFormat()
            heading.setBottomMargin(3)
            cursor.setBlockFormat(heading)
            cursor.insertText(display.label, label)
            if display.detail:
                cursor.insertText(f"  {reveal_bidi(display.detail)}", detail)
        event_id = item.event.id
        if display.role == "prompt" and self._card(cursor, item, first_block=True):
            return
        if display.markdown and display.label:
            self.body.markdown(cursor, display.text, event_id, display.role == "user")
        else:
            block, char = body_formats(display.role, display.text, font, colors)
            if display.label:
                cursor.insertBlock(block, char)
            else:
                cursor.setBlockFormat(block)
                cursor.setBlockCharFormat(char)
            if display.streaming and not display.text:
                placeholder = QTextCharFormat(char)
                placeholder.setForeground(colors.dim)
                cursor.insertText(PLACEHOLDER, placeholder)
                item.placeholder = True
            elif display.streaming:
                cursor.insertText(reveal_bidi(display.text[:STREAM_LIMIT]), char)
                if len(display.text) >= STREAM_LIMIT:
                    self.body.still_arriving(cursor)
            elif display.text and (parts := notice_of(item.event)) is not None:
                from ikgui.ui.transcript.branch_notices import write_branch_notice

                write_branch_notice(cursor, parts, char, self.titles)
            elif display.fold is not None and event_id not in self.expanded_cards:
                # a long command output: its first screenful
                self.body.plain(cursor, display.fold[0], char, event_id, False)
                write_show_all(cursor, event_id, display.fold[1], colors, font)
            else:
                self.body.plain(cursor, display.text, char, event_id, display.role == "assistant")
            if display.streaming and display.label and display.role == "assistant":
                item.live = self.stream_renderer.start(
                    item.frame, self.body_start(item), display.text, event_id
                )
        if display.badge:
            self._badge(item.frame, display.badge)
        elif item.event.kind == Kind.TOOL_CALL and self.interrupted(item.event):
            self._badge(item.frame, INTERRUPTED)
        files = listed(item.event.data) if item.event.kind == Kind.USER else []
        if files:
            from ikgui.ui.transcript.files import write_files

            end = QTextCursor(self.document)
            end.setPosition(item.frame.lastPosition())
            write_files(end, event_id, files, colors, font)
        if display.role == "assistant" and not display.streaming:
            self._reply_footer(item)

    def _badge(self, frame: QTextFrame, badge: str) -> None:
        """``badge`` (such as "(stopped)") after the item's last text."""
        cursor = QTextCursor(self.document)
        cursor.setPosition(frame.lastPosition())
        if is_code_block(cursor.blockFormat()):
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        elif not cursor.block().text():
            cursor.setBlockFormat(QTextBlockFormat())  # the one after a code frame
        space = " " if cursor.block().text() else ""
        cursor.insertText(f"{space}{badge}", badge_format(self.colors, self.font))
