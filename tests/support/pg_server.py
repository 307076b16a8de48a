"""A real PostgreSQL server for tests and benchmarks, in a temporary directory.

    server = PgServer()            # initdb + start on a free 127.0.0.1 port
    url = server.create_database() # "postgresql://ikgui@127.0.0.1:PORT/t_1_ab12cd"
    server.restart()               # same port, same data
    server.close()                 # stop + remove the directory

The data and socket directory is a fresh ``/tmp/ikgui-pg-*`` (not pytest's tmp_path: the
server's user must be able to enter it). PostgreSQL refuses to run as root, so as root the
directory is handed to an unprivileged user (``postgres`` when it exists) and the server
programs run through ``runuser``. The superuser ``ikgui`` logs in without a password
(``trust``); any other role must give its password (scram-sha-256), so tests of passwords
create their own role with :meth:`PgServer.psql`.

The server is stopped at :meth:`PgServer.close`, at interpreter exit, and — should this
process die without either (SIGKILL, SIGTERM) — by a small watchdog process that waits
for this one to go away.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import itertools
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: What to install when no PostgreSQL server programs are found.
INSTALL_HINT = (
    "PostgreSQL's server programs (initdb, pg_ctl) were not found. Install them: "
    "Debian/Ubuntu `apt-get install postgresql`, Fedora `dnf install postgresql-server`, "
    "macOS `brew install postgresql` (or put their directory on PATH or in IKGUI_PG_BIN). "
    "`python3 tools/dev.py test` installs Debian's package by itself when it can."
)

SUPERUSER = "ikgui"
_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "fsync": "off",
    # On (the default): with fsync off a commit costs a write() and no disk flush, and
    # off would lose the last commits at an "immediate" stop (a crash), which tests of a
    # server going away must not see.
    "synchronous_commit": "on",
    "full_page_writes": "off",
    "max_connections": "200",
    "log_min_messages": "warning",
}
_HBA = f"""\
local all all trust
host all {SUPERUSER} 127.0.0.1/32 trust
host all all 127.0.0.1/32 scram-sha-256
"""
# Stops the server and removes its directory once the test process is gone (its pipe
# closes: a normal exit, a crash or a kill). argv: pg_ctl, data dir, dir, user prefix...
_WATCHDOG = """
import os, shutil, signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.stdin.buffer.read()
pg_ctl, data, top, *prefix = sys.argv[1:]
if os.path.exists(os.path.join(data, "postmaster.pid")):
    subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
