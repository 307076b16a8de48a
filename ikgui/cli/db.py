"""``ikgui db status`` / ``ikgui db copy --to URL | --from URL``, and ``ikgui --paths``.

``db copy`` moves a whole history between the SQLite file in the data folder and a
PostgreSQL database (the password for the URL comes from the same places as the
store's: the keyring entry "database", the variable named by ``[storage]
password_env``, or ~/.pgpass). Errors are one plain line and exit code 1.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from typing import TYPE_CHECKING, Any

from ikgui.app.store import (
    KEY_NAME,
    StoreTarget,
    choose,
    open_target,
    password_source,
    postgres_target,
    sqlite_target,
)
from ikgui.cli.output import error, say
from ikgui.domain.attachments import size_text
from ikgui.domain.errors import StorageError, UsageError, UserError
from ikgui.local.keys import KeyStore
from ikgui.local.paths import Paths

if TYPE_CHECKING:
    from ikgui.cli.env import Env
    from ikgui.storage import PeeweeStore


def add_db_parser(sub: Any) -> None:
    db = sub.add_parser("db", help="the database in use; copy history to or from PostgreSQL")
    dsub = db.add_subparsers(dest="db_command", parser_class=type(db))
    dsub.add_parser("status", help="which database, its schema version and what it holds")
    copy = dsub.add_parser(
        "copy",
        help="copy every conversation between the SQLite file and a PostgreSQL database",
        description="Copy every conversation, event and tag, with their ids, between the "
        "SQLite file in the data folder and a PostgreSQL database. It is safe to run again: "
        "what is already there is brought up to date (titles, pins, the Trash, drafts, tags, "
        "replies saved since), and what is unchanged is left alone.",
    )
    way = copy.add_mutually_exclusive_group(required=True)
    way.add_argument("--to", metavar="URL", help="from the SQLite file into this database")
    way.add_argument(
        "--from", dest="source", metavar="URL", help="from this database into the SQLite file"
    )


def cmd_db(env: Env, args: argparse.Namespace) -> int:
    if args.db_command == "copy":
        return cmd_copy(env, args)
    return cmd_status(env)


def cmd_status(env: Env) -> int:
    store = env.store
    say(f"Store: {store.describe()}")
    if store.kind == "postgresql":
        target = choose(env.paths, env.settings)
        say(f"Password: {password_source(target, env.settings, env.keys)}")
    from ikgui.storage import history_counts

    counts = history_counts(store.database)
    say(f"Schema version: {store.schema_version()}")
    say(f"Conversations: {counts['conversations']:,} ({counts['trashed']:,} in the Trash)")
    say(f"Events: {counts['events']:,}")
    say(f"Tags: {counts['tags']:,}")
    say(f"Attached files: {counts['files']:,} ({size_text(counts['file_bytes'])}, each once)")
    return 0


def cmd_copy(env: Env, args: argparse.Namespace) -> int:
    from ikgui.storage import copy_history

    url = args.to or args.source
    remote = postgres_target(url, "the URL given")
    local = sqlite_target(env.paths.database)
    if args.to and not env.paths.database.exists():
        raise StorageError(f"There is no history to copy: {env.paths.database} does not exist.")
    source_target, dest_target = (local, remote) if args.to else (remote, local)
    source = _open(source_target, env)
    try:
        dest = _open(dest_target, env)
        try:
            copied = copy_history(
                source.database, dest.database, dest_kind=dest.kind, progress=ProgressLine()
            )
        finally:
            with contextlib.suppress(Exception):  # a server gone away: nothing to close
                dest.close()
    finally:
        source.close()
    say(copied.summary(dest_target.display))
    return 0


def _open(target: StoreTarget, env: Env) -> PeeweeStore:
    store = open_target(target, env.settings, env.keys)
    if store.read_only is not None:
        store.close()
        raise StorageError(f"Cannot copy: {store.read_only}.")
    return store


class ProgressLine:
    """Progress of a long copy on stderr, at most one line every ``interval`` seconds."""

    def __init__(self, interval: float = 2.0) -> None:
        self.interval = interval
        self._last = time.monotonic()

    def __call__(self, what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last < self.interval:
            return
        self._last = now
        share = f" ({100 * done // total} %)" if total else ""
        say(f"Copying {what}: {done:,} of {total:,}{share}", err=True)


def print_paths(paths: Paths) -> int:
    """``ikgui --paths``: the folders and files in use, and the store (with where its
    password comes from); 1 when the chosen store cannot be used. The SQLite file is
    named only when it is the store: on PostgreSQL (or a broken choice) it is not used,
    while the settings, exports and recovery files stay local either way."""
    from ikgui.config.loading import load_settings
    from ikgui.local import recovery
    from ikgui.local.log import log_path

    settings = load_settings(paths.config)
    problem: StorageError | None = None
    sqlite = False
    try:
        target = choose(paths, settings)
        sqlite = target.kind == "sqlite"
        store = [f"store:    {target.display}"]
        if target.kind == "postgresql":
            keys = KeyStore(lambda line: error(f"Warning: {line}"), interruptible=True)
            store.append(f"password: {password_source(target, settings, keys)}")
    except StorageError as exc:
        problem, store = exc, ["store:    none (see the error below)"]
    say(f"data:     {paths.data_dir}")
    say(f"config:   {paths.config_dir}")
    if sqlite:
        say(f"database: {paths.database}")
    for line in store:
        say(line)
    say(f"settings: {paths.config}")
    say(f"recovery: {recovery.folders(paths.database)[0]}")
    say(f"exports:  {paths.exports}")
    say(f"log:      {log_path(paths.data_dir)}")
    if problem is not None:
        error(problem.line)
        return 1
    return 0


# -- ikgui keys set|delete|status database -----------------------------------------------


def database_password(env: Env, action: str) -> int:
    """``ikgui keys ACTION database``: the database password in the system keyring."""
    keys = env.keys
    if action == "status":
        say(f"{KEY_NAME}: {_source(env) or 'not used (the store is the SQLite file)'}")
        return 0
    if action == "delete":
        say(
            "Deleted the database password."
            if keys.delete(KEY_NAME)
            else "No database password was stored."
        )
        return 0
    if not keys.available:
        raise UserError(
            "No system keyring is available here, so the password cannot be kept. Set "
            'password_env = "IKGUI_DB_PASSWORD" under [storage] in config.toml and export '
            "that variable, or put the password in ~/.pgpass."
        )
    import getpass

    if sys.stdin.isatty():
        password = getpass.getpass("Password for the database (input is hidden): ")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    if not password:
        raise UsageError("No password given: nothing was stored")
    if keys.set(KEY_NAME, password) != "keyring":
        raise UserError("The system keyring refused the password; it was not stored.")
    say("Stored the database password in the system keyring.")
    return 0


def database_status(env: Env) -> None:
    """The ``database`` line of ``ikgui keys status`` (only when PostgreSQL is chosen)."""
    source = _source(env)
    if source is not None:
        say(f"{KEY_NAME}: {source}")


def _source(env: Env) -> str | None:
    try:
        target = choose(env.paths, env.settings)
    except StorageError:
        return None
    if target.kind != "postgresql":
        return None
    return password_source(target, env.settings, env.keys)
