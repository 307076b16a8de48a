#!/usr/bin/env python3
"""Screenshots of folders and projects in the real window, offscreen, in light and dark
(issue 26's README pictures): the folder tree above the list with a project folder chosen
(``folders-tree-<theme>.png``) and that folder's settings page
(``folders-project-<theme>.png``).

    .venv/bin/python tools/screenshots_folders.py [OUT_DIR] [--size 1100x760]

OUT_DIR defaults to resources/screenshots. A local model server
(``tests/support/wire_server.py``) lists the models; nothing is sent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

from tests.support.waiting import loop_passes, wait_until  # noqa: E402
from tests.support.wire_server import Reply, WireServer  # noqa: E402

PROJECT = "work/acme"
#: (title, agent, tags): a few hundred conversations' worth of filing, in miniature.
ROWS = [
    ("Q3 roadmap review with the ACME team", None, ("work/acme/q3",)),
    ("ACME API rate limits", "coder", ("work/acme", "api")),
    ("Invoice export for ACME finance", "coder", ("work/acme",)),
    ("Beta launch checklist", None, ("work/beta",)),
    ("Retry policy with jitter", "coder", ("work/beta", "api")),
    ("Onboarding doc outline", None, ("work",)),
    ("Watercolour fox, misty morning", "painter", ("personal/art",)),
    ("Holiday itinerary, Lisbon", None, ("personal/travel",)),
    ("Birthday poem for Ana", None, ("personal",)),
    ("ACME security questionnaire", None, ("work/acme/q3", "security")),
    ("Pagination: keyset vs offset", "coder", ("api",)),
    ("Reading list for the winter", None, ()),
]


MODELS = {
    "object": "list",
    "data": [{"id": m, "object": "model"} for m in ("gpt-4o", "gpt-4o-mini")],
}


def write_home(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""[defaults]
provider = "local"
model = "gpt-4o-mini"
agent = "assistant"

[providers.local]
kind = "openai"
base_url = "{url}/v1"

[agents.assistant]
system_prompt = "You are a helpful assistant."

[agents.coder]
system_prompt = "You write careful, tested code."
""",
        encoding="utf-8",
    )


def fill(home: Path) -> None:
    from ikgui.domain.events import Conversation
    from ikgui.domain.folders import Project, SmartFolder
    from ikgui.local.paths import resolve
    from ikgui.storage import open_store

    now = time.time()
    with open_store(resolve(home).database) as store:
        for i, (title, agent, tags) in enumerate(ROWS):
            when = now - 3600 * (i * 7 + 1)
            conv = Conversation(
                id=f"{agent or 'chat'}-{i:04d}",
                title=title,
                agent=agent,
                tags=tags,
                created_at=when,
                updated_at=when,
            )
            store.insert_conversation(conv)
        store.put_project(
            Project(
                PROJECT,
                agent="coder",
                model="gpt-4o",
                system_prompt="You work for ACME Corp. Answer in British English, cite the "
                "internal wiki when you can, and never share customer names.",
                tools=("time",),
            )
        )
        store.put_smart_folder(SmartFolder("API work", "", ("api",)))


async def settled(window: Any) -> None:
    from PySide6.QtWidgets import QApplication

    await wait_until(lambda: all(t.done() for t in window._tasks), timeout=30.0)
    await loop_passes(30)
    QApplication.processEvents()
    window.statusBar().clearMessage()
    await loop_passes(10)


async def shoot(home: Path, theme: str, out_dir: Path, size: tuple[int, int]) -> None:
    from ikgui.app.root import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    apply_style(application(), theme)
    window = build_window(home, check_timeout=1.0)
    window.resize(*size)
    window.show()
    try:
        await settled(window)
        tree = window.sidebar.folders
        for path in ("work", PROJECT, "personal"):
            item = tree.item_for("folder", path)
            if item is not None:
                item.setExpanded(True)
        tree.choose("folder", PROJECT)
        window.toolbar_actions["actionNew"].trigger()  # New in the project: its defaults
        await settled(window)
        window.grab().save(str(out_dir / f"folders-tree-{theme}.png"))
        print(f"wrote {out_dir / f'folders-tree-{theme}.png'}")
        page = window.commands.selection.open_project(PROJECT)
        assert page is not None
        await settled(window)
        page.grab().save(str(out_dir / f"folders-project-{theme}.png"))
        print(f"wrote {out_dir / f'folders-project-{theme}.png'}")
        page.reject()
    finally:
        await window.shutdown()
        window.close()


async def run(out_dir: Path, size: tuple[int, int], url: str) -> None:
    for theme in ("light", "dark"):
        with tempfile.TemporaryDirectory(prefix="ikgui-shots-folders-") as tmp:
            home = Path(tmp) / "home"
            write_home(home, url)
            fill(home)
            await shoot(home, theme, out_dir, size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "resources" / "screenshots")
    parser.add_argument("--size", default="1100x760", help="the window's size, WxH")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with WireServer() as server:
        body = json.dumps(MODELS).encode()
        server.route("/v1/models", Reply(body=body, chunked=False), method="GET")
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            loop.run_until_complete(run(args.out, (width, height), server.url))


if __name__ == "__main__":
    main()
