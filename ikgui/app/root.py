"""Composition root: the QApplication, the qasync loop, the store, providers and keys,
the session, and the window; shut down cleanly. Nothing imports this module."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt

from ikgui.app.wiring import Providers, recover, tool_host
from ikgui.config.loading import load_settings, save_settings
from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.errors import DatabaseUnreachable, IkguiError
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings, ToolServerSettings
from ikgui.domain.tools import ServerState
from ikgui.files import checked, read_file
from ikgui.local.keys import KeyStore
from ikgui.local.paths import resolve
from ikgui.ui.bugs import install as install_bug_path
from ikgui.ui.loop import application, new_loop
from ikgui.ui.plain import error_box
from ikgui.ui.single_instance import InstanceServer, ask_running_instance
from ikgui.ui.window.assembly import Window, WindowServices, open_window

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ikgui.storage import PeeweeStore

#: The longest the window's thread waits for a PostgreSQL server (seconds; longer when
#: the server usually takes longer): past it, the window treats the server as away.
ANSWER_SECONDS = 0.05


async def test_connection(config: ProviderSettings, key: str | None) -> list[str]:
    """List the provider's models: the Settings dialog's "Test connection"."""
    from ikgui.providers import make_provider

    provider = make_provider(config, key, connect_timeout=5.0, first_byte_timeout=15.0)
    try:
        return await provider.list_models()
    finally:
        await provider.aclose()


async def try_tool_server(config: ToolServerSettings, keys: KeyStore) -> ServerState:
    """Start one server as configured (on a host of its own, stopped after) and say how
    it is: Settings → Tools's "Test"."""
    host = tool_host(Settings(tool_servers={config.name: replace(config, enabled=True)}), keys)
    try:
        [state] = await host.start([config.name])
        return state
    finally:
        await host.close()


def settings_saver(
    session: Session, config: Path | None = None, providers: Providers | None = None
) -> Callable[[Settings], None]:
    """The one place new settings take effect: written to ``config`` (when given), then
    handed to the providers and to the session."""

    def save(new: Settings) -> None:
        if config is not None:
            # Only what changed since the settings in force is written: a key edited in
            # config.toml meanwhile, and every comment, stays as it is.
            save_settings(new, config, before=session.settings)
        if providers is not None:
            providers.settings = new
        session.settings = new

    return save


def always_keeper(session: Session, save: Callable[[Settings], None]) -> Callable[[str, str], None]:
    """ "Always allow" kept for good: the tool joins its server's ``always_allow`` in the
    settings in force, saved to config.toml through the one save path."""

    def keep(server: str, tool: str) -> None:
        settings = session.settings
        config = settings.tool_servers.get(server)
        if config is None or tool in config.always_allow:
            return
        servers = dict(settings.tool_servers)
        servers[server] = replace(config, always_allow=(*config.always_allow, tool))
        save(replace(settings, tool_servers=servers))

    return keep


def _servers(settings: Settings) -> dict[str, ToolServerSettings]:
    """The servers as a host runs them (grants are the session's business, not the host's)."""
    return {n: replace(s, always_allow=()) for n, s in settings.tool_servers.items()}


def tools_following(
    session: Session, save: Callable[[Settings], None], keys: KeyStore, shown: list[Window]
) -> Callable[[Settings], None]:
    """``save``, and when the servers changed (Settings → Tools), a new host for them:
    the old one's servers are stopped in the background."""

    def save_and_follow(new: Settings) -> None:
        before = _servers(session.settings)
        save(new)
        if _servers(new) == before:
            return
        replaced = session.use_tools(tool_host(new, keys))
        assert session.tools is not None
        session.tools.remember_always = always_keeper(session, save_and_follow)
        if shown:
            session.tools.approver = shown[0].pane.approvals.ask
            session.tools.questioner = shown[0].pane.approvals.answer
        if replaced is not None:
            task = asyncio.ensure_future(replaced.close())
            _closing.add(task)
            task.add_done_callback(_closing.discard)

    return save_and_follow


#: Hosts being closed after a change of servers (kept until done).
_closing: set[asyncio.Future[None]] = set()


async def close_tools(session: Session) -> None:
    if session.tools is not None:
        await session.tools.host.close()
    while _closing:
        await asyncio.gather(*_closing, return_exceptions=True)


def closer(*closings: Callable[[], Awaitable[None]] | None) -> Callable[[], Awaitable[None]]:
    """One shutdown step that closes each of ``closings`` in turn (a failure in one
    does not keep the others open)."""

    async def close() -> None:
        for closing in closings:
            if closing is None:
                continue
            try:
                await closing()
            except Exception:  # shutting down: what failed to close is logged, not shown
                logging.getLogger(__name__).exception("closing at shutdown failed")

    return close


