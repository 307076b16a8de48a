#!/usr/bin/env python3
"""Take the README's screenshots of the real window, offscreen, in light and dark.

    .venv/bin/python tools/screenshots.py [OUT_DIR]     # default resources/screenshots

Also the window at 800×600, 1366×768 and 1920×1080, and at 1366×768 with
``QT_SCALE_FACTOR=2`` (issue 13: nothing clipped at any size), on a virtual screen big
enough for each (``window-<W>x<H>[@2x].png``).

Builds a realistic conversation in a throwaway home (forks, marks, a rewind, a
prompt-edit notice, tags, code in a reply) through the domain session — the same
calls the window makes — then opens the window over it and grabs it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: A 1920×1080 virtual screen (Qt's offscreen default is 800×600: windows would shrink).
SCREEN = ROOT / "tests" / "support" / "screen.json"
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={SCREEN}")
#: The window sizes shot for the README (logical pixels).
SIZES = ((800, 600), (1366, 768), (1920, 1080))
sys.path.insert(0, str(ROOT))

from ikgui.domain.session.demo import build_demo  # noqa: E402
from ikgui.domain.session.session import Session  # noqa: E402
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


def gone(window: Any) -> None:
    """Delete a closed window now: the next theme's style change must not reach it (its
    store is closed)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


async def opened(home: Path, theme: str, size: tuple[int, int] = (1340, 820)) -> Any:
    """The real window over ``home`` in ``theme``, shown, its start-up work done (the
    model check gives up quickly: no server runs here), the banner and status hidden."""
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
    window.banner.hide()
    window.statusBar().clearMessage()
    return window


async def settled(rounds: int = 3) -> None:
    from ikgui.ui.loop import application

    for _ in range(rounds):
        application().processEvents()
        await asyncio.sleep(0.05)


def save(widget: Any, out: Path) -> None:
    widget.grab().save(str(out))
    print(f"wrote {out}")


async def closed(window: Any) -> None:
    await window.shutdown()
    window.close()
    gone(window)


async def grab(home: Path, theme: str, out: Path, size: tuple[int, int] = (1340, 820)) -> None:
    window = await opened(home, theme, size)
    for row in list(window.scrollback._held):  # show a rewound group expanded (issue 10)
        if row.kind == "group":
            window.scrollback.expand_group(-row.id)
    window.scrollback.scroll_to_bottom()
    await settled(5)
    save(window, out)
    await closed(window)


async def grab_first_run(home: Path, out_dir: Path) -> None:
    """The welcome state of an empty database, and the read-only demo window."""
    window = await opened(home, "light")
    await settled()
    save(window, out_dir / "first-run.png")
    window.resize(800, 600)  # the welcome wraps; nothing is cut (issue 13)
    await settled()
    save(window, out_dir / "first-run-800x600.png")
    window.open_demo()
    demo = window.demo_window
    demo.resize(1340, 820)
    demo.statusBar().clearMessage()
    await settled()
    save(demo, out_dir / "demo.png")
    for win in (demo, window):
        await closed(win)


async def grab_transcript(home: Path, theme: str, out: Path) -> None:
    """The transcript of the demo's first conversation: a code block with its header and
    Copy, and the action row under the hovered reply (issue 10)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    from ikgui.ui.transcript.inline_edit import bubble_rect

    window = await opened(home, theme)
    convs = window.store.list_conversations(20)
    first = next((c for c in convs if c.title.startswith("SQLite WAL")), None)
    assert first is not None, "the demo's first conversation is missing"
    window.commands.open_conversation(first.id)
    view = window.scrollback
    reply = next((e for e in view._held if e.kind == "assistant" and "```" in e.content), None)
    assert reply is not None, "the demo's reply with code is missing"
    view.scroll_to_event(reply.id)
    cursor = view.textCursor()  # (no selection shown)
    cursor.clearSelection()
    view.setTextCursor(cursor)
    await settled()
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
    await settled(5)
    save(window, out)
    await closed(window)


async def grab_prompt(home: Path, out_dir: Path) -> None:
    """The working-prompt panel with an unsaved edit, and its version history."""
    window = await opened(home, "light")
    editor = window.working.editor
    editor.setFocus()
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    editor.insertPlainText(", in a quiet harbour at dusk")
    await settled()
    save(window, out_dir / "prompt-unsaved.png")
    window.working.revert_button.click()
    window.working.history_button.click()
    dialog = window.prompt_panel.history_dialog
    await settled()
    save(dialog, out_dir / "prompt-history.png")
    dialog.close()
    await closed(window)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1].startswith("-"):
        print(__doc__)  # not a folder: "--help" once became one, full of screenshots
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "screenshots"
    out_dir.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        populate(home)
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            if os.environ.get("QT_SCALE_FACTOR") == "2":
                out = out_dir / "window-1366x768@2x.png"
                loop.run_until_complete(grab(home, "light", out, (1366, 768)))
                return
            for theme in ("light", "dark"):
                loop.run_until_complete(grab(home, theme, out_dir / f"window-{theme}.png"))
                out = out_dir / f"transcript-{theme}.png"
                loop.run_until_complete(grab_transcript(home, theme, out))
            for width, height in SIZES:
                out = out_dir / f"window-{width}x{height}.png"
                loop.run_until_complete(grab(home, "light", out, (width, height)))
            loop.run_until_complete(grab_first_run(Path(tmp) / "empty", out_dir))
            loop.run_until_complete(grab_prompt(home, out_dir))
    # Qt reads the scale factor once, at start: the 2× shot is taken by a second run, on a
    # screen twice as big (3840×2160 device pixels: 1920×1080 logical).
    with tempfile.TemporaryDirectory() as tmp:
        screen = Path(tmp) / "screen.json"
        screen.write_text(SCREEN.read_text().replace("1920", "3840").replace("1080", "2160"))
        platform = f"offscreen:configfile={screen}"
        scaled = dict(os.environ, QT_SCALE_FACTOR="2", QT_QPA_PLATFORM=platform)
        subprocess.run([sys.executable, __file__, str(out_dir)], env=scaled, check=True)


if __name__ == "__main__":
    main()