shutil.rmtree(top, ignore_errors=True)
"""


class PgServerError(RuntimeError):
    """The server could not be found, set up or started (the message says why)."""


def _version(path: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path.parent.name)) or (0,)


#: Where distributions put each major version's server programs (Debian's, then RPM's).
VERSIONED_DIRS = ("/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin")


def find_bin_dir(patterns: tuple[str, ...] = VERSIONED_DIRS) -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``: $IKGUI_PG_BIN, PATH, then the
    distributions' versioned directories (``patterns``), newest version first."""
    candidates: list[Path] = []
    if os.environ.get("IKGUI_PG_BIN"):
        candidates.append(Path(os.environ["IKGUI_PG_BIN"]))
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for pattern in patterns:
        found = [Path(p) for p in glob.glob(pattern)]
        candidates += sorted(found, key=_version, reverse=True)
    for directory in candidates:
        if (directory / "initdb").is_file() and (directory / "pg_ctl").is_file():
            return directory
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_user() -> str | None:
    """The unprivileged user to run the server as, or None to run it as ourselves."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    for name in ("postgres", "ikgui-postgres"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    made = subprocess.run(
        [
            "useradd",
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
            "ikgui-postgres",
        ],
        capture_output=True,
    )
    return "ikgui-postgres" if made.returncode == 0 else "nobody"


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except (OSError, IndexError):
        return False


def _as_user(user: str | None) -> list[str]:
    if user is None:
        return []
    if shutil.which("runuser"):
        return ["runuser", "-u", user, "--"]
    entry = pwd.getpwnam(user)
    return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups"]


class PgServer:
    """One PostgreSQL server in a temporary directory on a free 127.0.0.1 port."""

    host = "127.0.0.1"
    user = SUPERUSER

    def __init__(self, *, start: bool = True) -> None:
        bin_dir = find_bin_dir()
        if bin_dir is None:
            raise PgServerError(INSTALL_HINT)
        self.bin_dir = bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix="ikgui-pg-", dir="/tmp"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.port = free_port()
        self.os_user = _server_user()
        self._prefix = _as_user(self.os_user)
        self._names = itertools.count(1)
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._closed = False
        atexit.register(self.close)
        try:
            self._init()
            if start:
                self._first_start()
        except BaseException:
            self.close()
            raise

    # -- life cycle ------------------------------------------------------------------
    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self._prefix, *args], cwd=self.dir, capture_output=True, text=True, timeout=120
        )

    def _init(self) -> None:
        if self.os_user is not None:
            entry = pwd.getpwnam(self.os_user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        initdb = str(self.bin_dir / "initdb")
        base = [initdb, "-D", str(self.data), "-A", "trust", "-U", SUPERUSER, "--no-sync"]
        done = self._run(*base, "-E", "UTF8", "--locale=C.UTF-8")
        if done.returncode != 0:  # a system without the C.UTF-8 locale
            shutil.rmtree(self.data, ignore_errors=True)
            done = self._run(*base, "-E", "UTF8", "--locale=C")
        if done.returncode != 0:
            raise PgServerError(f"initdb failed:\n{done.stdout}{done.stderr}")
        (self.data / "pg_hba.conf").write_text(_HBA)
        self._write_settings()
        self._start_watchdog()

    def _write_settings(self) -> None:
        settings = {**_SETTINGS, "port": str(self.port), "unix_socket_directories": f"'{self.dir}'"}
        text = "".join(f"{key} = {value}\n" for key, value in settings.items())
        # postgresql.conf itself is owned by the server's user; appending keeps that.
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\n# ikgui tests\n" + text)

    def _start_watchdog(self) -> None:
        pg_ctl = str(self.bin_dir / "pg_ctl")
        self._watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, pg_ctl, str(self.data), str(self.dir), *self._prefix],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _first_start(self) -> None:
        """Start on the chosen port, or on another one if someone took it meanwhile."""
        for attempt in range(5):
            try:
                self.start()
                return
            except PgServerError:
                if attempt == 4 or "could not bind" not in self._log_tail():
                    raise
                self.port = free_port()
                self._write_settings()

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-20:])
        except OSError:
            return ""

    def start(self) -> None:
        """Start the server (same port and data as before)."""
        if not self.running:  # a killed server's lock files (its pid may linger as a zombie)
            for lock in (self.data / "postmaster.pid", self.dir / f".s.PGSQL.{self.port}.lock"):
                lock.unlink(missing_ok=True)
        pg_ctl = str(self.bin_dir / "pg_ctl")
        done = self._run(
            pg_ctl, "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start"
        )
        if done.returncode != 0:
            raise PgServerError(
                f"PostgreSQL did not start:\n{done.stdout}{done.stderr}\n{self._log_tail()}"
            )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server; ``mode`` is pg_ctl's: "fast" (roll back and disconnect clients)
        or "immediate" (as if it crashed)."""
        if not self.running:
            return
        pg_ctl = str(self.bin_dir / "pg_ctl")
        done = self._run(pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")
        if done.returncode != 0 and self.running:
            raise PgServerError(f"PostgreSQL did not stop:\n{done.stdout}{done.stderr}")

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    @property
    def running(self) -> bool:
        """Whether the server's process is alive (a crash may leave its pid file)."""
        pid = self.server_pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # alive, but someone else's (only if not our server)
            return True
        return not _is_zombie(pid)

    def server_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def processes(self) -> list[int]:
        """The server's process and every one it started (a backend per connection, its
        helpers): what ``SIGSTOP`` must reach to make the server stop answering."""
        top = self.server_pid()
        if top is None:
            return []
        found = [top]
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == top:
                found.append(int(entry.name))
        return found

    def close(self) -> None:
        """Stop the server and remove its directory (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            with contextlib.suppress(PgServerError, subprocess.TimeoutExpired, OSError):
                self.stop("immediate")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
            if self._watchdog is not None:
                with contextlib.suppress(OSError):
                    self._watchdog.stdin.close()  # type: ignore[union-attr]
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._watchdog.wait(timeout=10)
            atexit.unregister(self.close)

    def __enter__(self) -> PgServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- databases -------------------------------------------------------------------
    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{dbname}"

    def psql(self, sql: str, dbname: str = "postgres") -> list[tuple[Any, ...]]:
        """Run ``sql`` as the superuser, outside any transaction (autocommit); the rows of
        its last statement, or [] when it returns none."""
        import psycopg  # optional for ikgui; the tests' extra installs it

        with psycopg.connect(self.url(dbname), autocommit=True, connect_timeout=10) as conn:
            cursor = conn.execute(sql.encode())
            return list(cursor.fetchall()) if cursor.description else []

    def create_database(self, name: str | None = None) -> str:
        """A new, empty database (copied from template0); returns its URL."""
        name = name or f"t_{next(self._names)}_{uuid.uuid4().hex[:6]}"
        self.psql(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def connections(self, dbname: str) -> int:
        """How many sessions are connected to ``dbname``."""
        literal = dbname.replace("'", "''")
        rows = self.psql(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{literal}'")
        return int(rows[0][0])

    def drop_database(self, name: str, *, wait: float = 1.0) -> bool:
        """Drop ``name`` once nobody is connected to it (waiting up to ``wait`` seconds
        for sessions to end); False if someone still is: the database then stays until
        :meth:`close` (a DROP would wait 5 s, and FORCE would break its users)."""
        import psycopg

        deadline = time.monotonic() + wait
        while self.connections(name):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        try:
            self.psql(f'DROP DATABASE IF EXISTS "{name}"')
        except psycopg.errors.ObjectInUse:  # someone connected meanwhile
            return False
        return True


#: How long :func:`stopped` keeps a server stopped at most (a failing test never leaves it
#: stopped for good).
GUARD_SECONDS = 30.0


@contextlib.contextmanager
def stopped(server: PgServer) -> Iterator[threading.Event]:
    """Every process of ``server`` stopped (SIGSTOP); the event is set while they are
    (cleared when the guard continues them first, after :data:`GUARD_SECONDS`)."""
    pids = server.processes()
    assert pids
    still = threading.Event()

    def resume() -> None:
        still.clear()
        for pid in pids:
            os.kill(pid, signal.SIGCONT)

    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    still.set()
    guard = threading.Timer(GUARD_SECONDS, resume)
    guard.start()
    try:
        yield still
    finally:
        guard.cancel()
        resume()
