"""config.toml's ``[storage]`` table: which database holds the history.

::

    [storage]
    url = "postgresql://me@db.example:5432/ikgui?sslmode=require"
    password_env = "IKGUI_DB_PASSWORD"   # optional; or the keyring, or ~/.pgpass

A problem with ``url`` (or a ``[storage]`` that is not a table) is reported like every
config problem and also kept in ``Settings.storage_problem``: the store is then not
opened at all, rather than the SQLite file being used for a URL that is merely mistyped.
The URL rules (a PostgreSQL URL, never with a password) are here too, for
``IKGUI_DATABASE_URL`` and ``ikgui db copy``'s URLs (:mod:`ikgui.config.target`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ikgui.domain.settings import Settings

ENV_URL = "IKGUI_DATABASE_URL"
#: The keyring entry (service ``ikgui``) holding the database password.
KEY_NAME = "database"
SCHEMES = ("postgresql", "postgres")
EXAMPLE_URL = "postgresql://user@host:5432/dbname"
PASSWORD_WAYS = (
    "give the password one of three ways: `ikgui keys set database` (the system keyring), "
    "an environment variable named by password_env under [storage] in config.toml, or "
    "~/.pgpass (libpq reads it)"
)

_USERINFO_PASSWORD = re.compile(r"(://[^/?#@:]*):[^/?#]*@")
_PARAM_PASSWORD = re.compile(r"(?i)(\bpassword\s*=\s*)('[^']*'|[^&\s]*)")


def without_password(url: str) -> str:
    """``url`` as it may be shown: any password (``user:secret@`` or ``password=``) cut."""
    return _PARAM_PASSWORD.sub(r"\1***", _USERINFO_PASSWORD.sub(r"\1@", url))


def url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as the store's URL (None: nothing), in plain words that
    never repeat a password."""
    shown = without_password(url)
    scheme, sep, _rest = url.partition("://")
    if not sep or scheme.lower() not in SCHEMES:
        return (
            f"{shown!r} is not a PostgreSQL URL: ikgui can use {EXAMPLE_URL} "
            "(leave the URL out to use the SQLite file)"
        )
    parts = urlsplit(url)
    if parts.password is not None or "password" in url_query(url):
        return (
            f"the URL {shown!r} contains a password, which ikgui never keeps in a URL or in "
            f"config.toml: remove it, and {PASSWORD_WAYS}"
        )
    try:
        parts.port  # noqa: B018 (parsing it is the check)
    except ValueError:
        if "," not in parts.netloc:  # several hosts: libpq's business
            return f"the port in {shown!r} is not a number from 1 to 65535"
    return None


def url_query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


Report = Callable[..., None]  # ``_Problems.add(reason, *keys)`` of ikgui.config.loading
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def load_storage(raw: dict[str, Any], settings: Settings, add: Report, found: list[str]) -> None:
    """Read ``raw["storage"]`` into ``settings``; ``found`` is where ``add`` puts lines."""
    if "storage" not in raw:
        return
    section = raw["storage"]
    if not isinstance(section, dict):
        _blocking(f"[storage] must be a table (e.g. url = {EXAMPLE_URL!r})", settings, add, found)
        return
    for key in section:
        if key not in ("url", "password_env"):
            add(f"unknown setting storage.{key} (ignored)", "storage", key)
    url = section.get("url")
    if url is not None:
        if not isinstance(url, str) or not url.strip():
            _blocking(
                f"storage.url must be a text like {EXAMPLE_URL!r} (got {type(url).__name__})",
                settings,
                add,
                found,
                "url",
            )
        else:
            # Kept even when broken, so that saving the Settings dialog writes it back.
            settings.storage_url = url.strip()
            if (problem := url_problem(url.strip())) is not None:
                _blocking(f"storage.url: {problem}", settings, add, found, "url")
    variable = section.get("password_env")
    if variable is not None:
        if isinstance(variable, str) and _VARIABLE.fullmatch(variable):
            settings.storage_password_env = variable
        else:
            add(
                "storage.password_env must be the name of an environment variable "
                "(e.g. IKGUI_DB_PASSWORD), not the password",
                "storage",
                "password_env",
            )


def _blocking(reason: str, settings: Settings, add: Report, found: list[str], *key: str) -> None:
    add(reason, "storage", *key)
    settings.storage_problem = found[-1]
