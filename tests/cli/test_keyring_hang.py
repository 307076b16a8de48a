"""Issue 21 item 11: a keyring that never answers (a locked Secret Service). The real
``ikgui`` runs with a real keyring backend class that hangs: every call is given up after
a few seconds with one warning (as if no key were stored), and SIGTERM or a single
Ctrl+C stop the command line while it waits. Tests wait for conditions (a marker file
the backend writes, the process's exit), never for time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.cli.test_run import sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.pg_server import PgServer
from tests.support.waiting import wait_for
from tests.support.wire_server import Reply, WireServer

__all__ = ["wire_server", "wire_server_session"]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
ROOT = Path(__file__).resolve().parents[2]
WARNING = "Warning: the system keyring did not answer within 5 s (is it locked?)"


@pytest.fixture
def keyless(cli: Cli, wire_server: WireServer) -> Iterator[WireServer]:
    """A provider with no api_key_env: its key is looked up in the keyring."""
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f'[defaults]\nprovider = "local"\nmodel = "m"\n\n[providers.local]\n'
        f'kind = "openai"\nbase_url = "{wire_server.url}/v1"\n',
        encoding="utf-8",
    )
    yield wire_server


def _start(cli: Cli, *args: str, **env: str) -> subprocess.Popen[str]:
    cli.home.mkdir(parents=True, exist_ok=True)
    environ = dict(
        os.environ,
        IKGUI_HOME=str(cli.home),
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        PYTHON_KEYRING_BACKEND="tests.support.hangkeyring.HangingKeyring",
        IKGUI_TEST_KEYRING_ASKED=str(cli.home / "keyring-asked"),
        **env,
    )
    return subprocess.Popen(
        [sys.executable, "-m", "ikgui", *args],
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err and "unexpectedly" not in err, err
    return out, err


def test_run_goes_on_without_the_key(cli: Cli, keyless: WireServer) -> None:
    keyless.route("/v1/chat/completions", sse_reply("Hello", " there"))
    out, err = _finish(_start(cli, "run", "hi"))
    assert out == "Hello there\n"
    assert err.startswith(WARNING)
    assert "unlock it, or set api_key_env for the provider in config.toml" in err
    assert "authorization" not in keyless.requests[-1].headers


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_run_stops_at_once_while_the_keyring_hangs(
    cli: Cli, keyless: WireServer, signum: int, code: int
) -> None:
    # Should the wait end first, the request hangs too: the signal must stop either.
    keyless.route("/v1/chat/completions", Reply(fault="hang"))
    proc = _start(cli, "run", "hi")
    wait_for(lambda: (cli.home / "keyring-asked").exists() or proc.poll() is not None, 60)
    proc.send_signal(signum)
    _out, err = _finish(proc)
    assert proc.returncode == code, err


def test_a_postgresql_password_lookup_does_not_hang_the_listing(
    cli: Cli, pg_server: PgServer, pg_url: str
) -> None:
    """A role that needs a password: the keyring is asked, does not answer, and the
    password comes from password_env instead."""
    name, password = f"r_{uuid.uuid4().hex[:8]}", f"pw-{uuid.uuid4().hex}"
    dbname = pg_url.rsplit("/", 1)[1]
    pg_server.psql(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
    pg_server.psql(f'ALTER DATABASE "{dbname}" OWNER TO {name}')
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        '[storage]\npassword_env = "IKGUI_TEST_DB_PASSWORD"\n', encoding="utf-8"
    )
    url = f"postgresql://{name}@{pg_server.host}:{pg_server.port}/{dbname}"
    proc = _start(
        cli,
        "conv",
        "list",
        IKGUI_DATABASE_URL=url,
        IKGUI_TEST_DB_PASSWORD=password,
        PGPASSFILE=str(cli.home / "no-such-pgpass"),
    )
    out, err = _finish(proc)
    assert proc.returncode == 0, err
    assert err.startswith(WARNING), err
    assert "for the database: password_env under [storage], or ~/.pgpass" in err
    assert out.startswith("ID") or "No conversations" in out


def test_keys_status_finishes_and_says_why(cli: Cli) -> None:
    proc = _start(cli, "keys", "status")
    out, err = _finish(proc)
    assert proc.returncode == 0, err
    assert out.startswith("ollama: not set")
    assert "Note: The system keyring did not answer within 5 s" in out
