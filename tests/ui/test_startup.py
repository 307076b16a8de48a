"""Start-up: what the first paint does not need is loaded after it (the HTTP stack, the
providers, the keyring, the settings dialog, the demo, the welcome, QtNetwork, the full
replay of the last conversation, dialogs and rarely drawn parts of the transcript), and
the window still opens on the end of the last conversation with a full page behind it."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QTextFormat
from pytestqt.qtbot import QtBot

from ikgui.domain.events import Conversation, Event
from ikgui.storage import open_store
from ikgui.ui import icons
from ikgui.ui.first_paint import FirstPaint
from ikgui.ui.transcript.scrollback import FIRST_SCREEN, PAGE_SIZE, ScrollbackView
from tests.ui.test_window import closed, opened

#: Not needed to paint the window: loaded (if at all) after the first paint.
LAZY = (
    "httpx",
    "httpcore",
    "ikgui.providers",
    "keyring",
    "ikgui.ui.settings.dialog",
    "ikgui.ui.welcome",
    "ikgui.domain.session.demo",
    "PySide6.QtNetwork",
    "importlib.resources",
    "pygments",
    # Drawn or opened later, if at all: the stream renderer (a reply streaming; its
    # warm-up runs after the paint), fork/close notices and prompt cards (when one is
    # drawn), the full-text and table viewers, the tag editor and Manage tags.
    "ikgui.ui.transcript.stream_render",
    "ikgui.ui.transcript.stream_blocks",
    "ikgui.ui.transcript.branch_notices",
    "ikgui.ui.transcript.prompt_cards",
    "ikgui.ui.prompt.diff_text",
    "ikgui.ui.transcript.reply_viewer",
    "ikgui.ui.sidebar.tag_editor",
    "ikgui.ui.sidebar.manage_tags",
    # The log file's handler (the log opens once the window is painted) and the bug
    # dialog (when a bug is shown).
    "logging.handlers",
    "ikgui.ui.bug_dialog",
)

#: ``ikgui`` as a user starts it (``ikgui.__main__.main``), reporting at the window's
#: first paint which of ``LAZY`` are loaded and what the transcript shows, then closing.
DRIVER = """
import importlib.util, json, sys
LAZY = sys.argv[1].split(",")

def watch(app):
    from PySide6.QtCore import QEvent, QObject, QTimer
    from ikgui.storage.repository import SqliteStore
    build = app.build_window
    read = []  # the conversation's events read in full (a replay)
    events = SqliteStore.events

    def counted(self, *args, **kwargs):
        read.append(1)
        return events(self, *args, **kwargs)

    SqliteStore.events = counted
    counts = SqliteStore.tag_counts
    tagged = []  # tag counts read (a scan of every tag row)

    def counted_tags(self, *args, **kwargs):
        tagged.append(1)
        return counts(self, *args, **kwargs)

    SqliteStore.tag_counts = counted_tags

    class Watch(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint and not hasattr(self, "seen"):
                self.seen = [m for m in LAZY if m in sys.modules]
                self.read = len(read)
                self.tagged = len(tagged)
                QTimer.singleShot(0, self.report)
            return False

        def report(self):
            view = self.window.scrollback
            bar = view.verticalScrollBar()
            self.painted = {
                "loaded": self.seen,
                "replayed": self.read > 0,
                "tags_counted": self.tagged > 0,
                "last": view.item_texts()[-1:],
                "at_bottom": bar.value() == bar.maximum(),
            }
            self.window.first_paint.then(self.after)

        def after(self):
            import logging
            state = self.window.session.state
            files = [
                h.baseFilename for h in logging.getLogger().handlers
                if type(h).__name__ == "RotatingFileHandler"
            ]
            logged = open(files[0], encoding="utf-8").read() if files else ""
            print(json.dumps({
                "then_logged": "held for the log file" in logged,
                **self.painted,
                "then_replayed": len(read) > 0,
                "then_context": len(state.context),
                "then_last": self.window.scrollback.item_texts()[-1:],
                "then_tags": [
                    self.window.sidebar.tag_filter.itemText(i)
                    for i in range(self.window.sidebar.tag_filter.count())
                ],
            }), flush=True)
            self.window.close()

    def built(*args, **kwargs):
        import logging
        logging.getLogger("ikgui.startup_test").info("held for the log file")
        window = build(*args, **kwargs)
        watcher = Watch(window)
        watcher.window = window
        window.installEventFilter(watcher)
        return window

    app.build_window = built

class Finder:
    def find_spec(self, name, path, target=None):
        if name != "ikgui.app.root":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        execute = spec.loader.exec_module
        def exec_module(module):
            execute(module)
            watch(module)
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Finder())
sys.argv = ["ikgui"]
from ikgui.__main__ import main
sys.exit(main())
"""


CODE = "def shown(): return 1"


def make_home(home: Path, messages: int) -> str:
    """A home whose database holds a conversation of ``messages`` messages; returns the
    last message's text."""
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        '[providers.ollama]\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n',
        encoding="utf-8",
    )
    store = open_store(home / "ikgui.db")
    try:
        store.insert_conversation(
            Conversation(id="chat-long", provider="ollama", created_at=1.0, updated_at=1.0)
        )
        store.set_tags("chat-long", ["work"])
        for number in range(messages):
            kind = "user" if number % 2 == 0 else "assistant"
            text = f"message {number}\n\nwith *a* paragraph"
            if number == messages - 3:  # code on the first screen: coloured after the paint
                text = f"message {number}\n\n```python\n{CODE}\n```"
            store.append_event("chat-long", kind, text)
    finally:
        store.close()
    return f"message {messages - 1}\nwith a paragraph"


