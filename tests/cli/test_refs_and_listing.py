"""Refs, listing, search, titles, tags, Trash and exit codes (SPEC §2, §9)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Cli


def import_convs(cli: Cli, tmp_path: Path, convs: list[dict]) -> list[str]:  # type: ignore[type-arg]
    path = tmp_path / "in.json"
    doc = {"format": "ikgui", "version": 1, "conversations": convs}
    path.write_text(json.dumps(doc), encoding="utf-8")
    out = cli.ok("conv", "import", str(path)).out
    return out.split(": ", 1)[1].strip().split(", ")


def conv(cid: str, text: str, t: int = 0, **fields: object) -> dict:  # type: ignore[type-arg]
    stamp = f"2026-01-01T00:00:{t:02d}+00:00"
    return {
        "id": cid,
        "title": None,
        "created_at": stamp,
        "updated_at": stamp,
        "events": [
            {"id": 100 + t, "kind": "user", "content": text, "data": None, "created_at": stamp}
        ],
        **fields,
    }


def test_empty_list(cli: Cli) -> None:
    assert cli.ok("conv", "list").out.strip() == "No conversations."
    assert cli.ok("conv").out.strip() == "No conversations."
    assert cli.ok("c", "list", "--json").json == []


def test_refs_suffix_ambiguity_not_found_and_exact_wins(cli: Cli, tmp_path: Path) -> None:
    import_convs(
        cli,
        tmp_path,
        [
            conv("chat-ab12", "first", 1),
            conv("chat-cd12", "second", 2),
            conv("xchat-ab12", "third", 3),
        ],
    )
    assert cli.ok("conv", "show", "cd12", "--json").json["id"] == "chat-cd12"
    assert cli.ok("conv", "show", "D12", "--json").json["id"] == "chat-cd12"
    assert cli.ok("conv", "show", "chat-ab12", "--json").json["id"] == "chat-ab12"

    many = cli("conv", "show", "12")
    assert (many.code, many.err.strip()) == (
        1,
        "Error: Multiple matches: chat-ab12, chat-cd12, xchat-ab12",
    )
    missing = cli("conv", "show", "zz99")
    assert (missing.code, missing.err.strip()) == (1, "Error: Conversation not found: zz99")
    nothing = cli("run", "-c", "zz99", "/mark")
    assert nothing.code == 1
    usage = cli("conv", "show", "--bogus")
    assert usage.code == 2 and "Error: " in usage.err
    cid = cli("run", "--cid", "ab12", "/mark")
    assert (cid.code, cid.err.strip()) == (1, "Error: Conversation not found: ab12")


def test_continue_last_and_nothing_to_continue(cli: Cli) -> None:
    nothing = cli("run", "-c", "/mark")
    assert (nothing.code, nothing.err.strip()) == (1, "Error: No conversation to continue")
    first = cli.new_id("/prompt", "a")
    assert cli.new_id("-c", "/mark", "x") == first
    assert cli.ok("conv", "show", "-l", "--json").json["id"] == first


def test_listing_format_title_tags_and_filters(cli: Cli, tmp_path: Path) -> None:
    import_convs(
        cli,
        tmp_path,
        [
            conv("chat-aaaa", "a question about   databases and other very long topics", 1),
            conv("coder-bbbb", "api design", 2, agent="coder"),
        ],
    )
    lines = cli.ok("conv", "list").out.splitlines()
    assert lines[0].split() == ["ID", "AGENT", "MSGS", "UPDATED", "TITLE"]
    assert lines[1].split()[:3] == ["coder-bbbb", "coder", "1"]
    assert lines[2].startswith("chat-aaaa")
    assert lines[2].split()[1:3] == ["-", "1"]

    assert cli.ok("conv", "title", "aaaa", "Databases", "101").out.strip() == (
        "Title set to: Databases 101"
    )
    assert cli.ok("conv", "tag", "aaaa", "+Work", "+sql").out.strip() == "Tags: sql, work"
    assert cli.ok("conv", "tag", "aaaa", "-sql").out.strip() == "Tags: work"
    bad = cli("conv", "tag", "aaaa", "+bad!tag")
    assert bad.code == 1 and bad.err.startswith("Error: Invalid tag")

    only_work = cli.ok("conv", "list", "-t", "work").out.splitlines()
    assert len(only_work) == 2 and "Databases 101" in only_work[1]
    assert len(cli.ok("conv", "list", "-a", "coder").out.splitlines()) == 2
    assert len(cli.ok("conv", "list", "-n", "1").out.splitlines()) == 2
    listed = cli.ok("conv", "list", "--json").json
    # renaming and tagging do not reorder the list: only new events do
    assert [c["id"] for c in listed] == ["coder-bbbb", "chat-aaaa"]
    assert listed[1]["tags"] == ["work"] and listed[1]["title"] == "Databases 101"


def test_title_command_shows_and_sets(cli: Cli, tmp_path: Path) -> None:
    import_convs(cli, tmp_path, [conv("chat-aaaa", "x", 1)])
    assert cli.ok("run", "-c", "aaaa", "/title").out.strip() == "Title: (none)"
    assert (
        cli.ok("run", "-c", "aaaa", "/title", "My", "talk").out.strip() == "Title set to: My talk"
    )


def test_search_finds_message_bodies_and_titles(cli: Cli, tmp_path: Path) -> None:
    import_convs(
        cli,
        tmp_path,
        [
            conv("chat-aaaa", "the quick brown fox", 1),
            conv("chat-bbbb", "lazy dogs sleep", 2, title="Quick notes"),
        ],
    )
    out = cli.ok("conv", "search", "brown", "fox").out
    assert out.startswith("chat-aaaa") and "brown" in out
    assert "chat-bbbb" in cli.ok("conv", "search", "quick").out
    assert cli("conv", "search", 'fox"', "NEAR(", "*", "a:b", "(").code == 0
    assert cli.ok("conv", "search", "zebra").out.strip() == "No matches."
    loaded = cli.ok("run", "/load", "brown fox").out
    assert loaded.startswith("Matches for 'brown fox':") and "chat-aaaa" in loaded


def test_trash_restore_and_clean(cli: Cli) -> None:
    root = cli.new_id("/prompt", "r")
    child = cli.ok("run", "-c", root, "/fork").err.strip().splitlines()[-1]
    lone = cli.new_id("/prompt", "lone")

    assert cli.ok("conv", "delete", lone).out.startswith(f"Moved {lone} to the Trash")
    assert lone not in cli.ok("conv", "list").out
    assert lone in cli.ok("conv", "list", "--trash").out
    assert cli.ok("conv", "show", lone, "--json").json["status"] == "trashed"
    assert cli.ok("conv", "restore", lone).out.strip() == f"Restored {lone}"
    assert lone in cli.ok("conv", "list").out

    cli.ok("conv", "delete", root)
    cli.ok("conv", "delete", lone)
    too_young = cli.ok("conv", "clean", "--older", "7d")
    assert too_young.out.strip() == "Nothing to clean."
    refused = cli("conv", "clean")
    assert refused.code == 1
    assert f"Kept {root}: forks still inherit from it ({child})" in refused.err
    assert refused.out.strip() == "Removed 1 conversation"
    assert cli("conv", "show", lone).code == 1
    # the fork still replays its inherited history
    assert cli.notices(child)[0] == 'system: [user edited prompt to: "r"]'
    forced = cli.ok("conv", "clean", "--forks")
    assert forced.out.strip() == "Removed 2 conversations"
    assert cli.ok("conv", "list").out.strip() == "No conversations."
    bad_age = cli("conv", "clean", "--older", "soon")
    assert bad_age.code == 2 and "Invalid age" in bad_age.err
