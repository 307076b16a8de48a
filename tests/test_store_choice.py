"""Choosing the store (issue 14 item 1): ``IKGUI_DATABASE_URL`` over ``[storage] url`` over
the SQLite file; never a password in a URL or config.toml; the password from the keyring,
then the variable named by ``password_env``, else none (libpq reads ~/.pgpass)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ikgui.config.loading import load_settings, save_settings
from ikgui.config.storage import url_problem, without_password
from ikgui.config.target import choose, password_for, password_source, postgres_target
from ikgui.domain.errors import StorageError
from ikgui.local.keys import KeyStore
from ikgui.local.paths import Paths
from tests.support.memkeyring import MemoryKeyring

SECRET = "hunter2-s3cret"


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    return Paths(tmp_path, tmp_path)


def configure(paths: Paths, text: str) -> None:
    paths.config.write_text(text, encoding="utf-8")


def test_no_url_is_the_sqlite_file_as_before(paths: Paths) -> None:
    target = choose(paths, load_settings(paths.config), environ={})
    assert (target.kind, target.location, target.url) == ("sqlite", paths.database, None)
    assert target.display == f"SQLite {paths.database}"


def test_config_url_selects_postgresql_with_libpq_parameters_untouched(paths: Paths) -> None:
    url = "postgresql://me@db.example:6543/history?sslmode=require&connect_timeout=3"
    configure(paths, f'[storage]\nurl = "{url}"\npassword_env = "IKGUI_DB_PASSWORD"\n')
    settings = load_settings(paths.config)
    assert settings.problems == []
    target = choose(paths, settings, environ={})
    assert target.kind == "postgresql"
    assert target.location == url  # handed to psycopg as conninfo, as written
    assert target.display == "PostgreSQL me@db.example:6543/history"
    assert target.where == "db.example:6543"
    assert settings.storage_password_env == "IKGUI_DB_PASSWORD"


def test_the_environment_wins_over_config(paths: Paths) -> None:
    configure(paths, '[storage]\nurl = "postgresql://me@config-host/a"\n')
    env = {"IKGUI_DATABASE_URL": "postgres://you@env-host/b?application_name=ikgui"}
    target = choose(paths, load_settings(paths.config), environ=env)
    assert target.display == "PostgreSQL you@env-host:5432/b"
    assert target.url == env["IKGUI_DATABASE_URL"]


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://me:{SECRET}@host/db",
        f"postgresql://me@host/db?sslmode=disable&password={SECRET}",
    ],
)
def test_a_password_in_the_url_is_refused_without_echoing_it(paths: Paths, url: str) -> None:
    configure(paths, f'[storage]\nurl = "{url}"\n')
    settings = load_settings(paths.config)
    with pytest.raises(StorageError) as raised:
        choose(paths, settings, environ={})
    message = str(raised.value)
    assert SECRET not in message and all(SECRET not in p for p in settings.problems)
    assert "contains a password" in message
    for way in ("ikgui keys set database", "password_env", "~/.pgpass"):
        assert way in message
    with pytest.raises(StorageError) as from_env:
        choose(paths, load_settings(paths.config / "none"), environ={"IKGUI_DATABASE_URL": url})
    assert SECRET not in str(from_env.value) and "IKGUI_DATABASE_URL" in str(from_env.value)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("storage = 3\n", 1, "[storage] must be a table"),
        ("[storage]\nurl = 5432\n", 2, "storage.url must be a text"),
        ('[storage]\nurl = "mysql://me@host/db"\n', 2, "is not a PostgreSQL URL"),
        ('[storage]\nurl = "postgresql:/host/db"\n', 2, "is not a PostgreSQL URL"),
        ('[storage]\nurl = "postgresql://me@host:54x2/db"\n', 2, "port"),
    ],
)
def test_a_broken_storage_table_is_a_problem_and_never_the_sqlite_file(
    paths: Paths, text: str, line: int, words: str
) -> None:
    configure(paths, text)
    settings = load_settings(paths.config)
    assert any(p.startswith(f"{paths.config}:{line}: ") and words in p for p in settings.problems)
    with pytest.raises(StorageError) as raised:
        choose(paths, settings, environ={})
    assert words in str(raised.value)
    assert "does not fall back to the SQLite file" in str(raised.value)


def test_a_bad_password_env_and_unknown_keys_are_reported(paths: Paths) -> None:
    configure(paths, '[storage]\npassword_env = "not a name!"\ncolour = "blue"\n')
    settings = load_settings(paths.config)
    assert f"{paths.config}:2: storage.password_env must be the name" in settings.problems[1]
    assert settings.problems[0] == f"{paths.config}:3: unknown setting storage.colour (ignored)"
    assert choose(paths, settings, environ={}).kind == "sqlite"  # no URL: nothing to refuse


def test_the_password_comes_from_the_keyring_then_the_named_variable_then_nowhere(
    paths: Paths, memory_keyring: MemoryKeyring
) -> None:
    configure(paths, '[storage]\nurl = "postgresql://me@h/db"\npassword_env = "MY_DB_PW"\n')
    settings = load_settings(paths.config)
    target = choose(paths, settings, environ={})
    keys = KeyStore()
    env = {"MY_DB_PW": "from-env"}
    assert password_for(target, settings, keys, env) == "from-env"
    assert password_source(target, settings, keys, env) == "from the environment variable MY_DB_PW"
    keys.set("database", "from-keyring")
    assert memory_keyring.secrets[("ikgui", "database")] == "from-keyring"
    assert password_for(target, settings, keys, env) == "from-keyring"
    assert "system keyring" in password_source(target, settings, keys, env)
    keys.delete("database")
    assert password_for(target, settings, keys, {}) is None
    assert "~/.pgpass" in password_source(target, settings, keys, {})
    assert "MY_DB_PW is not set" in password_source(target, settings, keys, {})


def test_without_password_cuts_every_form_of_password() -> None:
    assert without_password(f"postgresql://me:{SECRET}@h/db") == "postgresql://me@h/db"
    assert SECRET not in without_password(f"mysql://me:{SECRET}@h/db")
    assert SECRET not in without_password(f"postgresql://h/db?password={SECRET}&x=1")
    assert url_problem("postgresql://me@h:5432/db?sslmode=disable") is None


def test_display_defaults_follow_libpq(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGUSER", "osuser")
    monkeypatch.delenv("PGHOST", raising=False)
    monkeypatch.delenv("PGPORT", raising=False)
    assert postgres_target("postgresql://").display == "PostgreSQL osuser@localhost:5432/osuser"
    assert postgres_target("postgresql://u@[::1]:5433/d").where == "[::1]:5433"
    assert postgres_target("postgresql://u@a:1,b:2/d").where == "a:1,b:2"


def test_the_settings_dialog_keeps_the_storage_table(paths: Paths) -> None:
    configure(paths, '[storage]\nurl = "postgresql://me@h/db"\npassword_env = "PW"\n')
    settings = load_settings(paths.config)
    save_settings(settings, paths.config)
    again = load_settings(paths.config)
    assert (again.storage_url, again.storage_password_env) == ("postgresql://me@h/db", "PW")
    assert again.problems == []
