"""Bad data in the database never crashes replay (SPEC §3, §4)."""

from __future__ import annotations

import sqlite3

from tests.cli.conftest import Cli, current, edit


def test_malformed_rewind_and_unknown_kind_are_survived(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "a")
    cli.ok("run", "-c", conv, "/mark", "m")
    cli.ok("run", "-c", conv, "/prompt", "b")
    cli.ok("run", "-c", conv, "/rewind", "m")
    with sqlite3.connect(cli.home / "ikgui.db") as db:
        (rewind_id,) = db.execute(
            "SELECT id FROM event WHERE kind = 'rewind' AND conversation_id = ?", (conv,)
        ).fetchone()
        db.execute("UPDATE event SET data = '{broken' WHERE id = ?", (rewind_id,))
        db.execute(
            "INSERT INTO event (conversation_id, kind, content, data, created_at) "
            "VALUES (?, 'hologram', 'from a newer version', '{\"x\": 1}', 0)",
            (conv,),
        )
    shown = cli.ok("conv", "show", conv, "--json").json
    contents = [i["content"] for i in shown["scrollback"]]
    assert contents[-1] == "[hologram] from a newer version"
    assert "Rewound to m" not in contents
    # the broken rewind is skipped: "b" is still in the context
    assert cli.notices(conv) == [edit("a"), edit("b"), current("b")]
    assert cli.ok("conv", "show", conv).out.count("hologram") == 1


def test_broken_config_warns_but_works(cli: Cli) -> None:
    cli.home.mkdir(parents=True)
    (cli.home / "config.toml").write_text("[defaults\nprovider = 1\n", encoding="utf-8")
    result = cli.ok("conv", "list")
    assert result.out.strip() == "No conversations."
    assert result.err.startswith(f"Warning: {cli.home / 'config.toml'}:1: ")


def test_database_that_is_not_a_database(cli: Cli) -> None:
    cli.home.mkdir(parents=True)
    db = cli.home / "ikgui.db"
    db.write_bytes(b"this is not sqlite" * 100)
    result = cli("conv", "list")
    assert result.code == 1
    assert result.err.startswith("Error: ") and str(db) in result.err
    assert db.read_bytes() == b"this is not sqlite" * 100
