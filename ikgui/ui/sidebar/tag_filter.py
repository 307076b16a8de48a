"""The sidebar's tag filter: a box listing the tags with their counts (choosing one adds
it to the filter) and the chosen tags as removable chips above the list.

The filter matches conversations that have *every* chosen tag. The box's counts are
those of the rows the filter shows (so they narrow as tags are added); each chip shows
how many conversations carry its tag, and the row of chips how many match them all.
Tags are shown as plain text (``ui.plain.line``), never rich text.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from ikgui.domain.ports import Store
from ikgui.ui.icons import set_icon
from ikgui.ui.plain import action_text, line, make_plain, tooltip
from ikgui.ui.sidebar.chips import chip_label
from ikgui.ui.sidebar.parts import name_widget
from ikgui.ui.sidebar.tag_chips import FlowLayout, chip_style

#: The most tags the "Filter by tag" box lists (the most used); a row's chip filters by
#: any tag, and Manage tags lists them all.
BOX_TAGS = 300


def more_text(count: int) -> str:
    """The box's last entry when it cannot list every tag."""
    return f"… {count:,} more tags: click a tag on a row to filter by it"


def count_label(count: int) -> str:
    return "1 conversation" if count == 1 else f"{count} conversations"


class TagFilterBox(QComboBox):
    """ "Filter by tag" and each tag not chosen yet with its count; ``itemData`` is the
    tag. Choosing a tag emits ``tag_chosen`` and puts the box back on its prompt."""

    PROMPT = "Filter by tag"
    tag_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name_widget(self, "tagFilter", "Filter by tag")
        self.setToolTip("Show only conversations with this tag (choose more to narrow)")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(8)
        self._entries: list[tuple[str, int]] = []
        self._known: set[str] = set()
        self._shown_items = 1
        self.addItem(self.PROMPT, None)
        self.currentIndexChanged.connect(self._on_chosen)

    def knows(self, tags: Collection[str]) -> bool:
        """Whether every tag of ``tags`` was in use at the last :meth:`set_counts`."""
        return all(t in self._known for t in tags)

    def set_counts(self, counts: Sequence[tuple[str, int]], chosen: Collection[str]) -> None:
        """List the tags of ``counts`` that are not ``chosen``, without emitting: the
        ``BOX_TAGS`` most used (by name) and a last entry counting the others, so the box
        costs the same with 100,000 tags in use as with 300."""
        self._known = {t for t, _ in counts} | set(chosen)
        entries = [(t, n) for t, n in counts if t not in chosen]
        if entries == self._entries and self.count() == self._shown_items:
            return  # unchanged: leave the box (and its open popup) alone
        self._entries = entries
        shown = entries
        if len(entries) > BOX_TAGS:
            most = heapq.nsmallest(BOX_TAGS, entries, key=lambda e: (-e[1], e[0]))
            shown = sorted(most)
        self.blockSignals(True)
        self.clear()
        self.addItem(self.PROMPT, None)
        for tag, count in shown:
            self.addItem(f"#{chip_label(tag)}  ({count})", tag)
        if len(shown) < len(entries):
            self.addItem(more_text(len(entries) - len(shown)), None)
            model = self.model()
            if isinstance(model, QStandardItemModel) and (item := model.item(self.count() - 1)):
                item.setEnabled(False)
        self._shown_items = self.count()
        self.setCurrentIndex(0)
        self.blockSignals(False)

    def _on_chosen(self, row: int) -> None:
        tag = self.itemData(row)
        if isinstance(tag, str):
            self.blockSignals(True)
            self.setCurrentIndex(0)
            self.blockSignals(False)
            self.tag_chosen.emit(tag)


