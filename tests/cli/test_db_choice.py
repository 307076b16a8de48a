"""The command line and the chosen store (issue 14 item 1): ``--paths`` names it, a broken
choice is an error (never the SQLite file instead), ``ikgui keys set database``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.support.memkeyring import MemoryKeyring

SECRET = "correct-horse-battery"


def configure(cli: Cli, text: str) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(text, encoding="utf-8")


def test_paths_names_the_sqlite_store_by_default(cli: Cli) -> None:
    out = cli.ok("--paths").out
    assert f"store:    SQLite {cli.home / 'ikgui.db'}" in out.splitlines()
    assert "password" not in out


def test_paths_names_the_postgresql_store_and_where_its_password_comes_from(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring
) -> None:
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    monkeypatch.setenv("IKGUI_DB_PW", SECRET)
    configure(
        cli,
        '[storage]\nurl = "postgresql://me@db.example:6543/team?sslmode=require"\n'
        'password_env = "IKGUI_DB_PW"\n',
    )
    out = cli.ok("--paths").out
    assert "store:    PostgreSQL me@db.example:6543/team" in out.splitlines()
    assert "password: from the environment variable IKGUI_DB_PW" in out.splitlines()
    assert SECRET not in out
    status = cli.ok("keys", "status").out
    assert "database: from the environment variable IKGUI_DB_PW" in status.splitlines()


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ('[storage]\nurl = "mysql://me@host/db"\n', "is not a PostgreSQL URL"),
        ("storage = 3\n", "[storage] must be a table"),
        (f'[storage]\nurl = "postgresql://me:{SECRET}@host/db"\n', "contains a password"),
    ],
)
def test_a_broken_choice_is_an_error_and_the_sqlite_file_is_not_used(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, config: str, words: str
) -> None:
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    configure(cli, config)
    for args in (("conv", "list"), ("run", "/title x"), ("db", "status"), ("--paths",)):
        result = cli(*args)
        assert result.code == 1, args
        assert words in result.err and result.err.startswith("Error: "), args
        assert "Traceback" not in result.err and SECRET not in result.err + result.out
    assert not (cli.home / "ikgui.db").exists()


def test_a_broken_url_in_the_environment_is_an_error(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IKGUI_DATABASE_URL", "sqlite:///tmp/x.db")
    result = cli("conv", "list")
    assert result.code == 1
    assert "IKGUI_DATABASE_URL" in result.err and "is not a PostgreSQL URL" in result.err
    assert not (cli.home / "ikgui.db").exists()


def test_keys_set_database_stores_the_password_in_the_keyring_only(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f" {SECRET} \n"))
    result = cli.ok("keys", "set", "database")
    assert result.out.strip() == "Stored the database password in the system keyring."
    assert "Warning" not in result.err  # "database" is not a provider, and needs not be
    assert memory_keyring.secrets[("ikgui", "database")] == f" {SECRET} "  # kept as typed
    configure(cli, '[storage]\nurl = "postgresql://me@db.example/team"\n')
    assert "database: stored in the system keyring" in cli.ok("keys", "status").out
    on_disk = b"".join(p.read_bytes() for p in cli.home.rglob("*") if p.is_file())
    assert SECRET.encode() not in on_disk
    assert cli.ok("keys", "delete", "database").out.strip() == "Deleted the database password."
    assert ("ikgui", "database") not in memory_keyring.secrets


def test_keys_status_without_postgresql_has_no_database_line(cli: Cli, tmp_path: Path) -> None:
    assert "database" not in cli.ok("keys", "status").out
