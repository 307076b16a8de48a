"""``ikgui conv tags``, ``tag-rename`` and ``tag-delete`` on a real database (issue 12,
item 5): counts, a rename, a merge and a delete across every conversation."""

from __future__ import annotations

from tests.cli.conftest import Cli


def _tagged(cli: Cli) -> dict[str, list[str]]:
    return {c["id"]: c["tags"] for c in cli.ok("conv", "list", "--json").json}


def test_tags_lists_counts_and_rename_merge_delete_apply_everywhere(cli: Cli) -> None:
    ids = [cli.new_id("/prompt", f"p{i}") for i in range(4)]
    cli.ok("conv", "tag", ids[0], "+work", "+api")
    cli.ok("conv", "tag", ids[1], "+work")
    cli.ok("conv", "tag", ids[2], "+job", "+api")
    cli.ok("conv", "tag", ids[3], "+work")
    cli.ok("conv", "delete", ids[3])
    lines = cli.ok("conv", "tags").out.splitlines()
    assert [ln.split()[:2] for ln in lines] == [["api", "2"], ["job", "1"], ["work", "2"]]
    assert lines[2].endswith("(+1 in the Trash)")
    assert cli.ok("conv", "tags", "--json").json[2] == {"tag": "work", "count": 2, "trashed": 1}

    both = cli.ok("conv", "list", "-t", "work", "-t", "API", "--json").json
    assert [c["id"] for c in both] == [ids[0]]
    assert len(cli.ok("conv", "list", "-t", "api", "--json").json) == 2
    out = cli.ok("conv", "tag-rename", "work", "job").out.strip()
    assert out == "Merged 'work' into 'job' on 3 conversations"
    tags = _tagged(cli)
    assert tags[ids[0]] == ["api", "job"] and tags[ids[1]] == ["job"]
    assert tags[ids[2]] == ["api", "job"]
    trashed = cli.ok("conv", "list", "--trash", "--json").json
    assert trashed[0]["tags"] == ["job"]

    out = cli.ok("conv", "tag-rename", "#API", "Backend").out.strip()
    assert out == "Renamed 'api' into 'backend' on 2 conversations"
    out = cli.ok("conv", "tag-delete", "job").out.strip()
    assert out == "Removed 'job' from 4 conversations"
    assert cli.ok("conv", "tags").out.split() == ["backend", "2"]


def test_unknown_or_bad_tags_are_one_error_line(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "hello")
    cli.ok("conv", "tag", conv, "+work")
    missing = cli("conv", "tag-rename", "nope", "other")
    assert missing.code == 1 and missing.err.strip() == "Error: No conversation has the tag 'nope'"
    bad = cli("conv", "tag-rename", "work", "bad!tag")
    assert bad.code == 1 and bad.err.startswith("Error: Invalid tag 'bad!tag'")
    assert cli("conv", "tag-delete", "nope").code == 1
    assert _tagged(cli)[conv] == ["work"]
    assert cli.ok("conv", "tag-delete", "work").out.strip() == "Removed 'work' from 1 conversation"
    assert cli.ok("conv", "tags").out.strip() == "No tags."
