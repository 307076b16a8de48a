"""``ikgui run`` on PostgreSQL when the server stops while a reply streams (issue 21
items 1 and 12): whatever fails after the reply streamed — the automatic title's read
included — its text is stored or written to a recovery file, and the user is told which,
naming the database in use (never the unused SQLite file)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.cli.test_run import sse
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.pg_server import PgServer
from tests.support.wire_server import ReceivedRequest, Reply, WireServer

__all__ = ["wire_server", "wire_server_session"]

PIECES = [f"piece {i:02d} of a reply that outlives its database. " for i in range(30)]


def _config(cli: Cli, server: WireServer, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f"""
[defaults]
provider = "local"
model = "mock-gpt"

[providers.local]
kind = "openai"
base_url = "{server.url}/v1"
auto_title = "model"
""",
        encoding="utf-8",
    )
    monkeypatch.setenv("IKGUI_DATABASE_URL", url)


def _reply(*pieces: str) -> Reply:
    return Reply(body=sse(*pieces), headers=(("content-type", "text/event-stream"),), chunk_size=64)


def test_a_reply_outliving_the_server_goes_to_a_recovery_file(
    cli: Cli,
    wire_server: WireServer,
    pg_server: PgServer,
    pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _config(cli, wire_server, pg_url, monkeypatch)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "spare"))

    def answer(request: ReceivedRequest) -> Reply:
        if "short title" in json.dumps(request.json()):
            return _reply("A title")
        pg_server.stop()  # the question is stored; the server goes while the reply streams
        return _reply(*PIECES)

    wire_server.route("/v1/chat/completions", answer)
    try:
        result = cli.process("run", "tell me a long story")
    finally:
        pg_server.start()
    text = "".join(PIECES)
    assert result.out == text + "\n", result.err
    assert result.code == 1, result.err
    assert "Traceback" not in result.err and "unexpectedly" not in result.err
    errors = [line for line in result.err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, result.err
    dbname = pg_url.rsplit("/", 1)[1]
    # Item 12: the database in use is named, not the SQLite file nobody uses.
    assert f"PostgreSQL ikgui@127.0.0.1:{pg_server.port}/{dbname}" in errors[0]
    assert "ikgui.db" not in result.err
    _, sep, where = errors[0].partition("; its text is in ")
    assert sep, errors[0]
    saved = Path(where).read_text(encoding="utf-8")
    assert text in saved


def test_a_server_back_before_the_run_ends_gets_the_whole_reply(
    cli: Cli,
    wire_server: WireServer,
    pg_server: PgServer,
    pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _config(cli, wire_server, pg_url, monkeypatch)

    def pieces() -> Iterator[bytes]:
        body = sse(*PIECES)
        yield body[:200]
        pg_server.stop()  # gone while the reply streams...
        yield body[200:-200]
        pg_server.start()  # ...and back before it ends
        yield body[-200:]

    def answer(request: ReceivedRequest) -> Reply:
        if "short title" in json.dumps(request.json()):
            return _reply("A title")
        return Reply(headers=(("content-type", "text/event-stream"),), source=pieces)

    wire_server.route("/v1/chat/completions", answer)
    try:
        result = cli.process("run", "tell me a long story")
    finally:
        if not pg_server.running:
            pg_server.start()
    assert result.code == 0, result.err
    conv = result.err.strip().splitlines()[-1]
    shown = cli.ok("conv", "show", conv, "--json").json["scrollback"]
    assert [e["content"] for e in shown] == ["tell me a long story", "".join(PIECES)]


def test_a_role_that_cannot_write_is_named_in_the_rescue(
    cli: Cli,
    wire_server: WireServer,
    pg_server: PgServer,
    pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _config(cli, wire_server, pg_url, monkeypatch)
    wire_server.route("/v1/chat/completions", _reply("hi"))
    conv = cli.new_id("hello")  # the schema and one conversation, as the owner
    dbname = pg_url.rsplit("/", 1)[1]
    role = f"r_{uuid.uuid4().hex[:8]}"
    password = f"pw-{uuid.uuid4().hex}"
    pg_server.psql(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
    pg_server.psql(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}", dbname)
    config = cli.home / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[storage]\npassword_env = "T_PW"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("T_PW", password)
    monkeypatch.setenv("IKGUI_DATABASE_URL", pg_url.replace("//ikgui@", f"//{role}@"))
    wire_server.route("/v1/chat/completions", _reply(*PIECES))
    result = cli.process("run", "-c", conv, "more please")
    assert "Traceback" not in result.err and "unexpectedly" not in result.err
    assert "ikgui.db" not in result.err, result.err
    assert "Error: could not save the reply to PostgreSQL " in result.err, result.err
    assert f"{role}@127.0.0.1:{pg_server.port}/{dbname}" in result.err, result.err
    assert result.code == 1
