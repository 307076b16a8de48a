"""The window's state (issue 22 item 3): one frozen value reduced from the session's
facts without Qt. These are plain tests (no qtbot, no window) over a real session on a
real SQLite file; what the reducer asks of the session is counted."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import Kind
from ikgui.domain.folders import Project
from ikgui.domain.library import folders
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings, ToolServerSettings
from ikgui.domain.state.catalog import ModelGroup
from ikgui.domain.state.facts import (
    ASPECTS,
    Changed,
    DeltaReceived,
    Fact,
    StreamStarted,
    WritesPending,
)
from ikgui.storage import open_store
from ikgui.ui.window.state import (
    DEMO_BANNER,
    EVERYTHING,
    Banner,
    Notes,
    WindowState,
    Writes,
    changed,
    compute,
    reduce,
    touched,
)
from tests.ui.test_read_only_store import opened_read_only


class PlainReading:
    """The reducer's inputs as plain values (the window reads them from its widgets)."""

    def __init__(self, session: Session, demo: bool = False) -> None:
        self.session = session
        self.demo = demo
        self.title_suffix = " (read-only demo)" if demo else ""
        self.asked: Counter[str] = Counter()
        self.shown: str | None = "mock-gpt"
        self.noted = Notes()

    def first_run(self) -> bool:
        self.asked["first_run"] += 1
        store = self.session.store
        return not store.list_conversations(1) and not store.list_conversations(1, trashed=True)

    def models(self) -> tuple[str | None, tuple[ModelGroup, ...]]:
        self.asked["models"] += 1
        return self.shown, ()

    def waiting_for_approval(self) -> bool:
        return False

    def typed(self) -> bool:
        return False

    def notes(self) -> Notes:
        return self.noted


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    store = open_store(tmp_path / "ikgui.db")
    settings = Settings(default_provider="local", default_model="mock-gpt")
    yield Session(store, settings, registry=default_registry())
    store.close()


def counted(session: Session, asked: Counter[str]) -> None:
    """Count the session's enablement checks (``can_run``)."""
    can_run = session.can_run

    def counting(name: str) -> bool:
        asked["can_run"] += 1
        return can_run(name)

    session.can_run = counting  # type: ignore[method-assign]


def collected(session: Session) -> list[Fact]:
    facts: list[Fact] = []
    session.subscribe(facts.append)
    return facts


def test_a_new_conversation_s_state_says_what_the_window_shows(session: Session) -> None:
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    assert state.conversation_id == session.conversation.id
    assert state.welcome  # nothing stored at all
    assert state.title.window == "New conversation — ikgui"
    assert state.title.header == "New conversation" and not state.title.renamable
    assert state.status.model == "local · mock-gpt" and state.status.stream == "Ready"
    assert state.strip is None and state.read_only == "" and not state.streaming
    mark = state.command("actionMark")
    assert mark is not None and mark.command == "mark"
    assert all(c.why_not == "" for c in state.commands if c.enabled)
    assert all(c.why_not for c in state.commands if not c.enabled)


def test_a_streamed_delta_asks_nothing_and_changes_nothing(session: Session) -> None:
    session.append(Kind.USER, "hello")
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    counted(session, reading.asked)
    reading.asked.clear()
    event = session.state.scrollback[-1]
    after = reduce(state, [DeltaReceived(session.conversation.id, event, "more")], reading)
    assert after is state
    assert reading.asked == Counter()  # no enablement check, no model list, no store


def test_a_rename_changes_the_title_and_nothing_else(session: Session) -> None:
    session.append(Kind.USER, "hello")
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    facts = collected(session)
    session.rename(session.conversation.id, "Sky photos")
    assert facts and all(isinstance(f, Changed) and f.aspects == {"title"} for f in facts)
    after = reduce(state, facts, reading)
    assert changed(state, after) == {"title"}
    assert after.title.window == "Sky photos — ikgui" and after.title.renamable


