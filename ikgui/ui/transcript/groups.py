"""Collapsed groups in the transcript (SPEC §4.4; a mixin of
:class:`ikgui.ui.transcript.scrollback.ScrollbackView`): what a rewind, a clear or a Retry
took out of the context stays where it was as one dimmed line ("3 items rewound · Show")
that expands in place; expanded items are drawn as out of the context (dimmed, a dashed
outline, "not in context" beside their label).

The view's rows are events; a group is a row too, a header event of kind ``group`` with
the negative of the group's key as its id (event ids are positive). The rows of an
expanded group follow its header. A cleared group's items are read only when it is
expanded (``group_loader``, :func:`ikgui.domain.state.transcript.cleared_items`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import (
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrameFormat,
    QTextTable,
)
from PySide6.QtWidgets import QScrollBar

from ikgui.domain.errors import IkguiError
from ikgui.domain.events import Event
from ikgui.domain.state.facts import TranscriptChange
from ikgui.domain.state.reading import shown
from ikgui.domain.state.transcript import Entry, Group, GroupKind
from ikgui.ui.transcript.body import link_format, note_format
from ikgui.ui.transcript.items import ROLE_PROPERTY, Colors, blend
from ikgui.ui.transcript.render import Item, ItemWriter
from ikgui.ui.transcript.start import PAGE_SIZE

log = logging.getLogger(__name__)

GROUP_KIND = "group"
GROUP_SCHEME = "ikgui-group"
OUT_OF_CONTEXT = "not in context"
_KEEP = QTextCursor.MoveMode.KeepAnchor


def header_event(group: Group) -> Event:
    """The row that stands for ``group`` in the view."""
    return Event(-group.key, group.conversation_id, GROUP_KIND, group.label)


def group_link(url: QUrl) -> int | None:
    """The key of the group a "Show"/"Hide" link toggles."""
    path = url.path()
    return int(path) if url.scheme() == GROUP_SCHEME and path.isdigit() else None


def insert_header(
    document: QTextDocument, position: int, group: Group, expanded: bool, writer: ItemWriter
) -> Item:
    """The group's line at ``position``: its label and a Show/Hide link."""
    colors, font = writer.colors, writer.font
    cursor = QTextCursor(document)
    cursor.setPosition(position)
    fmt = QTextFrameFormat()
    fmt.setProperty(ROLE_PROPERTY, GROUP_KIND)
    fmt.setPadding(3)
    fmt.setTopMargin(2)
    fmt.setBottomMargin(2)
    frame = cursor.insertFrame(fmt)
    block = QTextBlockFormat()
    block.setAlignment(Qt.AlignmentFlag.AlignHCenter)  # like the notices around it
    cursor.setBlockFormat(block)
    text = note_format(colors, font)
    if group.kind == GroupKind.RETRIED and group.failed:
        text.setForeground(blend(colors.dim, colors.accent("error"), 0.35))
    label = group.label + (f" · {OUT_OF_CONTEXT}" if expanded else "")
    cursor.insertText(f"{label} · ", text)
    link = link_format(f"{GROUP_SCHEME}:{group.key}", colors, font)
    cursor.insertText("Hide" if expanded else "Show", link)
    writer.style_gap(frame.lastPosition() + 1)
    return Item(header_event(group), frame, False)


def dim(document: QTextDocument, item: Item, colors: Colors, font: QFont) -> None:
    """Draw an inserted item as out of the context."""
    frame = item.frame
    if not isinstance(frame, QTextTable):  # (a mark is a table: its rules say enough)
        fmt = frame.frameFormat()
        fmt.setBorder(1)
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Dashed)
        fmt.setBorderBrush(blend(colors.base, colors.text, 0.3))
        fmt.setBackground(blend(colors.base, colors.text, 0.02))
        if fmt.padding() < 6:
            fmt.setPadding(6)
        frame.setFrameFormat(fmt)
    cursor = QTextCursor(document)
    cursor.setPosition(frame.firstPosition())
    cursor.setPosition(frame.lastPosition(), _KEEP)
    faded = QTextCharFormat()
    faded.setForeground(colors.dim)
    cursor.mergeCharFormat(faded)
    if item.labelled:
        cursor.setPosition(frame.firstCursorPosition().block().position())
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
        cursor.insertText(f"  {OUT_OF_CONTEXT}", note_format(colors, font))


