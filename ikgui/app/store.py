"""Opening the store ikgui is told to use (see :mod:`ikgui.config.target` for the choice):
the command line's ``Env`` and the window's ``build_window`` call
:func:`open_chosen_store`. psycopg and the PostgreSQL store load only for a URL."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ikgui.config.target import (
    KEY_NAME,
    StoreTarget,
    choose,
    password_for,
    password_source,
    postgres_target,
    sqlite_target,
)
from ikgui.domain.settings import Settings
from ikgui.local.keys import KeyStore
from ikgui.local.paths import Paths

if TYPE_CHECKING:
    from ikgui.storage import PeeweeStore

__all__ = [
    "KEY_NAME",
    "StoreTarget",
    "choose",
    "open_chosen_store",
    "open_target",
    "password_for",
    "password_source",
    "postgres_target",
    "sqlite_target",
]


def open_target(target: StoreTarget, settings: Settings, keys: KeyStore) -> PeeweeStore:
    """Open ``target`` (creating or upgrading its schema) with its password."""
    from ikgui.storage import open_store

    if target.url is None:
        return open_store(target.location)
    # The keyring is asked only when the server wants a password: loading it costs a
    # new process (``ikgui conv list``) ~100 ms, and many servers never ask.
    return open_store(target.url, password=lambda: password_for(target, settings, keys))


def open_chosen_store(paths: Paths, settings: Settings, keys: KeyStore) -> PeeweeStore:
    """The store the environment and config.toml choose, opened (see :func:`choose`)."""
    return open_target(choose(paths, settings), settings, keys)