def test_a_rename_asks_no_command_whether_it_can_run(session: Session) -> None:
    session.append(Kind.USER, "hello")
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    counted(session, reading.asked)
    reading.asked.clear()
    facts = collected(session)
    session.rename(session.conversation.id, "Sky photos")
    after = reduce(state, facts, reading)
    assert after.title.header == "Sky photos"
    assert reading.asked == Counter()  # no enablement check, no model list


def test_usage_redraws_the_status_bar_only(session: Session) -> None:
    session.append(Kind.USER, "hello")
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    counted(session, reading.asked)
    reading.asked.clear()
    here = session.conversation.id
    assert touched(Changed(here, aspects=frozenset({"usage"})), here) == {"status"}
    # (tags may file it into a project, or out: its tools; nothing else of the chrome)
    assert touched(Changed(here, aspects=frozenset({"tags"})), here) == {"tools"}
    after = reduce(state, [Changed(here, aspects=frozenset({"usage"}))], reading)
    assert after == state and reading.asked["can_run"] == 0


def test_every_aspect_maps_to_parts_it_names() -> None:
    here = "c-here"
    for aspect in ASPECTS:
        parts = touched(Changed(here, aspects=frozenset({aspect})), here)
        assert parts <= EVERYTHING
    closing = touched(Changed(here, aspects=frozenset({"status"})), here)
    assert {"strip", "commands"} <= closing and "title" not in closing


def test_a_trashed_conversation_shows_its_strip_and_says_why_commands_cannot_act(
    session: Session,
) -> None:
    session.append(Kind.USER, "hello")
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    facts = collected(session)
    session.trash(session.conversation.id)
    after = reduce(state, facts, reading)
    assert after.strip == "trashed"
    assert {"strip", "commands"} <= changed(state, after)
    mark = after.command("actionMark")
    assert mark is not None and not mark.enabled
    assert mark.why_not == "In the Trash: restore it first"


def test_the_demo_is_read_only_and_not_renamable(session: Session) -> None:
    session.append(Kind.USER, "hello")
    state = reduce(None, [None], PlainReading(session, demo=True))
    assert state.read_only == "the demo" and not state.welcome
    assert state.title.window.endswith(" (read-only demo) — ikgui")
    assert not state.title.renamable


def test_marks_and_writes_are_parts_of_the_state(session: Session) -> None:
    session.append(Kind.USER, "hello")
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    facts = collected(session)
    session.mark("here")
    after = reduce(state, facts, reading)
    assert [label for _, label in after.marks] == ["here"]
    assert after.newest[1] == str(Kind.MARK)
    assert after.writes.count == 0
    assert reduce(after, [WritesPending(None)], reading).writes == after.writes


def test_config_problems_then_the_model_server_are_the_banner(session: Session) -> None:
    reading = PlainReading(session)
    reading.noted = Notes(problems=("defaults.text_size: not a number",))
    state = reduce(None, [None], reading)
    assert state.banner == Banner(
        "config.toml: defaults.text_size: not a number (defaults are used)", "config"
    )
    reading.noted = reading.noted.heard("Could not connect to http://127.0.0.1:9.")
    after = compute(state, {"banner"}, reading)
    assert changed(state, after) == {"banner"}
    assert after.banner == Banner("Could not connect to http://127.0.0.1:9.", "server")
    reading.noted = reading.noted.retired("server")  # an error card says it now
    assert compute(after, {"banner"}, reading).banner is None  # (and nothing comes back)
    assert reading.noted.retired("server") is reading.noted  # (nothing to retire)
    reading.noted = reading.noted.heard("Could not connect again.")
    assert compute(after, {"banner"}, reading).banner == Banner(
        "Could not connect again.", "server"
    )
    reading.noted = reading.noted.settings_saved()
    assert compute(after, {"banner"}, reading).banner is None


def test_the_demo_s_banner_wins_and_offers_no_settings(session: Session) -> None:
    reading = PlainReading(session, demo=True)
    reading.noted = Notes(problems=("x",), server="Could not connect.")
    state = reduce(None, [None], reading)
    assert state.banner == Banner(DEMO_BANNER, "demo", settings=False)


