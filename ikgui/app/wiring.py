"""Composition shared by the window and the command line: providers built from the
settings and the keys, the model catalogue, and crash recovery at start-up.

Imports the provider adapters and the keyring when a provider is built; never Qt. Every
start-up recovers (``ikgui conv list`` too), so this module itself stays light: no
asyncio, no streaming machinery.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from ikgui.domain.errors import ProviderError
from ikgui.domain.ports import Store
from ikgui.domain.session.crashed import recover_unfinished
from ikgui.domain.settings import Settings
from ikgui.domain.text.advice import Advice
from ikgui.local.keys import KeyStore

if TYPE_CHECKING:
    from ikgui.domain.settings import ProviderSettings
    from ikgui.domain.streaming import Provider
    from ikgui.providers import ClientPool
    from ikgui.tools import McpHost, SecretSource


def process_alive(pid: int) -> bool:
    """Whether a process with this id still runs (streaming a reply, maybe)."""
    if pid == os.getpid():
        return False  # this process is only starting: nothing of it streams yet
    if sys.platform == "win32":
        return False  # os.kill(pid, 0) would send Ctrl+C there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def recover(store: Store) -> int:
    """Mark replies a crashed process left growing as interrupted."""
    return recover_unfinished(store, process_alive)


class Providers:
    """Builds providers by name from the settings, with keys from the key store.

    With ``keep_clients`` (a window) the providers share their HTTP clients across
    sends (connections stay open; no client is built on the event loop at each send)
    until :meth:`aclose`.

    Called, it asks the key store on the caller's thread (the command line, a worker);
    :meth:`build` is what a window sends with: the keyring may take seconds or never
    answer, so the key is looked up in a worker thread, once per provider, and kept
    until the settings are saved or a key is stored or forgotten in this process.
    """

    def __init__(
        self,
        settings: Settings,
        keys: KeyStore | None = None,
        *,
        keep_clients: bool = False,
        **timeouts: float,
    ) -> None:
        self._settings = settings
        self.keys = keys or KeyStore()
        self.timeouts = timeouts
        self.keep_clients = keep_clients
        self._pool: ClientPool | None = None
        #: The last model list each provider gave (for ``/model`` and the selector).
        self.models: dict[str, list[str]] = {}
        #: Keys looked up by :meth:`build`, per provider, and what they were looked up
        #: under: the settings saved so many times, the key store's changes.
        self._looked_up: dict[str, str | None] = {}
        self._lookups: dict[str, Any] = {}  # provider -> asyncio.Future[str | None]
        self._saved = 0
        self._keys_at = (0, self.keys.changes)

    @property
    def settings(self) -> Settings:
        return self._settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        """New settings: a provider removed, renamed or pointed elsewhere forgets the
        models it listed (``/model`` must not accept, nor the selector offer, the old
        server's models under it)."""
        old = self._settings.providers
        for name in list(self.models):
            if settings.providers.get(name) != old.get(name):
                del self.models[name]
        self._settings = settings
        # Saved in Settings: a key stored meanwhile (``ikgui keys set`` in a terminal)
        # is looked up again.
        self._saved += 1

    def __call__(self, name: str) -> Provider:
        config = self._config(name)
        return self._make(config, self.keys.get(name, config.api_key_env))

    async def build(self, name: str) -> Provider:
        """The provider ``name``, with its key looked up off the event loop's thread."""
        config = self._config(name)
        return self._make(config, await self._key(name, config))

    async def _key(self, name: str, config: ProviderSettings) -> str | None:
        """As :meth:`KeyStore.get`, from a worker thread and kept."""
        import asyncio

        if config.api_key_env and os.environ.get(config.api_key_env):
            return os.environ[config.api_key_env]

        at = (self._saved, self.keys.changes)
        if at != self._keys_at:
            self._looked_up.clear()
            self._lookups.clear()
            self._keys_at = at
        if name in self._looked_up:
            return self._looked_up[name]
        lookup = self._lookups.get(name)
        if lookup is None:
            # One lookup per provider, whoever asks meanwhile (a send and a title);
            # a send stopped while it waits leaves the lookup to finish for the next.
            lookup = asyncio.ensure_future(asyncio.to_thread(self.keys.get, name))
            self._lookups[name] = lookup
        try:
            key: str | None = await asyncio.shield(lookup)
        except asyncio.CancelledError:
            raise
        except Exception:  # the key store answers None for a failure; this is a bug
            self._lookups.pop(name, None)
            raise
        if self._keys_at == at:
            self._looked_up[name] = key
            self._lookups.pop(name, None)
        return key

    def _config(self, name: str) -> ProviderSettings:
        config = self.settings.providers.get(name)
        if config is None:
            raise ProviderError(
                f"The provider '{name}' is not configured.",
                "config",
                advice=Advice("configure_provider", {"provider": name}),
            )
        return config

    def _make(self, config: ProviderSettings, key: str | None) -> Provider:
        from ikgui.providers import ClientPool, make_provider

        limits = {
            "reply_seconds": self.settings.reply_seconds,
            "reply_bytes": self.settings.reply_bytes,
        }
        if self.keep_clients and self._pool is None:
            self._pool = ClientPool()
        return make_provider(config, key, pool=self._pool, **{**limits, **self.timeouts})

    async def aclose(self) -> None:
        """Close the shared HTTP clients (the next send makes new ones)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.aclose()

    def known_models(self, name: str) -> list[str] | None:
        return self.models.get(name)

    async def refresh_models(self, name: str) -> list[str]:
        """Ask the provider for its models (raises ``ProviderError``)."""
        import asyncio

        # Built in a worker thread: the first one imports the adapters (httpx, ~100 ms);
        # the key is the one sends use, looked up in another.
        config = self._config(name)
        key = await self._key(name, config)
        provider = await asyncio.to_thread(self._make, config, key)
        try:
            models = await provider.list_models()
        finally:
            await provider.aclose()
        self.models[name] = models
        return models


def secret_source(keys: KeyStore) -> SecretSource:
    """Where a tool server's secrets come from (SPEC §12): the environment variable of
    that name, else the keyring entry (``mcp.<name>.<VAR>``; ``mcp.<name>`` for an HTTP
    server's bearer token, which has no variable)."""

    def lookup(entry: str, variable: str) -> str | None:
        return keys.get(entry, variable or None)

    return lookup


def tool_host(settings: Settings, keys: KeyStore) -> McpHost:
    """The configured MCP servers (none started yet), with secrets from ``keys``."""
    from ikgui.tools import McpHost  # the mcp SDK: only where tools are wanted

    return McpHost(settings.tool_servers, secret_source(keys))
