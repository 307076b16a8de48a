"""A project's tools in the window (issue 26, SPEC §12 and §15): the toolbar's Tools
button shows what the engine will offer a conversation inside a project (its project's
tools, not the agent's), follows an edit of the project and a conversation filed into
it, and reads the projects from the store once, not at every state read. A real window
over a real SQLite file; nothing is started (the servers' commands do not exist)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from ikgui.domain.commands.tools import listing
from ikgui.domain.events import Conversation
from ikgui.domain.folders import Project
from ikgui.domain.library import folders
from ikgui.local.paths import resolve
from ikgui.storage import open_store
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import closed_url
from tests.support.waiting import wait_until
from tests.ui.test_tool_switcher import entries, home_with_servers, item
from tests.ui.test_window import closed, opened

__all__ = ["closed_url"]


def counting_projects(win: MainWindow) -> list[int]:
    """Count the store's reads of the projects from now on (one number, in a list)."""
    store: Any = win.session.store
    reads = [0]
    projects: Callable[..., Any] = store.projects

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads[0] += 1
        return projects(*args, **kwargs)

    store.projects = counted
    return reads


async def project_window(tmp_path: Path, url: str) -> MainWindow:
    """``clock``, ``files`` (and ``old``, off in Settings) configured; the project
    ``work`` offers ``clock`` only; ``chat-in`` is inside it, ``chat-out`` is not."""
    home = home_with_servers(tmp_path, url)
    now = time.time()
    with open_store(resolve(home).database) as store:
        for i, (cid, tags) in enumerate({"chat-in": ("work/acme",), "chat-out": ()}.items()):
            when = now - 10 * (i + 1)
            conv = Conversation(id=cid, title=cid, tags=tags, created_at=when, updated_at=when)
            store.insert_conversation(conv)
        folders.set_project(store, Project("work", tools=("clock",)))
    return await opened(home)


async def test_the_tools_button_shows_the_project_s_tools_and_follows_its_edits(
    tmp_path: Path, closed_url: str, qtbot: QtBot
) -> None:
    win = await project_window(tmp_path, closed_url)
    try:
        tools = win.toolbar_actions.tools
        win.open_conversation("chat-out")
        await wait_until(lambda: win.session.conversation.id == "chat-out")
        # Outside the project: the agent's choice (none: every enabled server).
        await wait_until(lambda: tools.button.text() == "Tools 2/3")
        win.open_conversation("chat-in")
        await wait_until(lambda: win.session.conversation.id == "chat-in")
        # Inside: the project's, as the engine offers them (and /tools says them).
        await wait_until(lambda: tools.button.text() == "Tools 1/3")
        assert entries(win) == [
            ("clock", True, True),
            ("files", False, True),
            ("old", False, False),
        ]
        said = listing(win.session).splitlines()
        assert "  clock [on]" in said[1] and "  files [off]" in said[2]
        # Every state read takes the projects as last read: the store is not asked.
        reads = counting_projects(win)
        item(win, "clock").trigger()
        await wait_until(lambda: tools.button.text() == "Tools 0/3")
        item(win, "clock").trigger()
        await wait_until(lambda: tools.button.text() == "Tools 1/3")
        win.chrome.refresh()
        assert reads[0] == 0

        # The project's settings page: its tools edited, the open conversation follows.
        page = win.commands.selection.open_project("work")
        assert page is not None
        page.tools_edit.setText("clock, files")
        page._accept()
        await wait_until(lambda: tools.button.text() == "Tools 2/3")
        assert entries(win)[:2] == [("clock", True, True), ("files", True, True)]
        read = reads[0]  # (the page and the folder tree read them too)
        for _ in range(3):
            win.chrome.refresh()
        assert reads[0] == read

        # A conversation filed into the project takes its tools.
        page = win.commands.selection.open_project("work")
        assert page is not None
        page.tools_edit.setText("files")
        page._accept()
        win.open_conversation("chat-out")
        await wait_until(lambda: tools.button.text() == "Tools 2/3")
        win.session.retag(["+work"])
        await wait_until(lambda: tools.button.text() == "Tools 1/3")
        assert entries(win)[:2] == [("clock", False, True), ("files", True, True)]
    finally:
        await closed(win)
