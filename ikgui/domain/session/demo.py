"""The demo: a small, realistic set of conversations generated through the session —
forks, marks, a rewind, a working prompt with an edit notice, tags, code in a reply.

Used by the first-run "Open a demo" (into a throwaway database, shown read-only) and by
the screenshot script; never a shipped database file.
"""

from __future__ import annotations

from typing import Any

from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session

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

USAGE: dict[str, Any] = {
    "provider": "ollama",
    "model": "llama3.2",
    "usage": {"input": 412, "output": 236},
    "cost": 0.0,
    "finish_reason": "stop",
    "interrupted": False,
}


def _simple(
    session: Session,
    title: str,
    tags: list[str],
    question: str,
    answer: str,
    agent: str | None = None,
) -> None:
    session.new_conversation(None)
    session.current.prepare(agent=agent)
    session.append(Kind.USER, question)
    session.append(Kind.ASSISTANT, answer, USAGE)
    session.rename(session.conversation.id, title)
    session.set_tags_of(session.conversation.id, tags)


def build_demo(session: Session) -> str:
    """Write the demo conversations through ``session``; returns the one to show first."""
    _simple(
        session,
        "Trip planning: Lofoten in March",
        ["travel"],
        "Plan a 5-day trip to Lofoten in March.",
        "Day 1: Svolvær and the harbour. Day 2: Henningsvær by car…",
    )
    _simple(
        session,
        "Regex for ISO dates",
        ["code"],
        "A regex for ISO 8601 dates?",
        "`^\\d{4}-\\d{2}-\\d{2}$` matches the date part; add `T\\d{2}:\\d{2}` for time.",
        agent="coder",
    )
    _simple(
        session,
        "Book notes: Designing Data-Intensive Apps",
        ["reading"],
        "Summarize chapter 3 in five bullet points.",
        "- Logs are the simplest storage engine\n- Indexes speed reads, slow writes\n"
        "- SSTables and LSM-trees\n- B-trees\n- OLTP versus analytics",
    )
    return _fork_tree(session)


def _fork_tree(session: Session) -> str:
    """A conversation with a mark, a rewind, a prompt edit and two forks; returns the
    fork to show first."""
    session.new_conversation(None)
    session.current.prepare(agent="writer")
    session.append(Kind.USER, "How do I make SQLite safe for a reader and a writer at once?")
    session.append(
        Kind.ASSISTANT,
        REPLY,
        {**USAGE, "prompt": "a lighthouse on a cliff at dusk, watercolor, warm light"},
    )
    root = session.conversation.id
    session.rename(root, "SQLite WAL for the app")
    session.set_tags_of(root, ["sqlite", "design"])
    session.mark("before benchmarks")
    session.append(Kind.USER, "Should we benchmark with 1M events?")
    session.append(
        Kind.ASSISTANT,
        "Yes: a million events across ten thousand conversations is a realistic upper bound.",
        USAGE,
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
        USAGE,
    )
    session.current.add_usage(child.id, 1236, 708, 0.0)  # (told, and shown at once)
    return child.id