def test_a_store_opened_read_only_is_the_banner(tmp_path: Path) -> None:
    path = tmp_path / "ikgui.db"
    open_store(path).close()
    store = opened_read_only(path)  # (what open_store gives when the disk is full)
    try:
        session = Session(store, Settings(default_provider="local"), registry=default_registry())
        reading = PlainReading(session)
        reading.noted = Notes(server="Could not connect.")
        banner = reduce(None, [None], reading).banner
        assert banner is not None and banner.topic == "store" and not banner.settings
        assert "free some space and restart ikgui" in banner.text
    finally:
        store.close()


def test_the_writes_waiting_are_counted_in_the_state(session: Session) -> None:
    state = reduce(None, [None], PlainReading(session))
    assert state.writes == Writes()
    assert touched(WritesPending(None), state.conversation_id) == {"writes", "banner"}


def test_one_function_maps_facts_to_parts() -> None:
    here, there = "c-here", "c-there"
    assert touched(None, here) == EVERYTHING
    assert touched(StreamStarted(there), here) == {"commands"}
    assert {"streaming", "status", "commands"} <= touched(StreamStarted(here), here)
    assert touched(Changed(there, aspects=frozenset({"title"})), here) == frozenset()
    assert "title" in touched(Changed(here, aspects=frozenset({"title"})), here)
    assert touched(Changed(here, aspects=frozenset({"replayed"})), here) == EVERYTHING
    assert touched(WritesPending(None), here) == {"writes", "banner"}


def test_another_conversation_on_screen_reads_every_part(session: Session) -> None:
    session.append(Kind.USER, "first")
    reading = PlainReading(session)
    state = reduce(None, [None], reading)
    session.new_conversation()
    after = compute(state, frozenset(), reading)  # (no fact said so)
    assert after.conversation_id == session.conversation.id != state.conversation_id
    assert after.title.header == "New conversation"


def test_the_state_is_frozen() -> None:
    state = WindowState()
    with pytest.raises(AttributeError):
        state.streaming = True  # type: ignore[misc]


def test_the_state_module_loads_no_qt() -> None:
    code = (
        "import sys, ikgui.ui.window.state\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')]\n"
        "assert not loaded, loaded\n"
    )
    run: Any = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_a_project_s_tools_are_read_from_the_store_once_not_at_every_state_read(
    tmp_path: Path,
) -> None:
    store = open_store(tmp_path / "ikgui.db")
    settings = Settings(default_provider="local", default_model="mock-gpt")
    for name in ("clock", "files"):
        settings.tool_servers[name] = ToolServerSettings(name, command="no-such-server")
    folders.set_project(store, Project("work", tools=("clock",)))
    session = Session(store, settings, registry=default_registry())
    reads = Counter[str]()
    projects = store.projects

    def counted(*args: Any) -> Any:
        reads["projects"] += 1
        return projects(*args)

    store.projects = counted  # type: ignore[method-assign]
    try:
        session.new_conversation(project="work/acme")
        session.append(Kind.USER, "hello")
        read = reads["projects"]
        reading = PlainReading(session)
        state = reduce(None, [None], reading)
        assert state.tools.text == "Tools 1/2"  # the project's, not every server
        for _ in range(5):
            state = compute(state, {"tools"}, reading)
        assert reads["projects"] == read
        facts = collected(session)
        session.library.set_project(Project("work", tools=("clock", "files")))
        after = reduce(state, facts, reading)
        assert after.tools.text == "Tools 2/2" and reads["projects"] == read + 1
        assert reduce(after, facts, reading) == after and reads["projects"] == read + 1
        # Filed out of the project: the agent's choice (every server), no read.
        facts.clear()
        session.retag(["-work/acme"])
        assert reduce(after, facts, reading).tools.text == "Tools 2/2"
        session.retag(["+home"])
        facts.clear()
        session.library.set_project(Project("home", tools=()))
        assert reduce(after, facts, reading).tools.text == "Tools 0/2"
    finally:
        store.close()