def build_window(
    home: Path | None = None, check_timeout: float = 4.0, store: PeeweeStore | None = None
) -> Window:
    """The real window over the store and providers found under ``home`` (or over
    ``store``, already opened: two windows on one database, in tests)."""
    from ikgui.app.store import open_chosen_store

    paths = resolve(home)
    settings = load_settings(paths.config)
    keys = KeyStore()
    if store is None:
        store = open_chosen_store(paths, settings, keys)
    if store.read_only is None:  # a full disk opens it read-only: nothing can be marked
        recover(store)
    providers = Providers(settings, keys, keep_clients=True)
    # MCP servers: none starts before a conversation needs one (SPEC §12).
    tools = tool_host(settings, keys) if settings.tool_servers else None
    session = Session(
        store,
        settings,
        registry=default_registry(),
        provider_factory=providers.build,  # keys looked up off the GUI thread
        model_lister=providers.known_models,
        export_dir=paths.exports,
        tool_host=tools,
    )
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    ui_state = QSettings(str(paths.config_dir / "window.ini"), QSettings.Format.IniFormat)

    shown: list[Window] = []  # (the window, once built: its cards ask new hosts' calls)
    save = tools_following(session, settings_saver(session, paths.config, providers), keys, shown)
    if session.tools is not None:
        session.tools.remember_always = always_keeper(session, save)
    services = WindowServices(
        session=session,
        keys=keys,
        refresh_models=providers.refresh_models,
        test_connection=test_connection,
        save_settings=save,
        ui_state=ui_state,
        problems=list(settings.problems),
        check_timeout=check_timeout,
        on_closed=store.close,
        close_providers=closer(providers.aclose, lambda: close_tools(session)),
        test_tool_server=lambda config: try_tool_server(config, keys),
    )
    services.open_demo, services.read_file, services.check_file = open_demo, read_file, checked
    window = open_window(services)
    shown.append(window)
    if store.kind == "postgresql":  # (a SQLite file is never waited for on a server)
        from ikgui.ui.reconnecting import watch_store

        # A server that stops answering never holds the window's thread for longer.
        store.answer_within(ANSWER_SECONDS)
        watch_store(store, window.statusBar())  # (the bar owns it)
    window.start()
    window.first_paint.then(lambda: after_first_paint(keys))
    window.first_paint.then(lambda: warm_up_rendering(window.scrollback))
    return window


def warm_up_rendering(widget: QWidget) -> None:
    """Render and paint some Markdown off-screen once in ``widget``'s font (the stream
    renderer's module is imported here, after the first paint)."""
    from ikgui.ui.transcript.stream_render import warm_up

    warm_up(widget)


def after_first_paint(keys: KeyStore) -> None:
    """What start-up leaves until the window is painted."""
    # Finding the keyring backend (~100 ms) and importing the providers' modules (httpx,
    # httpcore: ~100 ms) run beside the window, out of the way of the first send.
    threading.Thread(target=warm_up, args=(keys,), name="warm-up", daemon=True).start()
    # What start-up built lives as long as the window: keep it out of the collector's
    # full passes, which otherwise pause a streaming reply for 40-50 ms. (No collection
    # first: start-up leaves a few hundred unreachable objects, not worth ~30 ms here.)
    gc.freeze()
    gc.enable()  # ``ikgui.__main__`` turns it off for the start-up


def warm_up(keys: KeyStore) -> None:
    from ikgui.providers import warm_up as load_http

    load_http()

    keys.probe()


async def _no_models(name: str) -> list[str]:
    return []


def open_demo() -> Window:
    """A read-only window over a demo generated into a throwaway database."""
    from ikgui.domain.session.demo import build_demo
    from ikgui.domain.session.read_only import DEMO
    from ikgui.storage import open_store

    folder = tempfile.TemporaryDirectory(prefix="ikgui-demo-")
    store = open_store(Path(folder.name) / "demo.db")
    session = Session(
        store, Settings(), registry=default_registry(), export_dir=Path(folder.name) / "exports"
    )
    first = build_demo(session)
    session.lock(DEMO)  # generated: from now on the session writes nothing
    ui_state = QSettings(str(Path(folder.name) / "window.ini"), QSettings.Format.IniFormat)
    ui_state.setValue("last_conversation", first)

    def closed() -> None:
        store.close()
        folder.cleanup()

    services = WindowServices(
        session=session,
        keys=KeyStore(),
        refresh_models=_no_models,
        test_connection=test_connection,
        save_settings=settings_saver(session),  # the demo writes no config.toml
        ui_state=ui_state,
        on_closed=closed,
    )
    window = open_window(services)
    window.start()
    window.show()
    return window


def window_theme(home: Path | None) -> str:
    return load_settings(resolve(home).config).theme


def open_main_window(home: Path | None = None) -> Window:
    """Build the window over ``home`` (as ``IKGUI_HOME`` would), show it and return it.

    It runs on the current qasync loop; a test awaits ``window.shutdown()`` (or closes
    the window) when done.
    """
    from ikgui.ui.icons import app_icon
    from ikgui.ui.style import apply_style

    app = application()
    if not app.property("ikgui_styled"):
        apply_style(app, window_theme(home))
        app.setWindowIcon(app_icon())
        app.setProperty("ikgui_styled", True)
    window = build_window(home)
    window.show()
    return window


