"""config.toml's ``[storage]`` table: which database holds the history.

::

    [storage]
    url = "postgresql://me@db.example:5432/ikgui?sslmode=require"
    password_env = "IKGUI_DB_PASSWORD"   # optional; or the keyring, or ~/.pgpass

A problem with ``url`` (or a ``[storage]`` that is not a table) is reported like every
config problem and also kept in ``Settings.storage_problem``: the store is then not
opened at all, rather than the SQLite file being used for a URL that is merely mistyped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ikgui.domain.settings import Settings
from ikgui.store_choice import EXAMPLE_URL, url_problem

Report = Callable[..., None]  # ``_Problems.add(reason, *keys)`` of ikgui.config
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


def storage_table(settings: Settings) -> dict[str, str]:
    """``[storage]`` as the Settings dialog writes it back (empty: no table)."""
    table: dict[str, str] = {}
    if settings.storage_url:
        table["url"] = settings.storage_url
    if settings.storage_password_env:
        table["password_env"] = settings.storage_password_env
    return table
