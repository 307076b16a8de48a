"""``library.retag`` from two processes at once: no tag is lost."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ikgui
from ikgui.domain.errors import UserError
from ikgui.domain.library import conversations as library
from ikgui.storage import open_store

from .helpers import add_conversation

ROUNDS = 60

WORKER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from ikgui.domain.library import conversations as library
    from ikgui.storage import open_store

    path, name, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    with open_store(path) as store:
        print("ready", flush=True)
        sys.stdin.readline()  # both start together
        for i in range(rounds):
            library.retag(store, "chat-tags", [f"+{name}{i}", f"-{name}{i - 1}", f"+{name}-all{i}"])
    """
)


def test_two_processes_tagging_at_once_lose_nothing(db_path: Path) -> None:
    with open_store(db_path) as store:
        add_conversation(store, "chat-tags", tags=("start",))
    root = str(Path(ikgui.__file__).resolve().parent.parent)
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(db_path), name, str(ROUNDS)],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    for worker in workers:
        assert worker.wait(timeout=120) == 0
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.close()
        worker.stdout.close()
    with open_store(db_path) as store:
        conv = store.get_conversation("chat-tags")
        assert conv is not None
        expected = {"start", f"a{ROUNDS - 1}", f"b{ROUNDS - 1}"}
        expected |= {f"{n}-all{i}" for n in "ab" for i in range(ROUNDS)}
        assert set(conv.tags) == expected


def test_a_bad_tag_changes_nothing(db_path: Path) -> None:
    with open_store(db_path) as store:
        add_conversation(store, "chat-tags", tags=("keep",))
        with pytest.raises(UserError, match="Invalid tag"):
            library.retag(store, "chat-tags", ["+new", "+bad tag!"])
        conv = store.get_conversation("chat-tags")
        assert conv is not None and conv.tags == ("keep",)