class _View(Protocol):
    _held: list[Event]
    _first: int
    _last: int
    _items: list[Item]
    _by_id: dict[int, Item]
    _writer: ItemWriter
    _groups: dict[int, Group]
    _expanded: set[int]
    _loading: bool
    _owner: dict[int, int]
    group_loader: Callable[[Group], list[Entry]] | None

    def document(self) -> QTextDocument: ...
    def verticalScrollBar(self) -> QScrollBar: ...
    def append_event(self, event: Event) -> None: ...
    def show_events(self, entries: Sequence[Entry]) -> None: ...
    def alternatives_changed(self) -> None: ...
    def _replace_after(self, event_id: int, entries: Sequence[Entry]) -> None: ...
    def update_event(self, event: Event) -> None: ...
    def scroll_to_bottom(self) -> None: ...
    def _at_bottom(self) -> bool: ...
    def _held_index(self, event_id: int) -> int | None: ...
    def _drop(self, start: int, stop: int) -> None: ...
    def _sync_scroll_range(self) -> None: ...
    def _insert(self, position: int, event: Event) -> Item: ...
    def _insert_rows(self, position: int, rows: Sequence[Event]) -> list[Item]: ...
    def _rows(self, entries: Sequence[Entry]) -> list[Event]: ...
    def _members(self, group: Group) -> list[Event]: ...
    def _remove_rows(self, start: int, stop: int) -> None: ...
    def _row_start(self, row: Event) -> int: ...
    def _descends(self, row: Event, key: int) -> bool: ...
    def expand_group(self, key: int) -> bool: ...
    def collapse_group(self, key: int) -> bool: ...


