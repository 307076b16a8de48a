"""Issue 21 item 5 on the command line: long tag lists are summarised (the first few and
"… and N more"), and an import keeps at most 1,000 tags per conversation and says what
it cut."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.cli.conftest import Cli

MANY = 20_000


def _with_many_tags(cli: Cli) -> str:
    conv_id = cli.new_id("/mark", "a")
    with sqlite3.connect(cli.home / "ikgui.db") as db:
        db.executemany(
            "INSERT INTO tag (conversation_id, name) VALUES (?, ?)",
            [(conv_id, f"t{n:05d}") for n in range(MANY)],
        )
    return conv_id


def test_long_tag_lists_are_summarised(cli: Cli) -> None:
    conv_id = _with_many_tags(cli)
    tagged = cli.ok("conv", "tag", conv_id, "+new", "-t00001")
    first = "new, " + ", ".join(f"t{n:05d}" for n in (0, *range(2, 10)))
    assert tagged.out == f"Tags: {first}, … and 19,990 more\n"
    shown = cli.ok("conv", "show", conv_id).out.splitlines()[1]
    assert f"tags {first}, … and 19,990 more" in shown and len(shown) < 200
    listed = cli.ok("conv", "tags").out.splitlines()
    assert len(listed) == 1001
    assert listed[-1] == "… and 19,000 more tags (ikgui conv tags --all lists them all, or --json)"
    assert len(cli.ok("conv", "tags", "--all").out.splitlines()) == MANY
    assert len(cli.ok("conv", "show", conv_id, "--json").json["tags"]) == MANY  # JSON: all


def test_an_import_keeps_at_most_1000_tags_and_says_what_it_cut(cli: Cli, tmp_path: Path) -> None:
    tags = [f"t{n:05d}" for n in range(5000)] + ["x" * 200, "no spaces", "#ok"]
    document = {
        "format": "ikgui",
        "version": 1,
        "conversations": [{"id": "chat-tags", "tags": tags, "events": []}],
    }
    path = tmp_path / "in.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = cli.ok("conv", "import", str(path))
    assert result.out.splitlines()[1:] == [
        "chat-tags: kept the first 1,000 of its 5,001 tags (at most 1,000 per conversation);"
        " left out 2 tags that are not valid tags (up to 32 letters, digits, '-', '_', '.'"
        " or '+')"
    ]
    stored = cli.ok("conv", "show", "chat-tags", "--json").json["tags"]
    assert len(stored) == 1000 and stored[0] == "ok" and stored[-1] == "t00998"
