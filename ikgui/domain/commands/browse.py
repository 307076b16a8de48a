"""The slash commands that browse and carry conversations: /new, /sessions, /load and
/export (their handlers; the registry is in :mod:`ikgui.domain.commands.handlers`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ikgui.domain.commands.registry import CommandResult
from ikgui.domain.errors import NotFoundError, UsageError, UserError
from ikgui.domain.library import exchange
from ikgui.domain.library.listing import MAX_COUNT, format_listing
from ikgui.domain.session.session import Session


def new_command(
    session: Session, agent: str | None = None, project: str | None = None
) -> CommandResult:
    """``project``: a folder the conversation starts in (the window's New while a folder
    is chosen: SPEC §15), tagged with it and taking its project's defaults."""
    conv = session.new_conversation(agent or None, project=project or None)
    where = f" in {project}" if project else ""
    return CommandResult(f"New conversation {conv.id}{where}", store=False)


def parse_sessions(args: str) -> dict[str, Any]:
    try:
        count = int(args) if args else 10
    except ValueError:
        raise UsageError("Usage: /sessions [n]") from None
    return {"count": count}


def sessions_command(session: Session, count: int = 10) -> CommandResult:
    if count > MAX_COUNT:
        raise UsageError(f"Usage: /sessions [n], n at most {MAX_COUNT}")
    rows = session.store.list_conversations(max(count, 1))
    return CommandResult(format_listing(rows, session.clock()))


def load_command(session: Session, ref: str | None = None) -> CommandResult:
    if not ref:
        raise UsageError("Usage: /load <ref or words>")
    if " " not in ref:
        try:
            conv = session.open_ref(ref)
        except NotFoundError:
            pass
        else:
            return CommandResult(f"Switched to {conv.id}", store=False)
    hits = session.store.search(ref)
    if not hits:
        return CommandResult(f"No matches for '{ref}'")
    lines = [f"Matches for '{ref}':"]
    for hit in hits[:20]:
        lines.append(f"  {hit.conversation.id}  {hit.conversation.title or '-'}  {hit.snippet}")
    return CommandResult("\n".join(lines))


def parse_export(args: str) -> dict[str, Any]:
    words = args.split(maxsplit=1)
    fmt = "json"
    if words and words[0] in ("md", "json"):
        fmt = words.pop(0)
    return {"fmt": fmt, "path": words[0] if words else None}


def export_command(
    session: Session, fmt: str = "json", path: str | Path | None = None
) -> CommandResult:
    if not session.saved:
        raise UserError("Nothing to export yet")
    conv_id = session.conversation.id
    target = (
        Path(path).expanduser()
        if path
        else exchange.default_export_path(conv_id, session.export_dir, fmt)
    )
    written = session.library.export(conv_id, fmt, target)
    return CommandResult(f"Exported to {written}")
