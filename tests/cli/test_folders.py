"""``ikgui conv folders``, ``conv project``, ``run -P`` and folders through ``conv list -t``,
``tag-rename`` and ``tag-delete`` (SPEC §15, issue 26), on a real SQLite file and a real
HTTP server that records each request."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Cli
from tests.cli.test_run import local, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer

__all__ = ["local", "wire_server", "wire_server_session"]
CHAT = "/v1/chat/completions"


def _tagged(cli: Cli) -> dict[str, list[str]]:
    return {c["id"]: c["tags"] for c in cli.ok("conv", "list", "--json").json}


def _ids(cli: Cli, *args: str) -> list[str]:
    return [c["id"] for c in cli.ok("conv", "list", "--json", *args).json]


def test_folders_are_nested_tags_listed_renamed_moved_and_deleted(cli: Cli) -> None:
    ids = [cli.new_id("/prompt", f"p{i}") for i in range(4)]
    cli.ok("conv", "tag", ids[0], "+work")
    cli.ok("conv", "tag", ids[1], "+work/acme", "+work/beta")
    cli.ok("conv", "tag", ids[2], "+work/acme/q3")
    cli.ok("conv", "tag", ids[3], "+job/acme")
    assert sorted(_ids(cli, "-t", "work")) == sorted(ids[:3])
    assert sorted(_ids(cli, "-t", "Work/Acme")) == sorted(ids[1:3])
    tree = cli.ok("conv", "folders").out.splitlines()
    assert tree[0] == "Folders:"
    assert [ln.split() for ln in tree[1:]] == [
        ["job", "1"],
        ["acme", "1"],
        ["work", "3"],
        ["acme", "2"],
        ["q3", "1"],
        ["beta", "1"],
    ]
    assert tree[3].startswith("  work") and tree[4].startswith("    acme")
    listed = cli.ok("conv", "folders", "--json").json
    assert listed["folders"][2] == {"path": "work", "count": 3, "project": False}

    out = cli.ok("conv", "tag-rename", "work", "job").out.strip()
    assert out == "Merged 'work' into 'job' on 3 conversations, with the 3 tags under it"
    tags = _tagged(cli)
    assert tags[ids[1]] == ["job/acme", "job/beta"] and tags[ids[2]] == ["job/acme/q3"]
    assert tags[ids[3]] == ["job/acme"]
    # Moved under another folder.
    cli.ok("conv", "tag-rename", "job/acme", "clients/acme")
    assert _tagged(cli)[ids[2]] == ["clients/acme/q3"]
    out = cli.ok("conv", "tag-delete", "clients").out.strip()
    assert out == "Removed 'clients' from 3 conversations, with the 1 tag under it"
    assert len(_tagged(cli)) == 4  # never a conversation
    assert cli("conv", "tag-rename", "job", "job/inside").err.strip() == (
        "Error: Cannot move the folder 'job' into itself"
    )


def test_smart_folders_are_saved_counted_renamed_and_deleted(cli: Cli) -> None:
    ids = [cli.new_id("/prompt", f"p{i}") for i in range(3)]
    cli.ok("conv", "tag", ids[0], "+work/acme")
    cli.ok("conv", "tag", ids[1], "+work")
    out = cli.ok("conv", "folders", "--save", "Acme work", "-t", "work/acme").out.strip()
    assert out == "Saved the smart folder 'Acme work' (-t work/acme)"
    cli.ok("conv", "folders", "--save", "All work", "-t", "work")
    smart = cli.ok("conv", "folders", "--json").json["smart_folders"]
    assert [(s["name"], s["count"], s["tags"]) for s in smart] == [
        ("Acme work", 1, ["work/acme"]),
        ("All work", 2, ["work"]),
    ]
    assert "Smart folders:" in cli.ok("conv", "folders").out
    cli.ok("conv", "folders", "--rename", "All work", "Everything at work")
    cli.ok("conv", "folders", "--delete", "Acme work")
    smart = cli.ok("conv", "folders", "--json").json["smart_folders"]
    assert [s["name"] for s in smart] == ["Everything at work"]
    assert cli("conv", "folders", "--save", "Nothing").code == 1
    assert cli("conv", "folders", "-t", "work").code == 2  # -t goes with --save


def test_a_project_is_set_shown_and_used_by_run(
    cli: Cli, local: WireServer, tmp_path: Path
) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("The client is ACME.\n", encoding="utf-8")
    assert cli.ok("conv", "project", "work/acme").out.startswith("Not a project yet: work/acme")
    cli.ok(
        "conv", "project", "work/acme", "--agent", "painter", "--model", "big-model",
        "--system", "Answer in French.", "--tools", "none", "--attach", str(brief),
    )  # fmt: skip
    shown = cli.ok("conv", "project", "work/acme", "--json").json
    assert shown["agent"] == "painter" and shown["model"] == "big-model"
    assert shown["system_prompt"] == "Answer in French." and shown["tools"] == []
    assert [f["name"] for f in shown["files"]] == ["brief.md"]
    text = cli.ok("conv", "project", "work/acme").out
    assert "  model     big-model" in text and "brief.md" in text

    local.route(CHAT, sse_reply("Bonjour."))
    result = cli.ok("run", "-P", "work/acme", "hello")
    conv = result.err.strip().splitlines()[-1]
    body = local.bodies(CHAT)[-1]
    assert body["model"] == "big-model"
    system, user = body["messages"]
    assert system["content"] == "You draft image prompts.\n\nAnswer in French."
    assert "The client is ACME." in str(user["content"])
    assert _tagged(cli)[conv] == ["work/acme"]
    # Edited once, followed by the next request of the conversation; never stored in it.
    cli.ok("conv", "project", "work/acme", "--system", "Answer in German.")
    local.route(CHAT, sse_reply("Hallo."))
    cli.ok("run", "-c", conv, "again")
    system, *rest = local.bodies(CHAT)[-1]["messages"]
    assert system["content"] == "You draft image prompts.\n\nAnswer in German."
    assert "ACME" in str(rest[0]["content"])  # the first message keeps its file
    assert "ACME" not in str(rest[1:])  # ... sent with the first message only
    context = cli.ok("conv", "context", conv).out.splitlines()
    assert context[:2] == [
        "[system: agent painter] You draft image prompts.",
        "[system: project work/acme] Answer in German.",
    ]
    parts = cli.ok("conv", "context", conv, "--json").json["system_parts"]
    assert [(p["source"], p["name"]) for p in parts] == [
        ("agent", "painter"),
        ("project", "work/acme"),
    ]
    # Explicit options win; -P with -c is a usage error.
    local.route(CHAT, sse_reply("ok"))
    cli.ok("run", "-P", "work/acme", "-m", "small-model", "hi")
    assert local.bodies(CHAT)[-1]["model"] == "small-model"
    misuse = cli("run", "-P", "work/acme", "-c", conv, "hi")
    assert misuse.code == 2 and "not with -c" in misuse.err
    # A folder inside the project is in it; --no-save reads the project all the same.
    local.route(CHAT, sse_reply("ok"))
    inside = cli.ok("run", "-P", "work/acme/q3", "hi").err.strip().splitlines()[-1]
    assert local.bodies(CHAT)[-1]["model"] == "big-model"
    assert _tagged(cli)[inside] == ["work/acme/q3"]
    local.route(CHAT, sse_reply("ok"))
    cli.ok("run", "--no-save", "-P", "work/acme", "hi")
    system, user = local.bodies(CHAT)[-1]["messages"]
    assert system["content"].endswith("Answer in German.") and "ACME" in str(user["content"])
    # --clear: not a project any more.
    assert cli.ok("conv", "project", "work/acme", "--clear").out.startswith("Cleared the project")
    assert cli("conv", "project", "work/acme", "--agent", "nobody").code == 1