def test_the_first_paint_loads_only_what_it_shows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    last = make_home(home, 400)
    env = dict(os.environ, IKGUI_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, ",".join(LAZY)],
        env=env,
        text=True,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["loaded"] == []
    assert report["last"] == [last]
    assert report["at_bottom"]
    # It was read from the end of its log; the full replay came after the paint.
    assert not report["replayed"]
    assert report["then_replayed"] and report["then_context"] == 400
    assert report["then_last"] == [last]
    # The tag filter's counts (a scan of every tag row) are read after the paint too.
    assert not report["tags_counted"]
    assert report["then_tags"] == ["Filter by tag", "#work  (1)"]
    # The log file opened after the paint, with what was logged before it.
    assert report["then_logged"]


async def test_the_rest_of_the_last_page_follows_the_first_paint(
    tmp_path: Path, qtbot: QtBot
) -> None:
    home = tmp_path / "home"
    last = make_home(home, 400)
    win = await opened(home, check_timeout=0.3)  # its start-up work done
    try:
        assert win.first_paint.done
        texts = win.scrollback.item_texts()
        assert len(texts) == PAGE_SIZE and texts[-1] == last
        assert texts[0] == f"message {400 - PAGE_SIZE}\nwith a paragraph"
        bar = win.scrollback.verticalScrollBar()
        assert bar.maximum() > 0 and bar.value() == bar.maximum()
        keyword = win.scrollback.document().find("def " + CODE[4:9])
        keyword.setPosition(keyword.selectionStart() + 2)
        coloured = QTextFormat.Property.ForegroundBrush
        qtbot.waitUntil(lambda: keyword.charFormat().hasProperty(coloured))  # after the paint
    finally:
        await closed(win)


def test_a_first_screenful_that_does_not_fill_the_view_gets_more(qtbot: QtBot) -> None:
    view = ScrollbackView()
    qtbot.addWidget(view)
    first_paint = FirstPaint(view)
    view.first_screen_until(first_paint)
    view.resize(700, 2400)  # taller than FIRST_SCREEN one-line items
    events = [Event(i + 1, "chat-test", "user", f"m{i}") for i in range(400)]
    view.show_events(events)  # hidden: laid out when shown, at its real width
    assert len(view.item_texts()) == FIRST_SCREEN
    view.show()
    bar = view.verticalScrollBar()
    assert len(view.item_texts()) > FIRST_SCREEN and bar.maximum() > 0
    assert bar.value() == bar.maximum() and view.item_texts()[-1] == "m399"
    qtbot.waitUntil(lambda: first_paint.done)
    assert len(view.item_texts()) == PAGE_SIZE and view.item_texts()[-1] == "m399"
    assert bar.value() == bar.maximum()


def test_resources_are_found_without_importlib_resources_and_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    icons._resources_root.cache_clear()
    try:
        assert icons.resource_path("icons", "new.svg").is_file()
        monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
        icons._resources_root.cache_clear()  # a package that is no folder: the fallback
        assert icons.resource_path("icons", "new.svg").is_file()
    finally:
        monkeypatch.undo()
        icons._resources_root.cache_clear()
