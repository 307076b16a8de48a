"""Opening the chosen PostgreSQL store from the command line, against a real server
(issue 14 item 1): the password's three sources (keyring, the variable named in config,
~/.pgpass as libpq reads it), libpq parameters such as ``sslmode`` honoured, a newer
schema refused, and psycopg missing said in one line."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import keyring
import pytest

from ikgui.storage import open_store
from tests.cli.conftest import Cli
from tests.support.memkeyring import MemoryKeyring
from tests.support.pg_server import PgServer

PSYCOPG_MESSAGE = "Error: Using a PostgreSQL database needs psycopg: pip install 'ikgui[postgres]'"


@pytest.fixture
def role(pg_server: PgServer, pg_url: str) -> tuple[str, str]:
    """A role that must give a password, owning ``pg_url``'s database: (its URL, password)."""
    name = f"r_{uuid.uuid4().hex[:8]}"
    password = f"pw-{uuid.uuid4().hex}"
    dbname = pg_url.rsplit("/", 1)[1]
    pg_server.psql(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
    pg_server.psql(f'ALTER DATABASE "{dbname}" OWNER TO {name}')
    return f"postgresql://{name}@{pg_server.host}:{pg_server.port}/{dbname}", password


def use(cli: Cli, monkeypatch: pytest.MonkeyPatch, url: str, config: str = "") -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(config, encoding="utf-8")
    monkeypatch.setenv("IKGUI_DATABASE_URL", url)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(cli.home / "no-such-pgpass"))


def test_without_a_password_the_role_is_refused_in_plain_words(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, role: tuple[str, str]
) -> None:
    use(cli, monkeypatch, role[0])
    result = cli("conv", "list")
    assert result.code == 1 and result.err.startswith("Error: ")
    assert "Traceback" not in result.err
    assert not (cli.home / "ikgui.db").exists()
    # Issue 21 item 14: none was given, so none was refused; where to set one is said.
    assert "refused" not in result.err and "none was given" in result.err
    for where in ("ikgui keys set database", "password_env", "~/.pgpass"):
        assert where in result.err


def test_a_wrong_password_is_said_to_be_refused(
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    role: tuple[str, str],
    memory_keyring: MemoryKeyring,
) -> None:
    use(cli, monkeypatch, role[0])
    memory_keyring.set_password("ikgui", "database", "not-the-password")
    result = cli("conv", "list")
    assert result.code == 1 and "refused the password" in result.err
    assert "Traceback" not in result.err


def test_the_password_from_the_keyring(
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    role: tuple[str, str],
    memory_keyring: MemoryKeyring,
) -> None:
    url, password = role
    use(cli, monkeypatch, url)
    memory_keyring.set_password("ikgui", "database", password)
    assert cli.ok("conv", "list").out.strip() == "No conversations."
    assert "stored in the system keyring" in cli.ok("--paths").out


class CountingKeyring(MemoryKeyring):
    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.asked += 1
        return super().get_password(service, username)


def test_the_keyring_is_asked_only_when_the_server_wants_a_password(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, pg_url: str, role: tuple[str, str]
) -> None:
    """Loading the keyring costs a new process ~100 ms: a server that lets the user in
    without a password (trust, or ~/.pgpass) never makes ikgui ask it."""
    counting = CountingKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(counting)
    try:
        url, password = role  # this role must give its password: it is asked
        counting.set_password("ikgui", "database", password)
        use(cli, monkeypatch, url)
        assert cli.ok("conv", "list").out.strip() == "No conversations."
        assert counting.asked == 1
        use(cli, monkeypatch, pg_url)  # the test server trusts its own user (a superuser)
        assert cli.ok("conv", "list").out.strip() == "No conversations."
        assert counting.asked == 1
    finally:
        keyring.set_keyring(previous)


def test_the_password_from_the_variable_named_in_config(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, role: tuple[str, str]
) -> None:
    url, password = role
    use(cli, monkeypatch, url, '[storage]\npassword_env = "TEAM_DB_PASSWORD"\n')
    monkeypatch.setenv("TEAM_DB_PASSWORD", password)
    cli.ok("run", "/title hello from the env password")
    out = cli.ok("db", "status").out
    assert "Conversations: 1 (0 in the Trash)" in out and password not in out


def test_the_password_from_a_pgpass_file_as_libpq_reads_it(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, role: tuple[str, str], pg_server: PgServer
) -> None:
    url, password = role
    use(cli, monkeypatch, url)
    name, dbname = url.split("//", 1)[1].split("@", 1)[0], url.rsplit("/", 1)[1]
    pgpass = cli.home / "pgpass"
    pgpass.write_text(f"{pg_server.host}:{pg_server.port}:{dbname}:{name}:{password}\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    cli.ok("run", "/title hello from pgpass")
    assert "hello from pgpass" in cli.ok("conv", "list").out
    assert "libpq reads ~/.pgpass" in cli.ok("--paths").out


def test_sslmode_is_handed_to_libpq(cli: Cli, monkeypatch: pytest.MonkeyPatch, pg_url: str) -> None:
    use(cli, monkeypatch, pg_url + "?sslmode=disable&application_name=ikgui-test")
    cli.ok("run", "/title over plain TCP")
    use(cli, monkeypatch, pg_url + "?sslmode=require")
    result = cli("conv", "list")  # the test server has no SSL: libpq must refuse
    assert result.code == 1 and result.err.startswith("Error: ")
    assert "SSL" in result.err and "Traceback" not in result.err


def test_a_newer_schema_is_refused(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, pg_url: str, pg_server: PgServer
) -> None:
    open_store(pg_url).close()
    pg_server.psql(
        "UPDATE ikgui_meta SET value = '99' WHERE key = 'schema_version'",
        pg_url.rsplit("/", 1)[1],
    )
    use(cli, monkeypatch, pg_url)
    for args in (("db", "status"), ("conv", "list")):
        result = cli(*args)
        assert result.code == 1 and "newer" in result.err and "Traceback" not in result.err


#: ``python -m ikgui`` where ``import psycopg`` fails as when it is not installed.
NO_PSYCOPG = "import sys; sys.modules['psycopg'] = None; from ikgui.__main__ import main; "
NO_PSYCOPG += "sys.exit(main())"


def _without_psycopg(home: Path, *args: str, url: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, IKGUI_HOME=str(home))
    env.pop("IKGUI_DATABASE_URL", None)
    if url is not None:
        env["IKGUI_DATABASE_URL"] = url
    return subprocess.run(
        [sys.executable, "-c", NO_PSYCOPG, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_psycopg_a_url_says_what_to_install(tmp_path: Path) -> None:
    home = tmp_path / "home"
    url = "postgresql://me@127.0.0.1:1/db"
    # The SQLite file never needs psycopg.
    assert _without_psycopg(home, "conv", "list", url=None).returncode == 0
    for args in (("conv", "list"), ("db", "status")):
        done = _without_psycopg(home, *args, url=url)
        assert done.returncode == 1
        assert done.stderr.strip() == PSYCOPG_MESSAGE
    done = _without_psycopg(home, "db", "copy", "--to", url, url=None)
    assert done.returncode == 1 and done.stderr.strip() == PSYCOPG_MESSAGE
