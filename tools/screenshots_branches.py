#!/usr/bin/env python3
"""Screenshots of branches in the real window, offscreen, in light and dark (issue 25's
README pictures; issue 12's before them).

    .venv/bin/python tools/screenshots_branches.py [OUT_DIR] [--sizes]
                                                  # default OUT_DIR: resources/screenshots

A conversation with two edited versions and a retried reply (alternatives: its sidebar
row says "4 versions" and grows no row for them), two deliberate forks and two compared
models (rows of their own with a branch glyph, the part of their titles that tells them
apart never elided), a fork of a fork, a closed branch and one in the Trash, built
through the domain session, then opened in the window on an edited version:

- ``branches-sidebar-<theme>.png``: the sidebar, the family row expanded;
- ``branches-window-<theme>.png``: the window on the edited version, its row collapsed;
- ``branches-view-<theme>.png``: the Branches view, the family's map;
- ``fork-tree-<theme>.png``: a fork chain deeper than the indentation (issue 12).

``--sizes`` adds the window at 800×600 and 1920×1080 in both themes
(``branches-window-<W>x<H>-<theme>.png``), for looking, not for the README.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: A 1920×1080 virtual screen (Qt's offscreen default is 800×600: windows would shrink).
SCREEN = ROOT / "tests" / "support" / "screen.json"
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={SCREEN}")
sys.path.insert(0, str(ROOT))

from ikgui.domain.events import BRANCH_COMPARE, BRANCH_EDIT, BRANCH_RETRY, Kind  # noqa: E402
from ikgui.domain.session.session import Session  # noqa: E402
from ikgui.storage import SqliteStore, open_store  # noqa: E402

SIZE = (1340, 820)
SIZES = ((800, 600), (1920, 1080))
TITLE = "Write unit tests for date parsing"
EXCHANGES = [
    (TITLE, "Here are pytest cases for `parse_date`: ISO dates, slashes and bad input."),
    ("Add cases for time zones", "Added `+02:00`, `Z` and a missing offset."),
    ("Now leap years", "Added 29 February in 2024 and a refusal for 2023."),
]
OTHERS = [
    ("Plan a watercolour of a fox on a misty morning", "Start with a pale grey-blue wash."),
    ("Name ideas for a bakery in Lisbon", "Forno da Esquina, Pão de Cada Dia, Massa Mãe."),
    ("Explain Raft leader election", "Followers time out, become candidates and ask for votes."),
]


def fill(store: SqliteStore) -> tuple[str, str]:
    """The family described above, and a fork chain; returns (the edited version shown,
    the first of the chain)."""
    session = Session(store)
    for question, answer in OTHERS:
        session.new_conversation()
        session.append(Kind.USER, question)
        session.append(Kind.ASSISTANT, answer)
    chain = session.conversation.id
    for step in range(4):
        session.fork()
        session.append(Kind.USER, f"Variation {step + 1}: with a diagram")
    session.new_conversation()
    asked: list[int] = []
    for question, answer in EXCHANGES:
        asked.append(session.append(Kind.USER, question).id)
        session.append(Kind.ASSISTANT, answer)
    root = session.conversation.id
    session.fork(asked[1] - 1, reason=BRANCH_EDIT)
    session.append(Kind.USER, "Add cases for time zones and DST changes")
    session.append(Kind.ASSISTANT, "Added the March and October changes in Europe/Lisbon.")
    session.open(root)
    session.fork(asked[0], reason=BRANCH_RETRY)
    session.append(Kind.ASSISTANT, "Here are hypothesis strategies for dates instead.")
    session.open(root)
    fork = session.fork().id
    session.append(Kind.USER, "Use unittest instead of pytest")
    session.fork()
    session.append(Kind.USER, "And run them in CI")
    session.open(fork)
    gone = session.fork().id
    session.append(Kind.USER, "Drop the bad-input cases")
    session.trash(gone)
    session.open(root)
    session.fork()
    session.append(Kind.USER, "Benchmark the parser")
    closed = session.fork().id
    session.append(Kind.USER, "Compare with dateutil")
    session.open(closed)
    session.kill(None, False)
    for model in ("gpt-4o-mini", "llama3.2"):
        session.open(root)
        session.fork(asked[2] - 1, reason=BRANCH_COMPARE)
        session.update_fields(title=f"{TITLE} · {model}", model=model)
        session.append(Kind.USER, EXCHANGES[2][0])
        session.append(Kind.ASSISTANT, f"({model}) Leap years: 2024-02-29 parses.")
    session.open(root)
    shown = session.fork(asked[1] - 1, reason=BRANCH_EDIT).id
    session.append(Kind.USER, "Add cases for time zones, with names like Europe/Lisbon")
    session.append(Kind.ASSISTANT, "Added named zones through `zoneinfo`.")
    return shown, chain


def populate(home: Path) -> tuple[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[defaults]\nprovider = "ollama"\nmodel = "llama3.2"\n\n'
        '[providers.ollama]\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n',
        encoding="utf-8",
    )
    store = open_store(home / "ikgui.db")
    try:
        return fill(store)
    finally:
        store.close()


async def settled(rounds: int = 5) -> None:
    from ikgui.ui.loop import application

    for _ in range(rounds):
        application().processEvents()
        await asyncio.sleep(0.05)


def save(widget: Any, out: Path) -> None:
    widget.grab().save(str(out))
    print(f"wrote {out}")


async def opened(home: Path, theme: str, size: tuple[int, int], conv_id: str) -> Any:
    from ikgui.app.root import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    apply_style(application(), theme)
    window = build_window(home, check_timeout=0.5)
    window.resize(*size)
    window.show()
    deadline = time.monotonic() + 3
    while any(not t.done() for t in window._tasks) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    window.open_conversation(conv_id)
    await settled()
    window.banner.hide()
    window.statusBar().clearMessage()
    await settled()  # (the layout takes the banner's room back)
    return window


async def closed(window: Any) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    await window.shutdown()
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


async def shoot(home: Path, theme: str, out: Path, shown: str, chain: str) -> None:
    window = await opened(home, theme, SIZE, shown)
    try:
        save(window, out / f"branches-window-{theme}.png")
        sidebar = window.sidebar
        sidebar.model.expand(sidebar.model.family_of(sidebar.view.currentIndex()))
        await settled()
        save(sidebar, out / f"branches-sidebar-{theme}.png")
        window.toolbar_actions["actionBranches"].trigger()
        await settled()
        view = window.branches_view
        view.resize(1000, 420)
        await settled()
        save(view, out / f"branches-view-{theme}.png")
        view.close()
        window.open_conversation(chain)
        await settled()
        sidebar.model.expand_all()
        await settled()
        save(sidebar, out / f"fork-tree-{theme}.png")
    finally:
        await closed(window)


async def sizes(home: Path, theme: str, out: Path, shown: str) -> None:
    for width, height in SIZES:
        window = await opened(home, theme, (width, height), shown)
        try:
            save(window, out / f"branches-window-{width}x{height}-{theme}.png")
        finally:
            await closed(window)


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--sizes"]
    if args and args[0].startswith("-"):
        print(__doc__)
        sys.exit(0 if args[0] in ("-h", "--help") else 2)
    out = Path(args[0]) if args else ROOT / "resources" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shown, chain = populate(home)
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            for theme in ("light", "dark"):
                loop.run_until_complete(shoot(home, theme, out, shown, chain))
                if "--sizes" in sys.argv:
                    loop.run_until_complete(sizes(home, theme, out, shown))


if __name__ == "__main__":
    main()
