"""The transcript's item menus and links (a mixin of
:class:`ikgui.ui.transcript.scrollback.ScrollbackView`): each item's context menu (Copy,
Fork from here, Edit and resend, Retry), which item a point shows, and what a link opens
(a viewer of the full reply or a table; a safe web link in the browser; nothing else)."""

from __future__ import annotations

from functools import partial
from typing import Any, Protocol, cast

from PySide6.QtCore import QPoint, QUrl
from PySide6.QtGui import (
    QCursor,
    QDesktopServices,
    QGuiApplication,
    QTextCursor,
    QTextDocument,
    QTextFrame,
)
from PySide6.QtWidgets import QMenu, QWidget

from ikgui.domain.attachments import is_image, listed
from ikgui.domain.events import Event, Kind
from ikgui.domain.state.alternatives import Alternatives
from ikgui.ui.plain import action_text
from ikgui.ui.transcript.body import FULL_SCHEME, internal_link
from ikgui.ui.transcript.code_blocks import COPY_SCHEME, code_source, copy_link, show_copied
from ikgui.ui.transcript.command_output import expand, expand_link
from ikgui.ui.transcript.files import MessageFiles, file_link
from ikgui.ui.transcript.item_actions import ItemActions
from ikgui.ui.transcript.items import EVENT_ID_PROPERTY, copy_text
from ikgui.ui.transcript.markdown import is_safe_link
from ikgui.ui.transcript.render import Item, ItemWriter
from ikgui.ui.transcript.render_budget import table_at


class _View(Protocol):
    _by_id: dict[int, Item]
    _writer: ItemWriter
    fork_requested: Any
    edit_resend_requested: Any
    retry_requested: Any
    alternative_requested: Any
    prompt_restore_requested: Any
    item_actions: ItemActions
    conversation_link: Any
    files: MessageFiles

    def update_event(self, event: Event) -> None: ...
    def alternatives(self) -> dict[int, Alternatives]: ...
    def textCursor(self) -> QTextCursor: ...
    def document(self) -> QTextDocument: ...
    def cursorForPosition(self, pos: QPoint) -> QTextCursor: ...
    def copy(self) -> None: ...
    def open_viewer(self, scheme: str, event_id: int, start: int = 0) -> QWidget | None: ...
    def open_file(self, event_id: int, sha256: str) -> QWidget | None: ...
    def _copy_item(self, event_id: int) -> None: ...
    def copy_code(self, event_id: int, number: int) -> None: ...
    def _event(self, event_id: int) -> Event: ...
    def start_edit(self, event_id: int) -> QWidget | None: ...
    def event_id_of(self, frame: QTextFrame | None) -> int | None: ...


