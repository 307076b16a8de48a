#!/usr/bin/env python3
"""Take the README's screenshots of the real window, offscreen, in light and dark.

    .venv/bin/python tools/screenshots.py [OUT_DIR]     # default resources/screenshots

Builds a realistic conversation in a throwaway home (forks, marks, a rewind, a
prompt-edit notice, tags, code in a reply) through the domain session — the same
calls the window makes — then opens the window over it and grabs it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ikgui.domain.events import Kind  # noqa: E402
from ikgui.domain.session import Session  # noqa: E402
from ikgui.storage import open_store  # noqa: E402

REPLY = """Good idea — a **write-ahead log** keeps readers and the writer out of each \
other's way. Turn it on once per database:

```python
import sqlite3

db = sqlite3.connect("ikgui.db")
db.execute("PRAGMA journal_mode=wal")   # readers never block the writer
db.execute("PRAGMA busy_timeout=5000")  # wait instead of failing when locked
```

Two things to keep in mind:

- a checkpoint copies the log back into the database now and then;
- the `-wal` and `-shm` files must travel with the database.

Prompt: a lighthouse on a cliff at dusk, watercolor, warm light"""


def populate(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[defaults]\nprovider = "ollama"\nmodel = "llama3.2"\nagent = "writer"\n\n'
        '[providers.ollama]\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n\n'
        '[agents.writer]\nsystem_prompt = "You are a concise technical writer."\n'
        'prompt_mode = "line"\n',
        encoding="utf-8",
    )
    store = open_store(home / "ikgui.db")
    session = Session(store)
    usage = {
        "provider": "ollama",
        "model": "llama3.2",
        "usage": {"input": 412, "output": 236},
        "cost": 0.0,
        "finish_reason": "stop",
        "interrupted": False,
    }

    def older(title: str, tags: list[str], text: str, agent: str | None = None) -> None:
        session.new_conversation(None)
        session.conversation.agent = agent
        session.append(Kind.USER, text)
        session.append(Kind.ASSISTANT, "Sure — here is a short overview.", usage)
        session.rename(session.conversation.id, title)
        session.set_tags_of(session.conversation.id, tags)

    older("Trip planning: Lofoten in March", ["travel"], "Plan a 5-day trip to Lofoten")
    older("Regex for ISO dates", ["code"], "A regex for ISO 8601 dates?", "coder")
    older("Book notes: Designing Data-Intensive Apps", ["reading"], "Summarize chapter 3")

    session.new_conversation(None)
    session.conversation.agent = "writer"
    session.append(Kind.USER, "How do I make SQLite safe for a reader and a writer at once?")
    session.append(
        Kind.ASSISTANT,
        REPLY,
        {**usage, "prompt": "a lighthouse on a cliff at dusk, watercolor, warm light"},
    )
    root = session.conversation.id
    session.rename(root, "SQLite WAL for the app")
    session.set_tags_of(root, ["sqlite", "design"])
    session.mark("before benchmarks")
    session.append(Kind.USER, "Should we benchmark with 1M events?")
    session.append(
        Kind.ASSISTANT,
        "Yes: a million events across ten thousand conversations is a realistic upper bound.",
        usage,
    )
    session.rewind("before benchmarks")
    session.edit_prompt("a lighthouse on a cliff at dusk, watercolor, stormy sea")
    child = session.fork()
    session.rename(child.id, "WAL on network drives?")
    session.fork()
    session.rename(session.conversation.id, "Variant: rollback journal")
    session.open(child.id)
    session.append(Kind.USER, "What about the `-shm` file on network drives?")
    session.append(
        Kind.ASSISTANT,
        "Avoid network drives: WAL needs *shared memory*, which "
        "network file systems do not provide reliably. Keep the database on a "
        "local disk and sync exports instead.",
        usage,
    )
    store.add_usage(child.id, 1236, 708, 0.0)
    store.close()


async def grab(home: Path, theme: str, out: Path) -> None:
    from ikgui.app import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    app = application()
    apply_style(app, theme)
    window = build_window(home, check_timeout=0.5)
    window.resize(1340, 820)
    window.show()
    window.banner.hide()
    deadline = time.monotonic() + 3
    while any(not t.done() for t in window._tasks) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    window.banner.hide()
    window.scrollback.scroll_to_bottom()
    window.statusBar().clearMessage()
    for _ in range(5):
        app.processEvents()
        await asyncio.sleep(0.05)
    window.grab().save(str(out))
    print(f"wrote {out}")
    await window.shutdown()
    window.close()


def main() -> None:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "screenshots"
    out_dir.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        populate(home)
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            for theme in ("light", "dark"):
                loop.run_until_complete(grab(home, theme, out_dir / f"window-{theme}.png"))


if __name__ == "__main__":
    main()
