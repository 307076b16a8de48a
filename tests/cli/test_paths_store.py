"""``ikgui --paths`` names only what is used (issue 15, ODDS item 2): on the SQLite file
its database line; on PostgreSQL the store (no password) and the local folders still
used (settings, exports, recovery files), never a database file that is not used."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Cli


def _lines(cli: Cli) -> dict[str, str]:
    out = cli.ok("--paths").out
    return dict(line.split(":", 1) for line in out.splitlines())


def test_paths_on_the_sqlite_file(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IKGUI_DATABASE_URL", raising=False)
    lines = {key: value.strip() for key, value in _lines(cli).items()}
    assert lines["database"] == str(cli.home / "ikgui.db")
    assert lines["store"] == f"SQLite {cli.home / 'ikgui.db'}"
    assert lines["settings"] == str(cli.home / "config.toml")
    assert lines["recovery"] == str(cli.home / "recovered")
    assert lines["log"] == str(cli.home / "logs" / "ikgui.log")  # what a bug report quotes
    assert "password" not in lines


def test_paths_on_postgresql_name_no_database_file(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, pg_url: str
) -> None:
    monkeypatch.setenv("IKGUI_DATABASE_URL", pg_url)
    out = cli.ok("--paths").out
    lines = {key: value.strip() for key, value in _lines(cli).items()}
    assert "database" not in lines and "ikgui.db" not in out
    assert lines["store"] == "PostgreSQL ikgui@" + pg_url.split("@", 1)[1]
    assert lines["password"]  # where it comes from, never the password itself
    assert Path(lines["settings"]) == cli.home / "config.toml"
    assert Path(lines["exports"]) == cli.home / "exports"
    assert Path(lines["recovery"]) == cli.home / "recovered"
    assert list(lines)[:2] == ["data", "config"]
