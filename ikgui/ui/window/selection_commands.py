"""What the sidebar asks for several rows at once (tag, untag, pin, export, Trash) and for a
tag across every conversation (rename, merge, delete from the Manage tags dialog), run
against the session's library. Each is one transaction; the sidebar is refreshed once
after it, and an error becomes one visible line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog

from ikgui.ui.plain import line as safe_line
from ikgui.ui.window.export_file import documents

if TYPE_CHECKING:
    from ikgui.ui.window.commands import WindowCommands


def _noun(count: int) -> str:
    return "conversation" if count == 1 else "conversations"


class SelectionCommands:
    def __init__(self, commands: WindowCommands) -> None:
        self.commands = commands
        self.window = commands.window
        self.library = commands.session.library

    def connect(self) -> None:
        bar = self.window.sidebar
        bar.retag_many_requested.connect(self.retag_many)
        bar.trash_many_requested.connect(self.trash_many)
        bar.export_many_requested.connect(self.export_many)
        bar.tag_rename_requested.connect(self.rename_tag)
        bar.tag_delete_requested.connect(self.delete_tag)
        bar.pin_requested.connect(self.pin_many)
        bar.unpin_requested.connect(self.unpin_many)
        bar.pinning = True

    def several(self) -> list[str]:
        """The ids of the selected rows when there are several (the toolbar's Tags and
        Delete then act on all of them), else nothing."""
        chosen = self.window.sidebar.selected_conversations()
        return [c.id for c in chosen if c.trashed_at is None] if len(chosen) > 1 else []

    def edit_tags(self, current: str) -> None:
        ids = self.several()
        if ids:
            self.window.sidebar.add_tag_to(ids)
        else:
            self.window.sidebar.edit_tags(current)

    def trash(self, current: str) -> None:
        ids = self.several()
        if ids:
            self.trash_many(ids)
        else:
            self.commands.trash(current)

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(safe_line(text), 6000)

    def retag_many(self, conv_ids: list[str], changes: list[str]) -> None:
        if self.commands.guard(self.library.retag_many, conv_ids, changes) is not None:
            self.window.sidebar.reload()
            self._status(f"Tags changed on {len(conv_ids)} {_noun(len(conv_ids))}")

    def pin_many(self, conv_ids: list[str]) -> None:
        """Pin (one transaction); pinned rows move to the top, under "Pinned"."""
        if self.commands.guard(self.library.pin, conv_ids) is not None:
            self.window.sidebar.reload()
            self._status(f"Pinned {len(conv_ids)} {_noun(len(conv_ids))}")

    def unpin_many(self, conv_ids: list[str]) -> None:
        if self.commands.guard(self.library.unpin, conv_ids) is not None:
            self.window.sidebar.reload()
            self._status(f"Unpinned {len(conv_ids)} {_noun(len(conv_ids))}")

    def trash_many(self, conv_ids: list[str]) -> None:
        window, session = self.window, self.commands.session
        if self.commands.guard(self.library.trash_many, conv_ids) is None:
            return
        window.sidebar.reload()
        if window.current_id in conv_ids:
            nxt = window.store.last_conversation()
            if nxt is not None:
                session.open(nxt.id)
            else:
                session.new_conversation(session.settings.default_agent)
        self._status(f"Moved {len(conv_ids)} {_noun(len(conv_ids))} to the Trash")

    def export_many(self, conv_ids: list[str]) -> None:
        """Each as ``<id>.json`` in a folder the user picks."""
        start = str(documents())
        folder = QFileDialog.getExistingDirectory(self.window, "Export conversations to", start)
        if folder:
            self.export_to(conv_ids, Path(folder))

    def export_to(self, conv_ids: list[str], folder: Path) -> list[Path]:
        written: list[Path] = []
        for conv_id in conv_ids:
            path = self.commands.guard(
                self.library.export, conv_id, "json", folder / f"{conv_id}.json"
            )
            if path is None:
                break
            written.append(path)
        if written:
            self._status(f"Exported {len(written)} {_noun(len(written))} to {folder}")
        return written

    def rename_tag(self, old: str, new: str) -> None:
        changed = self.commands.guard(self.library.rename_tag, old, new)
        if changed is not None:
            self._refresh(old, new)
            self._status(f"Tag “{old}” is now “{new}” on {changed} {_noun(changed)}")

    def delete_tag(self, tag: str) -> None:
        changed = self.commands.guard(self.library.delete_tag, tag)
        if changed is not None:
            self._refresh(tag, None)
            self._status(f"Tag “{tag}” removed from {changed} {_noun(changed)}")

    def _refresh(self, old: str, new: str | None) -> None:
        """Reload the sidebar; a filter on the old tag follows it (or drops it)."""
        bar = self.window.sidebar
        chosen = bar.tag_filters.chosen
        if old in chosen:
            kept = [t for t in chosen if t != old] + ([new] if new is not None else [])
            bar.tag_filters.choose(kept)
        bar.reload()
