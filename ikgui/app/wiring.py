"""Composition shared by the window and the command line: providers built from the
settings and the keys, the model catalogue, and crash recovery at start-up.

Imports the provider adapters and the keyring when a provider is built; never Qt. Every
start-up recovers (``ikgui conv list`` too), so this module itself stays light: no
asyncio, no streaming machinery.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ikgui.domain.errors import ProviderError
from ikgui.domain.ports import Store
from ikgui.domain.session.crashed import recover_unfinished
from ikgui.domain.settings import Settings
from ikgui.domain.text.advice import Advice
from ikgui.local.keys import KeyStore

if TYPE_CHECKING:
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

    def __call__(self, name: str) -> Provider:
        from ikgui.providers import ClientPool, make_provider

        config = self.settings.providers.get(name)
        if config is None:
            raise ProviderError(
                f"The provider '{name}' is not configured.",
                "config",
                advice=Advice("configure_provider", {"provider": name}),
            )
        key = self.keys.get(name, config.api_key_env)
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

        # Built in a worker thread: the first one imports the adapters (httpx, ~100 ms),
        # and the key may wait for the keyring's discovery; the caller's loop goes on.
        provider = await asyncio.to_thread(self, name)
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
