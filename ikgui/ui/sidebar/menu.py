"""The sidebar's context menus: one conversation's, and the selection's when several rows
are selected (tag, untag, pin or unpin, export, Trash all of them). Pin entries appear
once the window says pins can be stored (``bar.pinning``).

Menus only ask: each entry emits one of the sidebar's ``..._requested`` signals (or opens
one of its editors); the window carries it out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMenu

from ikgui.domain.events import STATUS_KILLED, Conversation
from ikgui.ui.icons import set_icon
from ikgui.ui.plain import action_text
from ikgui.ui.sidebar.chips import chip_label

#: The most tags "Remove tag from N" lists (a menu entry each).
MENU_TAGS = 40

if TYPE_CHECKING:
    from ikgui.ui.sidebar.panel import ConversationSidebar


class _Add(Protocol):
    def __call__(
        self, name: str, text: str, icon_name: str, slot: Callable[[], None], key: str = ""
    ) -> None: ...


def _adder(menu: QMenu) -> _Add:
    """Adds an entry: its title (escaped: it may hold a title or a tag) and, apart, its
    key, which the menu shows in its own column; never one string with a tab, which the
    escaping would show as ``\\x09``."""

    def add(name: str, text: str, icon_name: str, slot: Callable[[], None], key: str = "") -> None:
        action = menu.addAction(action_text(text))
        action.setObjectName(name)
        if key:
            action.setShortcut(QKeySequence(key))
        if icon_name:
            set_icon(action, icon_name)
        action.triggered.connect(slot)

    return add


def conversation_menu(bar: ConversationSidebar, conv: Conversation) -> QMenu:
    """The menu of one row."""
    cid = conv.id
    menu = QMenu(bar)
    menu.setObjectName("conversationMenu")
    add = _adder(menu)
    if conv.trashed_at is not None:
        add("restoreAction", "Restore", "restore", lambda: bar.restore_requested.emit([cid]))
        add("exportAction", "Export…", "export", lambda: bar.export_requested.emit(cid))
        add("copyIdAction", f"Copy id ({cid})", "", lambda: bar.copy_id(cid))
        return menu
    add("renameAction", "Rename", "rename", lambda: bar.start_rename(cid), "F2")
    add("tagsAction", "Tags…", "tags", lambda: bar.edit_tags(cid))
    if bar.pinning and conv.pinned:
        add("unpinAction", "Unpin", "pin", lambda: bar.unpin_requested.emit([cid]), "Ctrl+P")
    elif bar.pinning:
        add("pinAction", "Pin", "pin", lambda: bar.pin_requested.emit([cid]), "Ctrl+P")
    add("forkAction", "Fork", "fork", lambda: bar.fork_requested.emit(cid))
    add("exportAction", "Export…", "export", lambda: bar.export_requested.emit(cid))
    if conv.parent is not None and conv.status != STATUS_KILLED:
        add("closeAction", "Close branch", "stop", lambda: bar.close_requested.emit(cid))
    if conv.status == STATUS_KILLED:
        add("reopenAction", "Reopen branch", "restore", lambda: bar.reopen_requested.emit(cid))
    add("copyIdAction", f"Copy id ({cid})", "", lambda: bar.copy_id(cid))
    menu.addSeparator()
    add("trashAction", "Move to Trash", "trash", lambda: bar.trash_requested.emit(cid), "Del")
    return menu


def selection_menu(bar: ConversationSidebar, convs: Sequence[Conversation]) -> QMenu:
    """The menu of several selected rows: every entry applies to all of them."""
    ids = [c.id for c in convs]
    n = len(ids)
    menu = QMenu(bar)
    menu.setObjectName("selectionMenu")
    add = _adder(menu)
    if all(c.trashed_at is not None for c in convs):
        add("restoreAction", f"Restore {n}", "restore", lambda: bar.restore_many(ids))
        return menu
    add("addTagAction", f"Add tag to {n}…", "tags", lambda: bar.add_tag_to(ids))
    used = sorted({t for c in convs for t in c.tags})
    if used:
        untag = menu.addMenu(action_text(f"Remove tag from {n}"))
        untag.setObjectName("removeTagMenu")
        for tag in used[:MENU_TAGS]:
            action = untag.addAction(action_text(f"#{chip_label(tag)}"))
            action.setObjectName(f"removeTag:{tag}")
            action.triggered.connect(
                lambda _=False, t=tag: bar.retag_many_requested.emit(ids, [f"-{t}"])
            )
        if len(used) > MENU_TAGS:
            rest = untag.addAction(f"… {len(used) - MENU_TAGS:,} more tags")
            rest.setEnabled(False)
    if bar.pinning and all(c.pinned for c in convs):
        add("unpinAction", f"Unpin {n}", "pin", lambda: bar.unpin_requested.emit(ids), "Ctrl+P")
    elif bar.pinning:
        add("pinAction", f"Pin {n}", "pin", lambda: bar.pin_requested.emit(ids), "Ctrl+P")
    add("exportAction", f"Export {n}…", "export", lambda: bar.export_many_requested.emit(ids))
    menu.addSeparator()
    add("trashAction", f"Move {n} to Trash", "trash", lambda: bar.trash_many(ids), "Del")
    return menu