class GroupsMixin:
    # -- rows ----------------------------------------------------------------------------
    def _rows(self: _View, entries: Sequence[Entry]) -> list[Event]:
        """The view's rows for display-list entries (expanded groups opened)."""
        # Comprehensions: this runs over every item of a 10,000-event conversation.
        groups = {e.key: e for e in entries if isinstance(e, Group)}
        rows: list[Event] = [
            header_event(e) if isinstance(e, Group) else e
            for e in entries
            if isinstance(e, Group) or shown(e)
        ]
        self._groups.update(groups)
        for key in [k for k in groups if k in self._expanded]:
            at = next(i for i, row in enumerate(rows) if row.id == -key)
            rows[at + 1 : at + 1] = self._members(groups[key])
        return rows

    def _members(self: _View, group: Group) -> list[Event]:
        """The rows of an expanded group: its items, drawn out of the context."""
        entries: Sequence[Entry] = group.events
        if group.kind == GroupKind.CLEARED and self.group_loader is not None:
            try:
                entries = self.group_loader(group)
            except IkguiError:
                log.warning("could not read the items of cleared group %s", group.key)
        rows = self._rows(entries)
        for row in rows:
            self._owner.setdefault(row.id, group.key)
        return rows

    def _insert(self: _View, position: int, event: Event) -> Item:
        writer = self._writer
        if event.kind == GROUP_KIND:
            group = self._groups[-event.id]
            item = insert_header(
                self.document(), position, group, group.key in self._expanded, writer
            )
        else:
            item = writer.insert(position, event)
            if event.id in self._owner:
                dim(self.document(), item, writer.colors, writer.font)
        self._by_id[event.id] = item
        return item

    def _insert_rows(self: _View, position: int, rows: Sequence[Event]) -> list[Item]:
        """Items for ``rows`` in order from ``position``, laid out once at the end."""
        with self._writer.batch() as items:
            for row in rows:
                item = self._insert(position, row)
                items.append(item)
                position = item.frame.lastPosition() + 1
        return items

    def _remove_rows(self: _View, start: int, stop: int) -> None:
        """Take rows ``start:stop`` out of the view (and the document, if loaded)."""
        low, high = max(start, self._first), min(stop, self._last)
        if low < high:
            self._drop(low - self._first, high - self._first)
        count = stop - start
        self._first -= min(count, max(0, self._first - start))
        self._last -= min(count, max(0, self._last - start))
        del self._held[start:stop]

    def _row_start(self: _View, row: Event) -> int:
        group = self._groups.get(-row.id) if row.kind == GROUP_KIND else None
        return group.start if group is not None else row.id

    def _descends(self: _View, row: Event, key: int) -> bool:
        owner = self._owner.get(row.id)
        while owner is not None:
            if owner == key:
                return True
            owner = self._owner.get(-owner)
        return False

    # -- what the domain changed --------------------------------------------------------
    def apply_change(self: _View, change: TranscriptChange) -> None:
        """Show a change of the transcript in place: items that left the context become
        one collapsed group where they were; new items are appended."""
        if change.reshown is not None:  # another version of a turn (SPEC §14)
            self._replace_after(change.replaced_after, change.reshown)
            return
        group = change.collapsed
        if group is not None:
            follow = self._at_bottom()
            value = self.verticalScrollBar().value()
            start = len(self._held)  # rows are in log order: look back from the end
            while start and self._row_start(self._held[start - 1]) >= group.start:
                start -= 1
            self._remove_rows(start, len(self._held))
            self._groups[group.key] = group
            self.append_event(header_event(group))
            if follow:
                self.scroll_to_bottom()
            else:
                self._sync_scroll_range()
                self.verticalScrollBar().setValue(value)
        for event in change.appended:
            self.append_event(event)

    def _replace_after(self: _View, event_id: int, entries: Sequence[Entry]) -> None:
        """Every row after the event ``event_id`` gives way to ``entries`` (another version
        of a turn): only those rows are laid out again, however long the transcript."""
        follow = self._at_bottom()
        value = self.verticalScrollBar().value()
        start = len(self._held)  # rows are in log order: look back from the end
        while start and self._row_start(self._held[start - 1]) > event_id:
            start -= 1
        self._remove_rows(start, len(self._held))
        self.alternatives_changed()
        for entry in entries:
            if isinstance(entry, Group):
                self._groups[entry.key] = entry
                self.append_event(header_event(entry))
            else:
                self.append_event(entry)
        if follow:
            self.scroll_to_bottom()
        else:
            self._sync_scroll_range()
            self.verticalScrollBar().setValue(value)

    # -- showing and hiding -------------------------------------------------------------
    def toggle_group(self: _View, key: int) -> bool:
        if key in self._expanded:
            return self.collapse_group(key)
        return self.expand_group(key)

    def expand_group(self: _View, key: int) -> bool:
        """Show a group's items under its line (the view stays where it is)."""
        index = self._held_index(-key)
        if index is None or key in self._expanded:
            return False
        self._expanded.add(key)
        members = self._members(self._groups[key])
        self._held[index + 1 : index + 1] = members
        count = len(members)
        if index < self._first:
            self._first += count
            self._last += count
        elif index < self._last:
            # The rows first, with no page loading meanwhile (the held rows already
            # include the members while the loaded ones do not yet), then the line.
            self._loading = True
            try:
                header = self._by_id[-key]
                position = self._items.index(header) + 1
                if count > PAGE_SIZE:  # the rest comes back on scrolling down
                    self._drop(position, len(self._items))
                    self._last = index + 1
                    count = PAGE_SIZE
                start = header.frame.lastPosition() + 1
                self._items[position:position] = self._insert_rows(
                    start, self._held[index + 1 : index + 1 + count]
                )
                self._last += count
            finally:
                self._loading = False
            self.update_event(self._held[index])  # "Hide"
            self._sync_scroll_range()
        return True

    def collapse_group(self: _View, key: int) -> bool:
        index = self._held_index(-key)
        if index is None or key not in self._expanded:
            return False
        self._expanded.discard(key)
        stop = index + 1
        while stop < len(self._held) and self._descends(self._held[stop], key):
            stop += 1
        self._remove_rows(index + 1, stop)
        if self._first <= index < self._last:
            self.update_event(self._held[index])  # "Show"
        self._sync_scroll_range()
        return True

    def reveal(self: _View, event_id: int) -> bool:
        """Expand the groups that hold ``event_id`` (a search hit on a rewound or cleared
        message); whether it is shown now."""
        for _ in range(16):  # (clears inside cleared groups: one level each)
            if self._held_index(event_id) is not None:
                return True
            for row in list(self._held):
                group = self._groups.get(-row.id) if row.kind == GROUP_KIND else None
                if group is None or group.key in self._expanded:
                    continue
                cleared = group.kind == GroupKind.CLEARED and event_id < group.key
                if group.holds(event_id) or cleared:
                    self.expand_group(group.key)
                    break
            else:
                return False
        return self._held_index(event_id) is not None
