"""Recovery files: what could not be saved to the database, kept as plain text (SPEC §11).

``ikgui run`` (and the window when it closes) try once more to write what waits in
``session.writes``; if the store still refuses, the events go to
``<database folder>/recovered/<conversation>-<time>.txt`` — or, when that disk is the
full one, the system's temporary folder or the home folder — and the user is told where.
No Qt, no storage imports: the command line and the window share it.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ikgui.domain.attachments import listed, size_text
from ikgui.domain.events import Event
from ikgui.domain.text.safe import valid_id
from ikgui.domain.text.times import iso

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session


def folders(database: Path) -> list[Path]:
    """Where a recovery file may go, best first."""
    return [
        database.parent / "recovered",
        Path(tempfile.gettempdir()) / "ikgui-recovered",
        Path.home() / "ikgui-recovered",
    ]


def _text(events: list[Event], database: Path | str) -> str:
    lines = [
        f"# ikgui could not save these to {database} ({iso(time.time())}).",
        "# Oldest first; each starts with a line: --- <conversation> <kind> <time>.",
        "",
    ]
    for event in events:
        when = iso(event.created_at) if event.created_at else ""
        lines.append(f"--- {event.conversation_id} {event.kind} {when}".rstrip())
        lines.append(event.content)
        lines.extend(
            f"(attached: {a.name}, {a.mime}, {size_text(a.size)})" for a in listed(event.data)
        )
        lines.append("")
    return "\n".join(lines)


def write_file(events: list[Event], database: Path, name: str | None = None) -> Path:
    """Write ``events`` to a new recovery file (near ``database``; ``name``: the store in
    use, in words); raises ``OSError`` if no folder takes it."""
    conv_id = events[0].conversation_id if events else "ikgui"
    stem = f"{conv_id if valid_id(conv_id) else 'conversation'}-{time.strftime('%Y%m%d-%H%M%S')}"
    data = _text(events, name or database).encode("utf-8")
    failure: OSError | None = None
    for folder in folders(database):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for n in range(1, 100):
                path = folder / (f"{stem}.txt" if n == 1 else f"{stem}-{n}.txt")
                try:
                    with path.open("xb") as fh:
                        try:
                            fh.write(data)
                            fh.flush()
                            os.fsync(fh.fileno())  # it may be the only copy there is
                        except OSError:
                            fh.close()
                            path.unlink(missing_ok=True)  # no half file left behind
                            raise
                    return path
                except FileExistsError:
                    continue
        except OSError as exc:
            failure = exc
    raise failure or OSError("no folder for a recovery file")


def rescue(session: Session, database: Path, name: str | None = None) -> str | None:
    """After a run: write what waits, or put it in a recovery file.

    ``database``: the SQLite file, or where recovery files go beside (the data folder's
    ``ikgui.db`` for a server-backed store); ``name``: the store in use as the message
    names it ("PostgreSQL user@host:5432/db"; default: ``database``).
    Returns the one ``Error:`` line to print, or ``None`` when everything is saved.
    """
    shown = name or str(database)
    writes = session.writes
    if not writes or writes.flush():
        return None
    why = writes.reason.rstrip(".") or "the database refused it"
    events = writes.events()
    what = "the reply" if any(e.kind == "assistant" for e in events) else "this change"
    try:
        path = write_file(events, database, shown)
    except OSError as exc:
        return (
            f"Error: could not save {what} to {shown} ({why}), nor to a recovery "
            f"file ({exc.strerror or exc})"
        )
    return f"Error: could not save {what} to {shown} ({why}); its text is in {path}"
