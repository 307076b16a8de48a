"""The PostgreSQL test server itself (tests/support/pg_server.py) and how tools/dev.py
makes sure one can run."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import psycopg
import pytest

from tests.support import pg_server as pg_module
from tests.support.pg_server import PgServer, PgServerError

ROOT = Path(__file__).resolve().parent.parent


def _tables(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
    return [row[0] for row in rows]


def test_a_fresh_database_is_empty_and_its_own(pg_server: PgServer, pg_url: str) -> None:
    assert pg_url.startswith(f"postgresql://ikgui@127.0.0.1:{pg_server.port}/")
    assert _tables(pg_url) == []
    with psycopg.connect(pg_url) as conn:
        conn.execute("CREATE TABLE mine (a integer)")
        assert conn.execute("SELECT current_user").fetchone() == ("ikgui",)
    other = pg_server.create_database()
    assert other != pg_url
    assert _tables(other) == []
    assert _tables(pg_url) == ["mine"]


def test_databases_are_cheap_to_make(pg_server: PgServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's database is one statement on the running server (no server, initdb or
    file copy of its own). How long it takes: benchmarks/bench_notify.py."""
    statements: list[str] = []
    psql = pg_server.psql
    monkeypatch.setattr(pg_server, "psql", lambda sql, *a: statements.append(sql) or psql(sql, *a))
    pid = pg_server.server_pid()
    name = pg_server.create_database().rsplit("/", 1)[1]
    assert statements == [f'CREATE DATABASE "{name}" TEMPLATE template0']
    assert pg_server.server_pid() == pid
    assert pg_server.drop_database(name)


def test_a_database_in_use_is_left_until_its_sessions_end(
    pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = pg_server.create_database().rsplit("/", 1)[1]
    conn = psycopg.connect(pg_server.url(name))
    statements: list[str] = []
    psql = pg_server.psql
    monkeypatch.setattr(pg_server, "psql", lambda sql, *a: statements.append(sql) or psql(sql, *a))
    assert not pg_server.drop_database(name, wait=0.2)
    assert not [s for s in statements if "DROP" in s]  # (a DROP would wait 5 s for it)
    monkeypatch.undo()
    assert conn.execute("SELECT 1").fetchone() == (1,)  # not cut off
    conn.close()
    assert pg_server.drop_database(name)
    assert pg_server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'") == []


def test_restart_keeps_the_port_and_the_data(pg_server: PgServer, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (a integer); INSERT INTO kept VALUES (7)")
    port = pg_server.port
    pg_server.stop()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(pg_url, connect_timeout=2).close()
    pg_server.start()
    assert pg_server.port == port
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT a FROM kept").fetchall() == [(7,)]
    pg_server.restart()
    assert pg_server.port == port
    assert pg_server.psql("SELECT a FROM kept", pg_url.rsplit("/", 1)[1]) == [(7,)]


def test_a_crash_keeps_what_was_committed(pg_server: PgServer, pg_url: str) -> None:
    name = pg_url.rsplit("/", 1)[1]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (a integer)")
        conn.execute("INSERT INTO kept VALUES (1)")
    pg_server.restart("immediate")  # no checkpoint: recovery from the WAL
    assert pg_server.psql("SELECT a FROM kept", name) == [(1,)]
    pg_server.psql("INSERT INTO kept VALUES (2)", name)
    pid = pg_server.server_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # the postmaster killed outright
    deadline = time.monotonic() + 10
    while pg_server.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pg_server.running
    pg_server.start()
    assert pg_server.psql("SELECT a FROM kept ORDER BY a", name) == [(1,), (2,)]


def test_a_connection_open_across_a_restart_fails_and_a_new_one_works(
    pg_server: PgServer, pg_url: str
) -> None:
    conn = psycopg.connect(pg_url, autocommit=True)
    try:
        pg_server.restart()
        with pytest.raises(psycopg.OperationalError):
            conn.execute("SELECT 1")
    finally:
        conn.close()
    assert pg_server.psql("SELECT 1", pg_url.rsplit("/", 1)[1]) == [(1,)]


def test_the_server_is_not_run_as_root(pg_server: PgServer) -> None:
    pid = pg_server.server_pid()
    assert pid is not None
    owner = os.stat(f"/proc/{pid}").st_uid
    assert owner != 0
    if os.geteuid() != 0:
        assert owner == os.geteuid()
    settings = dict(pg_server.psql("SELECT name, setting FROM pg_settings"))
    assert settings["listen_addresses"] == "127.0.0.1"
    assert settings["port"] == str(pg_server.port)
    assert settings["fsync"] == "off"
    assert int(settings["max_connections"]) >= 200
    assert settings["server_encoding"] == "UTF8"


def test_other_roles_must_give_their_password(pg_server: PgServer, pg_url: str) -> None:
    pg_server.psql("DROP ROLE IF EXISTS alice; CREATE ROLE alice LOGIN PASSWORD 's3cret'")
    url = pg_url.replace("ikgui@", "alice@")
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(url, connect_timeout=5).close()
    with psycopg.connect(url, password="s3cret") as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("alice",)


def test_close_stops_the_server_and_removes_its_directory() -> None:
    server = PgServer()
    pid = server.server_pid()
    assert pid is not None and server.dir.is_dir()
    server.close()
    assert not server.dir.exists()
    assert not Path(f"/proc/{pid}").exists() or _is_zombie(pid)
    server.close()  # twice is fine


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def test_a_killed_test_process_leaves_no_server_behind() -> None:
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[1]);"
        "from tests.support.pg_server import PgServer; s = PgServer();"
        "print(s.dir, s.server_pid(), flush=True); time.sleep(60)"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(ROOT)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    directory, pid = child.stdout.readline().split()
    assert Path(f"/proc/{pid}").exists()
    child.kill()  # SIGKILL: no atexit, no finally
    child.wait()
    child.stdout.close()
    deadline = time.monotonic() + 20
    while (Path(directory).exists() or Path(f"/proc/{pid}").exists()) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.1)
    assert not Path(directory).exists()
    assert not Path(f"/proc/{pid}").exists() or _is_zombie(int(pid))


