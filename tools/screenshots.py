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

from ikgui.domain.demo import build_demo  # noqa: E402
from ikgui.domain.session import Session  # noqa: E402
from ikgui.storage import open_store  # noqa: E402


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
    build_demo(Session(store))
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
    for row in list(window.scrollback._held):  # show a rewound group expanded (issue 10)
        if row.kind == "group":
            window.scrollback.expand_group(-row.id)
    window.scrollback.scroll_to_bottom()
    window.statusBar().clearMessage()
    for _ in range(5):
        app.processEvents()
        await asyncio.sleep(0.05)
    window.grab().save(str(out))
    print(f"wrote {out}")
    await window.shutdown()
    window.close()


async def grab_first_run(home: Path, out_dir: Path) -> None:
    """The welcome state of an empty database, and the read-only demo window."""
    from ikgui.app import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    app = application()
    apply_style(app, "light")
    window = build_window(home, check_timeout=0.5)
    window.resize(1340, 820)
    window.show()
    while any(not t.done() for t in window._tasks):
        await asyncio.sleep(0.05)
    window.banner.hide()
    window.statusBar().clearMessage()
    for _ in range(3):
        app.processEvents()
        await asyncio.sleep(0.05)
    window.grab().save(str(out_dir / "first-run.png"))
    print(f"wrote {out_dir / 'first-run.png'}")
    window.open_demo()
    demo = window.demo_window
    demo.resize(1340, 820)
    demo.statusBar().clearMessage()
    for _ in range(3):
        app.processEvents()
        await asyncio.sleep(0.05)
    demo.grab().save(str(out_dir / "demo.png"))
    print(f"wrote {out_dir / 'demo.png'}")
    for win in (demo, window):
        await win.shutdown()
        win.close()


async def grab_transcript(home: Path, theme: str, out: Path) -> None:
    """The transcript of the demo's first conversation: a code block with its header and
    Copy, and the action row under the hovered reply (issue 10)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    from ikgui.app import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style
    from ikgui.ui.transcript.inline_edit import bubble_rect

    app = application()
    apply_style(app, theme)
    window = build_window(home, check_timeout=0.5)
    window.resize(1340, 820)
    window.show()
    while any(not t.done() for t in window._tasks):
        await asyncio.sleep(0.05)
    window.banner.hide()
    convs = window.store.list_conversations(20)
    first = next(c for c in convs if c.title.startswith("SQLite WAL"))
    window.commands.open_conversation(first.id)
    view = window.scrollback
    reply = next(e for e in view._held if e.kind == "assistant" and "```" in e.content)
    view.scroll_to_event(reply.id)
    cursor = view.textCursor()  # (no selection shown)
    cursor.clearSelection()
    view.setTextCursor(cursor)
    for _ in range(3):
        app.processEvents()
        await asyncio.sleep(0.05)
    frame = view.item_frame(reply.id)
    if frame is not None:
        point = bubble_rect(view, frame).center()
        move = QMouseEvent(
            QEvent.Type.MouseMove,
            point,
            view.viewport().mapToGlobal(point),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(view.viewport(), move)
    window.statusBar().clearMessage()
    for _ in range(5):
        app.processEvents()
        await asyncio.sleep(0.05)
    window.grab().save(str(out))
    print(f"wrote {out}")
    await window.shutdown()
    window.close()


async def grab_prompt(home: Path, out_dir: Path) -> None:
    """The working-prompt panel with an unsaved edit, and its version history."""
    from ikgui.app import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    app = application()
    apply_style(app, "light")
    window = build_window(home, check_timeout=0.5)
    window.resize(1340, 820)
    window.show()
    while any(not t.done() for t in window._tasks):
        await asyncio.sleep(0.05)
    window.banner.hide()
    window.statusBar().clearMessage()
    editor = window.working.editor
    editor.setFocus()
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    editor.insertPlainText(", in a quiet harbour at dusk")
    for _ in range(3):
        app.processEvents()
        await asyncio.sleep(0.05)
    window.grab().save(str(out_dir / "prompt-unsaved.png"))
    print(f"wrote {out_dir / 'prompt-unsaved.png'}")
    window.working.revert_button.click()
    window.working.history_button.click()
    dialog = window.prompt_panel.history_dialog
    for _ in range(3):
        app.processEvents()
        await asyncio.sleep(0.05)
    dialog.grab().save(str(out_dir / "prompt-history.png"))
    print(f"wrote {out_dir / 'prompt-history.png'}")
    dialog.close()
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
                out = out_dir / f"transcript-{theme}.png"
                loop.run_until_complete(grab_transcript(home, theme, out))
            loop.run_until_complete(grab_first_run(Path(tmp) / "empty", out_dir))
            loop.run_until_complete(grab_prompt(home, out_dir))


if __name__ == "__main__":
    main()
