"""``ikgui conv list`` as a new process loads only what a listing needs (issue 14 item 8:
≤ 0.25 s on PostgreSQL with 10,000 conversations, most of it spent loading modules).

Not the session (and with it asyncio, the streaming machinery, the slash commands), not
``ikgui run``'s module, the recovery files, the replay or the import/export code, not the
providers (httpx) nor the keyring; on PostgreSQL not the LISTEN connection either
(psycopg itself loads asyncio there). ``ikgui`` runs as a user starts it
(``ikgui.__main__.main``) and reports the modules it loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ikgui.domain.events import Conversation
from ikgui.storage import open_store

#: Loaded by ``conv list`` neither on SQLite nor on PostgreSQL.
NOT_NEEDED = (
    "ikgui.domain.session.session",
    "ikgui.domain.commands.handlers",
    "ikgui.domain.session.reply",
    "ikgui.domain.session.sender",
    "ikgui.domain.state.replay",
    "ikgui.domain.library.exchange",
    "ikgui.cli.run",
    "ikgui.local.recovery",
    "ikgui.providers",
    "httpx",
    "httpcore",
    "keyring",
    "ikgui.storage.pg_listen",
)

#: ``ikgui conv list`` in a new process; writes its exit code and modules to argv[1].
DRIVER = """
import gc, json, sys
from ikgui.__main__ import main
path = sys.argv[1]
sys.argv = ["ikgui", "conv", "list"]
code = main()
with open(path, "w", encoding="utf-8") as fh:
    report = {"code": code, "modules": sorted(sys.modules)}
    json.dump({**report, "gc": gc.isenabled(), "frozen": gc.get_freeze_count()}, fh)
"""


def _fill(location: Path | str) -> None:
    store = open_store(location)
    try:
        for n, tags in enumerate((["work"], [], ["work", "api"])):
            conv_id = f"chat-{n:04d}"
            store.insert_conversation(Conversation(id=conv_id, created_at=1.0, updated_at=n))
            store.set_tags(conv_id, tags)
            store.append_event(conv_id, "user", f"question {n}")
    finally:
        store.close()


def _list(tmp_path: Path, url: str | None = None) -> tuple[str, set[str]]:
    """Run ``ikgui conv list``: its output and the modules it loaded (and check that it
    ran without the cyclic garbage collector, and leaves what it made to the exit
    uncollected: all it makes lives until it exits)."""
    env = dict(os.environ, IKGUI_HOME=str(tmp_path / "home"))
    env.pop("IKGUI_DATABASE_URL", None)
    if url is not None:
        env["IKGUI_DATABASE_URL"] = url
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, str(report)],
        env=env,
        text=True,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["code"] == 0, result.stderr
    assert found["gc"] is False and found["frozen"] > 10_000
    return result.stdout, set(found["modules"])


def _check(out: str, modules: set[str]) -> None:
    assert [line.split()[0] for line in out.splitlines()] == [
        "ID",
        "chat-0002",
        "chat-0001",
        "chat-0000",
    ]
    loaded = sorted(m for m in modules if any(m == n or m.startswith(f"{n}.") for n in NOT_NEEDED))
    assert loaded == []


def test_conv_list_on_sqlite_loads_only_what_it_shows(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    _fill(tmp_path / "home" / "ikgui.db")
    out, modules = _list(tmp_path)
    _check(out, modules)
    assert "asyncio" not in modules  # the session's event loop: only `ikgui run` needs it
    assert not any(m.startswith("psycopg") for m in modules)


def test_conv_list_on_postgresql_loads_only_what_it_shows(tmp_path: Path, pg_url: str) -> None:
    (tmp_path / "home").mkdir()
    _fill(pg_url)
    out, modules = _list(tmp_path, pg_url)
    _check(out, modules)
    assert "ikgui.storage.pg_store" in modules  # it did list from PostgreSQL