class TagFilterChips(QWidget):
    """The chosen tags as chips (``#work 12 ✕``: click to remove) and a Clear chip;
    hidden while no tag is chosen."""

    tag_removed = Signal(str)
    cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name_widget(self, "tagFilterChips", "Tag filters")
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._flow = FlowLayout(self)
        self.chips: dict[str, QToolButton] = {}
        self.summary = ""
        self._shown: tuple[list[tuple[str, int]], int] = ([], 0)
        self._restyle()
        self.hide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        self.setStyleSheet(chip_style(self.palette(), "filterChip", "clearTagFilter"))

    def set_tags(self, counts: Sequence[tuple[str, int]], matching: int) -> None:
        """Show one chip per ``(tag, count)``; ``matching``: conversations with them all."""
        if (list(counts), matching) == self._shown:
            return  # unchanged: keep the buttons (and the keyboard focus on one)
        self._shown = (list(counts), matching)
        while (item := self._flow.takeAt(0)) is not None:
            widget = item.widget()
            if widget is not None:
                widget.deleteLater()
        self.chips = {}
        for tag, count in counts:
            chip = self._chip(
                "filterChip", f"#{line(tag)}  {count}  ✕", f"Remove the filter #{line(tag)}"
            )
            chip.setToolTip(tooltip(f"{count_label(count)} tagged “{tag}”. Click to remove."))
            chip.clicked.connect(lambda _=False, t=tag: self.tag_removed.emit(t))
            self.chips[tag] = chip
        self.summary = f"{count_label(matching)} with all" if len(counts) > 1 else ""
        if counts:
            clear = self._chip("clearTagFilter", "Clear", "Clear the tag filters")
            clear.setToolTip(tooltip("Show every conversation again"))
            clear.clicked.connect(self.cleared)
        if self.summary:
            label = make_plain(QLabel(self.summary, self))
            label.setObjectName("tagFilterSummary")
            self._flow.addWidget(label)
        self.setVisible(bool(counts))
        self.updateGeometry()

    def _chip(self, name: str, text: str, spoken: str) -> QToolButton:
        chip = QToolButton(self)
        name_widget(chip, name, spoken)
        chip.setText(action_text(text))
        chip.setAutoRaise(False)
        chip.setCursor(Qt.CursorShape.PointingHandCursor)
        self._flow.addWidget(chip)
        return chip


class TagFilterControl(QObject):
    """The chosen tags, the box that adds one and the chips that remove one; ``changed``
    carries the new (sorted) choice. :meth:`refresh` re-reads the counts."""

    changed = Signal(tuple)

    def __init__(self, store: Store, parent: QWidget) -> None:
        super().__init__(parent)
        self._store = store
        self.chosen: tuple[str, ...] = ()
        self.box = TagFilterBox(parent)
        self.chips = TagFilterChips(parent)
        self.manage_button = QToolButton(parent)
        name_widget(self.manage_button, "manageTagsButton", "Manage tags")
        set_icon(self.manage_button, "tags")
        self.manage_button.setToolTip("Manage tags: rename, merge or delete a tag everywhere")
        self.box.tag_chosen.connect(self.add)
        self.chips.tag_removed.connect(self.remove)
        self.chips.cleared.connect(lambda: self.choose(()))

    def add(self, tag: str) -> None:
        self.choose((*self.chosen, tag))

    def remove(self, tag: str) -> None:
        self.choose(tuple(t for t in self.chosen if t != tag))

    def choose(self, tags: Sequence[str]) -> None:
        chosen = tuple(sorted(set(tags)))
        if chosen != self.chosen:
            self.chosen = chosen
            self.changed.emit(chosen)

    def refresh(self, trashed: bool, folder: str = "") -> None:
        """Counts among the rows shown (the box: within the chosen ``folder`` too, its
        subtree) and of each chosen tag (the chips)."""
        scope = tuple(sorted({*self.chosen, folder})) if folder else self.chosen
        within = self._store.tag_counts(scope, trashed=trashed)
        self.box.set_counts(within, self.chosen)
        if not self.chosen:
            self.chips.set_tags([], 0)
            return
        total = dict(self._store.tag_counts(trashed=trashed))
        matching = dict(within).get(self.chosen[0], 0)
        self.chips.set_tags([(t, total.get(t, 0)) for t in self.chosen], matching)
