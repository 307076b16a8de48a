"""Smart folders and projects (SPEC §15; schema 9): their rows, read and written.

Each function runs inside the store's read or write transaction (it is given the
database). A project's files are kept as a draft keeps its files (by hash, JSON), so a
sweep of unreferenced files (``files.remove_unreferenced``) keeps them stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from peewee import Database, Model

from ikgui.domain.attachments import DraftFile, draft_files, draft_files_text
from ikgui.domain.folders import Project, SmartFolder
from ikgui.storage.models import ProjectRow, SmartFolderRow
from ikgui.storage.queries import execute_query


def _names(text: str | None) -> tuple[str, ...] | None:
    """A JSON list of names read back (``None``: not set; a damaged value: none)."""
    if text is None:
        return None
    try:
        raw = json.loads(text)
    except ValueError:
        return ()
    return tuple(str(v) for v in raw) if isinstance(raw, list) else ()


def smart_folders(db: Database) -> list[SmartFolder]:
    query = SmartFolderRow.select(
        SmartFolderRow.name, SmartFolderRow.search, SmartFolderRow.tags
    ).order_by(SmartFolderRow.name)
    return [
        SmartFolder(str(name), str(search or ""), _names(tags) or ())
        for name, search, tags in execute_query(db, query).fetchall()
    ]


def put_smart_folder(db: Database, folder: SmartFolder, replacing: str | None, now: float) -> None:
    """Save ``folder`` (replacing the one named ``replacing``, or its own name)."""
    old = replacing if replacing is not None else folder.name
    SmartFolderRow.delete().where(SmartFolderRow.name.in_([old, folder.name])).execute(db)
    SmartFolderRow.insert(
        name=folder.name,
        search=folder.search,
        tags=json.dumps(list(folder.tags), ensure_ascii=False),
        created_at=now,
    ).execute(db)


def delete_smart_folder(db: Database, name: str) -> bool:
    return bool(SmartFolderRow.delete().where(SmartFolderRow.name == name).execute(db))


_PROJECT_FIELDS = (
    ProjectRow.folder,
    ProjectRow.agent,
    ProjectRow.provider,
    ProjectRow.model,
    ProjectRow.system_prompt,
    ProjectRow.tools,
    ProjectRow.files,
)


def _project(row: Sequence[Any]) -> Project:
    folder, agent, provider, model, system, tools, files = row
    return Project(
        str(folder),
        agent,
        provider,
        model,
        system,
        _names(tools),
        tuple(f.attachment for f in draft_files(files)),
    )


def projects(db: Database, folders: Sequence[str] | None = None) -> list[Project]:
    """Every project (or those of ``folders``), by folder."""
    query = ProjectRow.select(*_PROJECT_FIELDS).order_by(ProjectRow.folder)
    if folders is not None:
        query = query.where(ProjectRow.folder.in_(list(folders)))
    return [_project(r) for r in execute_query(db, query).fetchall()]


def put_project(db: Database, project: Project, now: float) -> None:
    """Keep ``project`` as its folder's settings (one that sets nothing is removed)."""
    ProjectRow.delete().where(ProjectRow.folder == project.folder).execute(db)
    if project.empty:
        return
    ProjectRow.insert(
        folder=project.folder,
        agent=project.agent,
        provider=project.provider,
        model=project.model,
        system_prompt=project.system_prompt,
        tools=None if project.tools is None else json.dumps(list(project.tools)),
        files=draft_files_text(DraftFile(a) for a in project.files),
        updated_at=now,
    ).execute(db)


def delete_project(db: Database, folder: str) -> bool:
    return bool(ProjectRow.delete().where(ProjectRow.folder == folder).execute(db))


def project_files(db: Database) -> set[str]:
    """The hashes of the files projects keep (a sweep leaves them)."""
    query = ProjectRow.select(ProjectRow.files).where(ProjectRow.files != "")
    return {
        f.attachment.sha256
        for (text,) in execute_query(db, query).fetchall()
        for f in draft_files(text)
    }


def copy_rows(source: Database, dest: Database) -> int:
    """``db copy``: the source's smart folders and projects into ``dest`` (those of the
    same name or folder take the source's values; the destination's others stay; equal
    rows are left alone). Returns how many were written. The projects' files are copied
    with every other stored file."""
    written = 0
    for model in (SmartFolderRow, ProjectRow):
        written += _copy_table(model, source, dest)
    return written


def _copy_table(model: type[Model], source: Database, dest: Database) -> int:
    fields = list(model._meta.sorted_fields)
    key = model._meta.primary_key
    theirs = {r[0]: tuple(r) for r in execute_query(source, model.select(*fields)).fetchall()}
    ours = {r[0]: tuple(r) for r in execute_query(dest, model.select(*fields)).fetchall()}
    changed = [row for k, row in theirs.items() if ours.get(k) != row]
    with dest.atomic():
        for row in changed:
            model.delete().where(key == row[0]).execute(dest)
            model.insert(dict(zip(fields, row, strict=True))).execute(dest)
    return len(changed)
