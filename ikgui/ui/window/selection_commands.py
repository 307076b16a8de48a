"""What the sidebar asks for several rows at once (tag, untag, pin, export, Trash) and for a
tag across every conversation (rename, merge, delete from the Manage tags dialog), run
against the session's library. Each is one transaction; the sidebar is refreshed once
after it, and an error becomes one visible line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from ikgui.domain.attachments import StoredFile
from ikgui.domain.errors import UserError
from ikgui.domain.folders import Project
from ikgui.domain.library import folders
from ikgui.domain.library.folders import FolderEdit
from ikgui.ui.plain import line as safe_line
from ikgui.ui.questions import ask_folder
from ikgui.ui.settings.project import ProjectSettingsDialog
from ikgui.ui.window.export_file import documents

if TYPE_CHECKING:
    from ikgui.domain.library.conversations import TagEdit
    from ikgui.ui.window.commands import WindowCommands


def _no_files(path: str) -> StoredFile:
    raise UserError(f"Cannot read {path} here")


def _noun(count: int) -> str:
    return "conversation" if count == 1 else "conversations"


class SelectionCommands:
    def __init__(self, commands: WindowCommands) -> None:
        self.commands = commands
        self.library = commands.session.library
        #: The renames, merges and deletes of tags done here, the last one last: Undo in
        #: Manage tags (Ctrl+Z) reverses them one by one.
        self.tag_edits: list[TagEdit | FolderEdit] = []
        #: Reads a file for a project's settings page (the window's, set at assembly).
        self.read_file: Callable[[str], StoredFile] = _no_files
        #: The open project settings page, if any.
        self.project_page: ProjectSettingsDialog | None = None

    def connect(self) -> None:
        bar = self.commands.sidebar
        bar.retag_many_requested.connect(self.retag_many)
        bar.trash_many_requested.connect(self.trash_many)
        bar.export_many_requested.connect(self.export_many)
        bar.tag_rename_requested.connect(self.rename_tag)
        bar.tag_delete_requested.connect(self.delete_tag)
        bar.tag_undo_requested.connect(self.undo_tag_edit)
        bar.folder_rename_requested.connect(self.rename_folder)
        bar.folder_delete_requested.connect(self.delete_folder)
        bar.smart_save_requested.connect(self.save_smart_folder)
        bar.smart_rename_requested.connect(self.rename_smart_folder)
        bar.smart_delete_requested.connect(self.delete_smart_folder)
        bar.folder_settings_requested.connect(self.open_project)
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

    # -- folders and smart folders (SPEC §15) -------------------------------------------
    def rename_folder(self, old: str, new: str) -> None:
        """Rename or move a folder with everything under it (Undo gives it back)."""
        edit = self.commands.runner.guard(self.library.rename_folder, old, new)
        if edit is not None:
            self._folder_done(edit, old, edit.new)
            self._status(f"Folder “{old}” is now “{edit.new}” ({edit.count} {_noun(edit.count)})")

    def delete_folder(self, path: str) -> None:
        """Take a folder's tags off its conversations, never the conversations."""
        edit = self.commands.runner.guard(self.library.delete_folder, path)
        if edit is not None:
            self._folder_done(edit, path, None)
            self._status(
                f"Folder “{path}” deleted; its {edit.count} {_noun(edit.count)} kept "
                "(Undo: Ctrl+Z in the folders)"
            )

    def _folder_done(self, edit: FolderEdit, old: str, new: str | None) -> None:
        self.tag_edits.append(edit)
        bar = self.commands.sidebar
        bar.folders.made.discard(old)
        kind, chosen = bar.folders.chosen
        if kind == "folder" and (chosen == old or chosen.startswith(old + "/")):
            bar.folders.chosen = ("folder", new + chosen[len(old) :]) if new else ("all", "")
        self._refresh(old, new)
        bar._on_tags_chosen()
        bar.set_tag_undo(edit.describe())

    def open_project(self, folder: str) -> ProjectSettingsDialog | None:
        """The folder's settings page (``folderSettings``); OK keeps them."""
        project = self.commands.runner.guard(folders.project, self.library.store, folder)
        if project is None:
            return None
        if self.project_page is not None:
            self.project_page.close()
        settings = self.commands.session.settings
        page = ProjectSettingsDialog(
            project,
            sorted(settings.agents),
            sorted(settings.providers),
            self.read_file,
            self.commands.owner,
        )
        page.accepted_settings.connect(self.set_project)
        page.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        page.destroyed.connect(lambda: setattr(self, "project_page", None))
        self.project_page = page
        page.open()
        return page

    def set_project(self, project: Project, files: list[StoredFile]) -> None:
        def keep() -> Project:
            if files:
                self.library.put_project_files(files)
            return self.library.set_project(project)

        kept = self.commands.runner.guard(keep)
        if kept is not None:
            self.commands.sidebar.reload()
            what = "no longer a project" if kept.empty else "a project"
            self._status(f"Folder “{project.folder}” is {what}")

    def save_smart_folder(self, name: str, search: str, tags: list[str]) -> None:
        saved = self.commands.runner.guard(self.library.save_smart_folder, name, search, tags)
        if saved is not None:
            self.commands.sidebar.reload()
            self._status(f"Saved the smart folder “{saved.name}”")

    def rename_smart_folder(self, old: str, new: str) -> None:
        renamed = self.commands.runner.guard(self.library.rename_smart_folder, old, new)
        if renamed is not None:
            bar = self.commands.sidebar
            if bar.folders.chosen == ("smart", old):
                bar.folders.chosen = ("smart", renamed.name)
            bar.reload()
            self._status(f"Renamed the smart folder to “{renamed.name}”")

    def delete_smart_folder(self, name: str) -> None:
        gone = self.commands.runner.guard(self.library.delete_smart_folder, name)
        if gone is not None:
            self.commands.sidebar.reload()
            self._status(f"Deleted the smart folder “{gone.name}” (no conversation changed)")

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
        if isinstance(edit, FolderEdit):
            if self.commands.runner.guard(self.library.undo_folder_edit, edit) is None:
                return
            self.tag_edits.pop()
            self._folder_undone(edit)
            return
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

    def _folder_undone(self, edit: FolderEdit) -> None:
        bar = self.commands.sidebar
        if edit.new is not None and bar.folders.chosen == ("folder", edit.new):
            bar.folders.chosen = ("folder", edit.old)
        if edit.new is not None:
            self._refresh(edit.new, edit.old)
        else:
            bar.reload()
        bar._on_tags_chosen()
        bar.set_tag_undo(self.tag_edits[-1].describe() if self.tag_edits else None)
        self._status(f"Undone: the {edit.describe()}")

    def _refresh(self, old: str, new: str | None) -> None:
        """Reload the sidebar; a filter on the old tag follows it (or drops it)."""
        bar = self.commands.sidebar
        chosen = bar.tag_filters.chosen
        if old in chosen:
            kept = [t for t in chosen if t != old] + ([new] if new is not None else [])
            bar.tag_filters.choose(kept)
        bar.reload()
