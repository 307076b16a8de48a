"""What the sidebar asks for several rows at once (tag, untag, pin, export, Trash) and for a
tag across every conversation (rename, merge, delete from the Manage tags dialog), run
against the session's library. Each is one transaction; the sidebar is refreshed once
after it, and an error becomes one visible line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ikgui.ui.plain import line as safe_line
from ikgui.ui.questions import ask_folder
from ikgui.ui.window.export_file import documents

if TYPE_CHECKING:
    from ikgui.domain.library.conversations import TagEdit
    from ikgui.ui.window.commands import WindowCommands


def _noun(count: int) -> str:
    return "conversation" if count == 1 else "conversations"


class SelectionCommands:
    def __init__(self, commands: WindowCommands) -> None:
        self.commands = commands
        self.library = commands.session.library
        #: The renames, merges and deletes of tags done here, the last one last: Undo in
        #: Manage tags (Ctrl+Z) reverses them one by one.
        self.tag_edits: list[TagEdit] = []

    def connect(self) -> None:
        bar = self.commands.sidebar
        bar.retag_many_requested.connect(self.retag_many)
        bar.trash_many_requested.connect(self.trash_many)
        bar.export_many_requested.connect(self.export_many)
        bar.tag_rename_requested.connect(self.rename_tag)
        bar.tag_delete_requested.connect(self.delete_tag)
        bar.tag_undo_requested.connect(self.undo_tag_edit)
        bar.pin_requested.connect(self.pin_many)
        bar.unpin_requested.connect(self.unpin_many)
        bar.pinning = True

    def several(self) -> list[str]:
        """The ids of the selected rows when there are several (the toolbar's Tags and
        Delete then act on all of them), else nothing."""
        chosen = self.commands.sidebar.selected_conversations()
        return [c.id for c in chosen if c.trashed_at is None] if len(chosen) > 1 else []

    def edit_tags(self, current: str) -> None:
        ids = self.several()
        if ids:
            self.commands.sidebar.add_tag_to(ids)
        else:
            self.commands.sidebar.edit_tags(current)

    def trash(self, current: str) -> None:
        ids = self.several()
        if ids:
            self.trash_many(ids)
        else:
            self.commands.trash(current)

    def _status(self, text: str) -> None:
        self.commands.feedback.status(safe_line(text), 6000)

    def retag_many(self, conv_ids: list[str], changes: list[str]) -> None:
        if self.commands.runner.guard(self.library.retag_many, conv_ids, changes) is not None:
            self.commands.sidebar.reload()
            self._status(f"Tags changed on {len(conv_ids)} {_noun(len(conv_ids))}")

    def pin_many(self, conv_ids: list[str]) -> None:
        """Pin (one transaction); pinned rows move to the top, under "Pinned"."""
        if self.commands.runner.guard(self.library.pin, conv_ids) is not None:
            self.commands.sidebar.reload()
            self._status(f"Pinned {len(conv_ids)} {_noun(len(conv_ids))}")

    def unpin_many(self, conv_ids: list[str]) -> None:
        if self.commands.runner.guard(self.library.unpin, conv_ids) is not None:
            self.commands.sidebar.reload()
            self._status(f"Unpinned {len(conv_ids)} {_noun(len(conv_ids))}")

    def trash_many(self, conv_ids: list[str]) -> None:
        session = self.commands.session
        if self.commands.runner.guard(self.library.trash_many, conv_ids) is None:
            return
        self.commands.sidebar.reload()
        if session.conversation.id in conv_ids:
            nxt = session.store.last_conversation()
            if nxt is not None:
                session.open(nxt.id)
            else:
                session.new_conversation(session.settings.default_agent)
        self._status(f"Moved {len(conv_ids)} {_noun(len(conv_ids))} to the Trash")

    def export_many(self, conv_ids: list[str]) -> None:
        """Each as ``<id>.json`` in a folder the user picks."""
        ask_folder(
            self.commands.owner,
            "Export conversations to",
            documents(),
            lambda folder: self.export_to(conv_ids, folder),
        )

    def export_to(self, conv_ids: list[str], folder: Path) -> list[Path]:
        written: list[Path] = []
        for conv_id in conv_ids:
            path = self.commands.runner.guard(
                self.library.export, conv_id, "json", folder / f"{conv_id}.json"
            )
            if path is None:
                break
            written.append(path)
        if written:
            self._status(f"Exported {len(written)} {_noun(len(written))} to {folder}")
        return written

    def rename_tag(self, old: str, new: str) -> None:
        edit = self.commands.runner.guard(self.library.rename_tag, old, new)
        if edit is not None:
            self._done(edit)
            verb = "merged into" if edit.merging else "is now"
            self._status(f"Tag “{old}” {verb} “{new}” on {edit.count} {_noun(edit.count)}")

    def delete_tag(self, tag: str) -> None:
        edit = self.commands.runner.guard(self.library.delete_tag, tag)
        if edit is not None:
            self._done(edit)
            self._status(f"Tag “{tag}” removed from {edit.count} {_noun(edit.count)}")

    def _done(self, edit: TagEdit) -> None:
        self.tag_edits.append(edit)
        self._refresh(edit.old, edit.new)
        self.commands.sidebar.set_tag_undo(edit.describe())

    def undo_tag_edit(self) -> None:
        """Reverse the last rename, merge or delete of a tag (exactly: only the
        conversations it changed get their tag back)."""
        if not self.tag_edits:
            return
        edit = self.tag_edits[-1]
        if self.commands.runner.guard(self.library.undo_tag_edit, edit) is None:
            return
        self.tag_edits.pop()
        bar = self.commands.sidebar
        if edit.new is not None and not edit.merging:
            self._refresh(edit.new, edit.old)  # a filter on the new name goes back
        else:
            bar.reload()
        bar.set_tag_undo(self.tag_edits[-1].describe() if self.tag_edits else None)
        if bar.manage_dialog is not None:
            bar.manage_dialog.select(edit.old)
        self._status(f"Undone: the {edit.describe()}")

    def _refresh(self, old: str, new: str | None) -> None:
        """Reload the sidebar; a filter on the old tag follows it (or drops it)."""
        bar = self.commands.sidebar
        chosen = bar.tag_filters.chosen
        if old in chosen:
            kept = [t for t in chosen if t != old] + ([new] if new is not None else [])
            bar.tag_filters.choose(kept)
        bar.reload()
