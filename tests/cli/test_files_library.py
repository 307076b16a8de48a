"""Attached files in the library commands (SPEC §13), on a real SQLite file: ``conv
show`` lists them, search finds their names and text, JSON export embeds them and
import restores them (each once, checked by hash), Markdown export writes them into a
folder beside the file and links them, and ``conv clean`` removes the files nothing
refers to any more."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from ikgui.storage import open_store
from tests.cli.conftest import Cli
from tests.storage.test_store_files import NOTES, PNG, count, new_conversation, send


def seeded(cli: Cli) -> tuple[str, str]:
    """Two conversations sharing a picture; the first also has notes."""
    with open_store(cli.home / "ikgui.db") as store:
        one = new_conversation(store, "c-notes", "Planning")
        send(store, one, "what do these say?", PNG, NOTES)
        two = new_conversation(store, "c-pics", "Pictures")
        send(store, two, "and this?", PNG, named="holiday photo.png")
    return one, two


def test_show_lists_a_messages_files(cli: Cli) -> None:
    one, _ = seeded(cli)
    out = cli.ok("conv", "show", one).out
    assert "[You] what do these say?" in out
    assert "  attached: screenshot.png (png, 10 KB)" in out
    assert "  attached: quarterly-notes.md (markdown, 8 bytes)" in out
    user = cli.ok("conv", "show", one, "--json").json["scrollback"][0]
    assert [a["name"] for a in user["data"]["attachments"]] == [
        "screenshot.png",
        "quarterly-notes.md",
    ]


def test_search_finds_a_files_text_and_name(cli: Cli) -> None:
    one, two = seeded(cli)
    assert one in cli.ok("conv", "search", "zeppelin").out
    found = cli.ok("conv", "search", "holiday").out
    assert two in found and one not in found


def test_json_export_embeds_the_files_and_import_restores_them_once(
    cli: Cli, tmp_path: Path
) -> None:
    one, _ = seeded(cli)
    exported = cli.ok("conv", "export", one).json
    assert [f["sha256"] for f in exported["files"]] == [PNG.sha256, NOTES.sha256]
    assert base64.b64decode(exported["files"][0]["content"]) == PNG.content
    assert exported["files"][1]["text"] == NOTES.text
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    other = Cli(tmp_path / "elsewhere", cli.capsys)
    first = other.ok("conv", "import", str(path)).out.split(": ")[-1].strip()
    other.ok("conv", "import", str(path))  # a second copy shares the same files
    with open_store(other.home / "ikgui.db") as store:
        assert store.read_files([PNG.sha256, NOTES.sha256]) == {
            PNG.sha256: PNG,
            NOTES.sha256: NOTES,
        }
        assert count(store, "stored_file") == 2 and count(store, "event_file") == 4
        event = store.events(first)[0]
        assert [a["name"] for a in event.data["attachments"]] == [
            "screenshot.png",
            "quarterly-notes.md",
        ]
    assert first in other.ok("conv", "search", "zeppelin").out


def test_an_import_whose_file_does_not_match_its_hash_leaves_it_out(
    cli: Cli, tmp_path: Path
) -> None:
    one, _ = seeded(cli)
    exported = cli.ok("conv", "export", one).json
    exported["files"][0]["content"] = base64.b64encode(b"not the picture").decode()
    exported["files"][1]["content"] = "%%% not base64 %%%"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    other = Cli(tmp_path / "elsewhere", cli.capsys)
    result = other.ok("conv", "import", str(path))
    assert "left out screenshot.png, quarterly-notes.md (not in the file)" in result.out
    with open_store(other.home / "ikgui.db") as store:
        assert count(store, "stored_file") == 0
        conv_id = store.list_conversations()[0].id
        assert "attachments" not in store.events(conv_id)[0].data
        assert store.events(conv_id)[0].content == "what do these say?"


def test_markdown_export_writes_the_files_beside_it(cli: Cli, tmp_path: Path) -> None:
    one, two = seeded(cli)
    target = tmp_path / "out" / "planning.md"
    cli.ok("conv", "export", one, "--format", "md", "-o", str(target))
    text = target.read_text(encoding="utf-8")
    assert "![screenshot.png](planning_files/screenshot.png)" in text
    assert "[quarterly-notes.md](planning_files/quarterly-notes.md)" in text
    folder = tmp_path / "out" / "planning_files"
    assert (folder / "screenshot.png").read_bytes() == PNG.content
    assert (folder / "quarterly-notes.md").read_bytes() == NOTES.content
    pics = tmp_path / "out" / "pics.md"
    cli.ok("conv", "export", two, "--format", "md", "-o", str(pics))
    assert "![holiday photo.png](pics_files/holiday%20photo.png)" in pics.read_text("utf-8")
    assert (tmp_path / "out" / "pics_files" / "holiday photo.png").read_bytes() == PNG.content
    # On a terminal or a pipe there is no folder: the files are named.
    shown = cli.ok("conv", "export", one, "--format", "md").out
    assert "- Attached: quarterly-notes.md (8 bytes)" in shown


def test_clean_removes_the_files_only_the_trash_referred_to(cli: Cli) -> None:
    one, two = seeded(cli)
    cli.ok("conv", "delete", one)
    cli.ok("conv", "clean")
    with open_store(cli.home / "ikgui.db") as store:
        assert store.has_files([PNG.sha256, NOTES.sha256]) == {PNG.sha256}
    cli.ok("conv", "delete", two)
    cli.ok("conv", "clean")
    with open_store(cli.home / "ikgui.db") as store:
        assert count(store, "stored_file") == 0


def test_db_status_says_what_the_files_hold(cli: Cli) -> None:
    seeded(cli)
    out = cli.ok("db", "status").out
    assert "Attached files: 2 (10 KB, each once)" in out