class MenuMixin:
    def menu_for(self: _View, event_id: int) -> QMenu:
        """The item's context menu (Copy, Fork from here, Edit and resend, Retry)."""
        item = self._by_id[event_id]
        event = item.event
        menu = QMenu(cast(QWidget, self))
        if self.textCursor().hasSelection():
            menu.addAction("Copy selection", self.copy).setObjectName("actionCopySelection")
        menu.addAction("Copy", lambda: self._copy_item(event_id)).setObjectName("actionCopyItem")
        menu.addSeparator()
        fork = menu.addAction("Fork from here", lambda: self.fork_requested.emit(event_id))
        fork.setObjectName("actionForkHere")
        fork.setEnabled(item.parts is None and not event.data.get("streaming"))
        if event.kind == Kind.USER:
            edit = menu.addAction("Edit and resend", lambda: self.start_edit(event_id))
            edit.setObjectName("actionEditResend")
        if event.kind == Kind.ERROR or (
            event.kind == Kind.ASSISTANT and not event.data.get("streaming")
        ):
            retry = menu.addAction("Retry", lambda: self.retry_requested.emit(event_id))
            retry.setObjectName("actionRetry")
        versions = self.alternatives().get(event_id)
        if versions is not None:  # (SPEC §14: as the item's ‹ 2/3 ›, from the keyboard too)
            menu.addSeparator()
            for name, text, index in (
                ("actionPreviousVersion", "Previous version", versions.index - 1),
                ("actionNextVersion", "Next version", versions.index + 1),
            ):
                step = menu.addAction(
                    f"{text} ({versions.accessible})",
                    partial(self.alternative_requested.emit, versions, index),
                )
                step.setObjectName(name)
                step.setEnabled(0 <= index < versions.count)
        files = listed(event.data) if event.kind == Kind.USER else []
        if files:  # (by keyboard too: the menu key reaches what a click on a file does)
            menu.addSeparator()
        for attachment in files:
            verb = "View" if is_image(attachment.mime) else "Save or open"
            opened = menu.addAction(
                action_text(f"{verb} {attachment.name}"), partial(self.files.open, attachment)
            )
            opened.setObjectName("actionOpenFile")
        return menu

    def start_edit(self: _View, event_id: int) -> QWidget | None:
        """Edit and resend: the message turns into an editor, in place."""
        return self.item_actions.edits.start(event_id)

    def event_id_at(self: _View, pos: QPoint) -> int | None:
        """The event shown at a viewport position (``None`` between items)."""
        return self.event_id_of(self.cursorForPosition(pos).currentFrame())

    def event_id_of(self: _View, frame: QTextFrame | None) -> int | None:
        """The event a frame (or a frame inside it) shows, if it is loaded."""
        while frame is not None:
            event_id = frame.frameFormat().property(EVENT_ID_PROPERTY)
            if isinstance(event_id, int) and event_id in self._by_id:
                return event_id
            frame = frame.parentFrame()
        return None

    def _open_link(self: _View, url: QUrl) -> None:
        from ikgui.ui.transcript.branch_notices import conv_link
        from ikgui.ui.transcript.prompt_cards import parse_link as prompt_link

        link = internal_link(url)
        expanded = expand_link(url)
        code = copy_link(url)
        card = prompt_link(url)
        if card is not None:  # a prompt card's Restore, Show changes, Show all, Hide
            action, event_id = card
            item = self._by_id.get(event_id)
            prompt = item.event.data.get("prompt") if item is not None else None
            if action == "restore" and isinstance(prompt, str):
                self.prompt_restore_requested.emit(event_id, prompt)
            elif item is not None and action != "restore":
                cards = self._writer
                if action == "expand":
                    cards.expanded_cards.add(event_id)
                    cards.folded_cards.discard(event_id)
                elif action == "all":
                    cards.whole_cards.add(event_id)
                else:
                    cards.expanded_cards.discard(event_id)
                    cards.whole_cards.discard(event_id)
                    cards.folded_cards.add(event_id)
                self.update_event(item.event)
        elif expanded is not None:  # a command's "Show all": the rest, in place
            if expanded in self._by_id:
                self._writer.expanded_cards.add(expanded)
                expand(self._writer, self._by_id[expanded])
        elif link is not None:
            self.open_viewer(*link)
        elif code is not None:
            self.copy_code(*code)
        elif (conv := conv_link(url)) is not None:  # a fork or close notice's title
            self.conversation_link.emit(*conv)
        elif (file := file_link(url)) is not None:  # a message's file: view, save, open
            self.open_file(*file)
        elif is_safe_link(url):
            QDesktopServices.openUrl(url)

    def open_viewer(self: _View, scheme: str, event_id: int, start: int = 0) -> QWidget | None:
        """ "Open full reply" (``ikgui-full``) or "Show as table" (``ikgui-table``, the
        table at ``start`` of the item's text): a read-only window over the stored text."""
        item = self._by_id.get(event_id)
        if item is None:
            return None
        text = copy_text(item.event)
        title = f"{item.event.kind.replace('_', ' ').capitalize()} — full text"
        from ikgui.ui.transcript.reply_viewer import FullTextDialog, TableDialog

        viewer: QWidget
        if scheme == FULL_SCHEME:
            viewer = FullTextDialog(text, title, cast(QWidget, self))
        else:
            viewer = TableDialog(table_at(text, start), cast(QWidget, self))
        viewer.show()
        return viewer

    def open_file(self: _View, event_id: int, sha256: str) -> QWidget | None:
        """A message's file clicked: an image in the viewer, another file's menu."""
        item = self._by_id.get(event_id)
        if item is None:
            return None
        for attachment in listed(item.event.data):
            if attachment.sha256 == sha256:
                return self.files.open(attachment, QCursor.pos())
        return None

    def copy_code(self: _View, event_id: int, number: int) -> None:
        """A code block's Copy link: that block's exact source to the clipboard."""
        item = self._by_id.get(event_id)
        if item is not None:
            text = item.stream if item.stream is not None else copy_text(item.event)
            source = code_source(text, number)
            if source is not None:
                QGuiApplication.clipboard().setText(source)
                show_copied(self.document(), f"{COPY_SCHEME}:{event_id}/{number}")

    def _copy_item(self: _View, event_id: int) -> None:
        item = self._by_id.get(event_id)
        if item is not None:
            text = item.stream if item.stream is not None else copy_text(item.event)
            QGuiApplication.clipboard().setText(text)