def _bring_to_front(window: Window) -> None:
    print("ikgui: another launch asked for this window", file=sys.stderr, flush=True)
    window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()


def main(argv: list[str]) -> int:
    app = application([sys.argv[0], *argv])
    app.setApplicationName("ikgui")
    app.setApplicationDisplayName("ikgui")
    app.setDesktopFileName("ikgui")
    app.setQuitOnLastWindowClosed(False)
    database = resolve().database
    if ask_running_instance(database):
        print("ikgui is already open on this database: brought its window to the front.")
        return 0
    loop = new_loop()
    asyncio.set_event_loop(loop)
    # The log file opens once the window is painted (what is logged before waits).
    bug_path = install_bug_path(loop, resolve().data_dir, log_now=False)
    window: Window | None = None
    away: DatabaseUnreachable | None = None
    try:
        window = open_main_window()
    except DatabaseUnreachable as exc:
        away = exc  # a page says so and retries, on the loop below
    except IkguiError as exc:
        bug_path.open_log()
        error_box(None, "ikgui cannot start", exc.message).exec()  # plain text, never HTML
        return 1
    if window is None:
        bug_path.open_log()
    else:
        window.first_paint.then(bug_path.open_log)
    with loop:
        try:
            return int(loop.run_until_complete(run_window(database, window, away)))
        except RuntimeError:
            # Qt ended on its own (the display went away, the session is ending): what
            # was streaming was saved at most a second ago and is marked at next start.
            print("ikgui: the display closed; exiting.", file=sys.stderr)
            return 1


async def run_window(
    database: Path, window: Window | None, away: DatabaseUnreachable | None
) -> int:
    """Until the main window is closed (0); without one, wait for the database ``away``
    first (1 when the user quits meanwhile or it still cannot open)."""
    if window is None:
        assert away is not None
        window = await wait_for_database(away)
        if window is None:
            return 1
    # Listening loads QtNetwork: after the first paint (a second launch meanwhile opens
    # a second window, as one would before this window was built).
    instances: list[InstanceServer] = []
    shown = window
    window.first_paint.then(
        lambda: instances.append(InstanceServer(database, lambda: _bring_to_front(shown)))
    )
    closed = asyncio.get_running_loop().create_future()
    previous = window.services.on_closed

    def finished() -> None:
        for instance in instances:
            instance.close()
        if previous is not None:
            previous()
        if not closed.done():
            closed.set_result(None)

    window.services.on_closed = finished
    await closed
    return 0


async def wait_for_database(error: DatabaseUnreachable) -> Window | None:
    """One page says the database cannot be reached and retries until the main window
    opens (returned), or the user quits (``None``)."""
    from ikgui.ui.db_wait import open_when_reachable
    from ikgui.ui.questions import answered

    try:
        return await open_when_reachable(open_main_window, error, config=resolve().config)
    except IkguiError as exc:  # plain text, never HTML; the loop runs while it is shown
        await answered(error_box(None, "ikgui cannot start", exc.message))
        return None


def self_test() -> int:
    """Open the window offscreen over a throwaway database, run commands, replay, close.

    Used to check that an installed bundle works on a machine without a display.
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.pop("IKGUI_DATABASE_URL", None)  # the throwaway SQLite file, never a server
    app = application([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)
    loop = new_loop()
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="ikgui-self-test-") as folder:
        home = Path(folder)
        (home / "config.toml").write_text(
            '[providers.ollama]\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n',
            encoding="utf-8",
        )
        with loop:
            problems = loop.run_until_complete(_self_test(home))
    if problems:
        for problem in problems:
            print(f"ikgui self-test: FAILED: {problem}", file=sys.stderr)
        return 1
    print("ikgui self-test: ok (window, icons, database, commands, replay)")
    return 0


async def _self_test(home: Path) -> list[str]:
    from ikgui.domain.state.replay import replay_conversation

    problems: list[str] = []
    window = build_window(home, check_timeout=1.0)
    window.show()
    try:
        for line in (
            "/prompt a self-test prompt",
            "/mark check",
            "/title Self-test",
            "/prompt edited after the mark",
            "/rewind check",
        ):
            await window.run_line(line)
        session = window.session
        fresh = replay_conversation(session.store, session.conversation.id)
        live_ids = [e.id for e in session.state.scrollback]
        if [e.id for e in fresh.scrollback] != live_ids or not live_ids:
            problems.append("the replayed conversation differs from the live one")
        if fresh.working_prompt != "a self-test prompt":
            problems.append(f"rewind restored {fresh.working_prompt!r}")
        if window.scrollback.item_texts()[-1] != "Rewound to check":
            problems.append("the scrollback does not show the rewind")
        if window.grab().isNull():
            problems.append("the window could not be painted")
    except Exception as exc:  # the point of a self-test: report, do not crash
        problems.append(f"{type(exc).__name__}: {exc}")
    finally:
        await window.shutdown()
        window.close()
    return problems
