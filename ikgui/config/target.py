"""Which store ikgui opens: the SQLite file (the default) or a PostgreSQL database.

``IKGUI_DATABASE_URL`` wins over ``[storage] url`` in config.toml; neither means the
SQLite file in the data folder, as always. The URL goes to libpq untouched (``sslmode``,
``connect_timeout``… are honoured), but never with a password: that comes from the
keyring (``ikgui keys set database``), then the environment variable named by
``[storage] password_env``, else from nowhere, and libpq reads ``~/.pgpass`` itself.

A broken choice (an unknown scheme, a password in the URL, a ``[storage]`` that is not a
table) is a :class:`StorageError`: ikgui never falls back to the SQLite file silently.
This module never imports the storage layer (the window uses it for Settings); opening
the chosen store is :mod:`ikgui.app.store`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ikgui.config.storage import ENV_URL, KEY_NAME, url_problem, url_query
from ikgui.domain.errors import StorageError
from ikgui.domain.settings import Settings
from ikgui.local.keys import KeyStore
from ikgui.local.paths import Paths

__all__ = ["ENV_URL", "KEY_NAME", "StoreTarget", "choose", "password_for", "password_source"]


@dataclass(frozen=True)
class StoreTarget:
    """The store to open. ``display`` is what ``--paths``, Settings and messages show:
    "SQLite /…/ikgui.db" or "PostgreSQL user@host:5432/dbname" (never a password)."""

    kind: str  # "sqlite" | "postgresql"
    display: str
    path: Path | None = None
    url: str | None = None
    #: "host:port" of a PostgreSQL server ("" for SQLite).
    where: str = ""
    #: Where the choice came from, in words ("the SQLite file in the data folder").
    origin: str = ""

    @property
    def location(self) -> Path | str:
        """What :func:`ikgui.storage.open_store` takes."""
        if self.url is not None:
            return self.url
        assert self.path is not None
        return self.path


def sqlite_target(path: Path) -> StoreTarget:
    return StoreTarget("sqlite", f"SQLite {path}", path=path, origin="the default")


def postgres_target(url: str, origin: str = "") -> StoreTarget:
    """The target for a PostgreSQL ``url`` (refused with a StorageError if it is broken)."""
    problem = url_problem(url)
    if problem is not None:
        raise StorageError(f"Cannot use {origin or 'the database URL'}: {problem}.")
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in url_query(url).items()}
    user = unquote(parts.username or "") or query.get("user") or _os_user()
    hostport = parts.netloc.rpartition("@")[2]
    if "," in hostport:
        where = hostport
    else:
        host = parts.hostname or query.get("host") or os.environ.get("PGHOST") or "localhost"
        if ":" in host:
            host = f"[{host}]"
        port = parts.port or query.get("port") or os.environ.get("PGPORT") or 5432
        where = f"{host}:{port}"
    dbname = unquote(parts.path.lstrip("/")) or query.get("dbname") or user
    return StoreTarget(
        "postgresql", f"PostgreSQL {user}@{where}/{dbname}", url=url, where=where, origin=origin
    )


def _os_user() -> str:
    user = os.environ.get("PGUSER")
    if user:
        return user
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "?"


def choose(
    paths: Paths, settings: Settings, environ: Mapping[str, str] | None = None
) -> StoreTarget:
    """The store ``IKGUI_DATABASE_URL``, else config.toml's ``[storage] url``, else the
    SQLite file asks for; a StorageError (in plain words) when that choice is broken."""
    environ = os.environ if environ is None else environ
    url = environ.get(ENV_URL, "").strip()
    if url:
        return postgres_target(url, f"the environment variable {ENV_URL}")
    if settings.storage_problem:
        raise StorageError(
            f"{settings.storage_problem}. ikgui does not fall back to the SQLite file while "
            f"[storage] is broken: fix it, or remove it to use {paths.database}."
        )
    if settings.storage_url:
        return postgres_target(settings.storage_url, "[storage] url in config.toml")
    return sqlite_target(paths.database)


def password_for(
    target: StoreTarget,
    settings: Settings,
    keys: KeyStore,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The password for ``target``: the keyring's "database" entry, then the variable
    named by ``[storage] password_env``; None lets libpq read ``~/.pgpass``."""
    return _password(target, settings, keys, environ)[0]


def password_source(
    target: StoreTarget,
    settings: Settings,
    keys: KeyStore,
    environ: Mapping[str, str] | None = None,
) -> str:
    """Where ``target``'s password comes from, in words (never the password)."""
    return _password(target, settings, keys, environ)[1]


def _password(
    target: StoreTarget,
    settings: Settings,
    keys: KeyStore,
    environ: Mapping[str, str] | None,
) -> tuple[str | None, str]:
    if target.kind != "postgresql":
        return None, "none needed (a file on this computer)"
    environ = os.environ if environ is None else environ
    stored = keys.get(KEY_NAME)
    if stored:
        return stored, "stored in the system keyring (ikgui keys set database)"
    variable = settings.storage_password_env
    if variable and environ.get(variable):
        return environ[variable], f"from the environment variable {variable}"
    unset = f" ({variable} is not set)" if variable else ""
    return None, f"none stored{unset}: libpq reads ~/.pgpass (or PGPASSFILE) if the server asks"


#: Said of the database's password while the keyring is asked (``store_summary``
#: without keys: a window asks it from a worker thread).
LOOKING_UP = "looking in the system keyring…"


def store_summary(
    store: object, settings: Settings, keys: KeyStore | None
) -> tuple[str, str | None] | None:
    """What Settings shows: the open store ("PostgreSQL me@host:5432/db") and where its
    password comes from (None for the SQLite file; :data:`LOOKING_UP` without ``keys``);
    None for a store that is neither (the tests' store in memory)."""
    describe = getattr(store, "describe", None)
    if not callable(describe):
        return None
    display = str(describe())
    if getattr(store, "kind", None) != "postgresql":
        return display, None
    if keys is None:
        return display, LOOKING_UP
    return display, password_source(StoreTarget("postgresql", display), settings, keys)
