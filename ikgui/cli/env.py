"""What every command of the command line needs: paths, settings, keys, the store and the
providers, opened on first use. Its own module, so that the commands import it and it
imports none of them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ikgui.app.wiring import Providers, recover
from ikgui.cli.output import error
from ikgui.config.loading import load_settings
from ikgui.domain.ports import Store
from ikgui.domain.settings import Settings
from ikgui.local.keys import KeyStore
from ikgui.local.paths import Paths, resolve

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.storage import PeeweeStore


class Env:
    """What every command needs: paths, settings and the store (opened on first use, so
    that ``ikgui keys`` and ``ikgui db`` work whatever the chosen store's state)."""

    def __init__(self, home: Path | None = None) -> None:
        self.paths: Paths = resolve(home)
        self.settings: Settings = load_settings(self.paths.config)
        for problem in self.settings.problems:
            if problem != self.settings.storage_problem:  # opening the store says it
                error(f"Warning: {problem}")
        # A keyring that never answers is waited for a few seconds, then said once;
        # SIGTERM and Ctrl+C end the wait at once.
        self.keys = KeyStore(lambda line: error(f"Warning: {line}"), interruptible=True)
        self._store: PeeweeStore | None = None
        self._providers: Providers | None = None

    @property
    def store(self) -> PeeweeStore:
        if self._store is None:
            from ikgui.app.store import open_chosen_store

            store = open_chosen_store(self.paths, self.settings, self.keys)
            if store.read_only is not None:
                error(f"Warning: {store.read_only}.")
            else:
                recover(store)
            self._store = store
        return self._store

    @property
    def store_name(self) -> str:
        """The store in use, in words: its SQLite file, or "PostgreSQL user@host:port/db"."""
        if self._store is None:
            return str(self.paths.database)
        path = self._store.dialect.path
        return str(path) if path is not None else self._store.dialect.describe()

    @property
    def providers(self) -> Providers:
        if self._providers is None:
            self._providers = Providers(self.settings, self.keys)
        return self._providers

    def session(self, store: Store | None = None, *, tools: bool = False) -> Session:
        """A session on the store, for the commands that act as the window does (``run``,
        ``conv reopen``): loaded only for them (it brings asyncio and the commands).
        ``tools``: with the configured MCP servers (none started yet; whoever asks for
        them closes ``session.tools.host``)."""
        from ikgui.domain.commands.handlers import default_registry
        from ikgui.domain.session.session import Session

        host = None
        if tools and any(server.enabled for server in self.settings.tool_servers.values()):
            from ikgui.app.wiring import tool_host
            from ikgui.cli.approval import ReportedHost

            host = ReportedHost(tool_host(self.settings, self.keys))
        return Session(
            store or self.store,
            self.settings,
            registry=default_registry(),
            provider_factory=self.providers,
            model_lister=self.providers.known_models,
            export_dir=self.paths.exports,
            tool_host=host,
        )

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