def test_without_server_programs_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pg_module, "find_bin_dir", lambda: None)
    with pytest.raises(PgServerError, match="apt-get install postgresql"):
        PgServer()


def test_the_server_programs_are_found_newest_version_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for version in ("9.6", "15", "16"):
        bin_dir = tmp_path / version / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "initdb").touch()
        (bin_dir / "pg_ctl").touch()
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("IKGUI_PG_BIN", raising=False)
    assert pg_module.find_bin_dir((f"{tmp_path}/*/bin",)) == tmp_path / "16" / "bin"
    assert pg_module.find_bin_dir(("/nonexistent/*/bin",)) is None
    monkeypatch.setenv("IKGUI_PG_BIN", str(tmp_path / "9.6" / "bin"))
    assert pg_module.find_bin_dir((f"{tmp_path}/*/bin",)) == tmp_path / "9.6" / "bin"


# -- tools/dev.py ---------------------------------------------------------------------
def _dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ikgui_dev_tool", ROOT / "tools" / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dev_py_finds_the_server_the_harness_uses() -> None:
    found = _dev().postgres_bin_dir()
    assert found is not None
    assert (found / "initdb").resolve().parent == pg_module.find_bin_dir()


def test_dev_py_installs_debians_package_when_the_server_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = _dev()
    asked: list[list[str]] = []
    monkeypatch.setattr(dev, "postgres_bin_dir", lambda: None)
    monkeypatch.setattr(dev, "apt_install", lambda packages: asked.append(packages) or False)
    dev.ensure_postgres()
    assert asked == [["postgresql"]]
    assert "apt-get install postgresql" in capsys.readouterr().out


def test_dev_py_installs_nothing_when_the_server_is_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dev = _dev()
    monkeypatch.setattr(dev, "apt_install", lambda packages: pytest.fail("installed"))
    dev.ensure_postgres()
