"""Export and import (lossless JSON, orcx files, Markdown) and tool calls in context."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Cli

T = "2026-03-01T10:00:00+00:00"


def ev(i: int, kind: str, content: str = "", data: dict | None = None) -> dict:  # type: ignore[type-arg]
    return {"id": i, "kind": kind, "content": content, "data": data, "created_at": T}


TOOL_CONV = {
    "id": "chat-tool",
    "agent": None,
    "provider": "openai",
    "model": "gpt-x",
    "title": "weather",
    "tags": ["tools"],
    "created_at": T,
    "updated_at": T,
    "events": [
        ev(1, "user", "What is the weather in Oslo?"),
        ev(2, "assistant", "Let me look.", {"provider": "openai", "model": "gpt-x"}),
        ev(
            3,
            "tool_call",
            "get_weather(Oslo)",
            {"id": "call_9", "name": "get_weather", "arguments": {"city": "Oslo"}},
        ),
        ev(
            4,
            "tool_result",
            "ok",
            {
                "tool_call_id": "call_9",
                "name": "get_weather",
                "output": "-3C, snow",
                "success": True,
            },
        ),
        ev(5, "assistant", "It is -3C with snow."),
    ],
}


def write(tmp_path: Path, doc: object, name: str = "in.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_imported_tool_calls_reach_the_context(cli: Cli, tmp_path: Path) -> None:
    doc = {"format": "ikgui", "version": 1, "conversations": [TOOL_CONV]}
    out = cli.ok("conv", "import", str(write(tmp_path, doc))).out
    assert out.strip() == "Imported 1 conversation: chat-tool"
    context = cli.ok("conv", "context", "tool", "--json").json
    assert (context["id"], context["provider"], context["model"]) == (
        "chat-tool",
        "openai",
        "gpt-x",
    )
    assert context["messages"] == [
        {"role": "user", "content": "What is the weather in Oslo?"},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {
                    "id": "call_9",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_9", "content": "-3C, snow"},
        {"role": "assistant", "content": "It is -3C with snow."},
    ]
    text = cli.ok("conv", "context", "tool").out
    assert "-> get_weather" in text and "[call_9] -3C, snow" in text


def test_fork_export_includes_ancestors_and_round_trips(cli: Cli, tmp_path: Path) -> None:
    root = cli.new_id("/prompt", "r1")
    cli.ok("run", "-c", root, "/mark", "m")
    child = cli.ok("run", "-c", root, "/fork").err.strip().splitlines()[-1]
    cli.ok("run", "-c", child, "/prompt", "c1")
    cli.ok("run", "-c", child, "/tag", "+branch")
    cli.ok("run", "-c", root, "/prompt", "r-later")
    exported = cli.ok("conv", "export", child).json
    assert exported["format"] == "ikgui" and exported["version"] == 1
    assert [c["id"] for c in exported["conversations"]] == [root, child]
    assert exported["conversations"][1]["parent"] == root
    path = write(tmp_path, exported, "fork.json")
    before_child, before_root = cli.context(child), cli.context(root)

    # into a fresh home: same ids, same contexts, fork link kept
    other = Cli(tmp_path / "other", cli.capsys)
    assert other.ok("conv", "import", str(path)).out.strip() == (
        f"Imported 2 conversations: {root}, {child}"
    )
    assert other.context(child) == before_child
    assert other.context(root) == before_root
    assert other.ok("conv", "show", child, "--json").json["tags"] == ["branch"]
    again = other.ok("conv", "export", child).json["conversations"]
    for a, b in zip(again, exported["conversations"], strict=True):
        assert [(e["kind"], e["content"]) for e in a["events"]] == [
            (e["kind"], e["content"]) for e in b["events"]
        ]
        assert {k: v for k, v in a.items() if k not in ("events",)} == {
            k: v for k, v in b.items() if k not in ("events",)
        }

    # into the same home: ids clash, so the copies get new ones, links remapped
    lines = cli.ok("conv", "import", str(path)).out.splitlines()
    ids = lines[0].split(": ", 1)[1].split(", ")
    assert len(ids) == 2 and root not in ids and child not in ids
    assert lines[1:] == [
        f"Renamed {root} (already taken) to {ids[0]}",
        f"Renamed {child} (already taken) to {ids[1]}",
    ]
    assert cli.ok("conv", "show", ids[1], "--json").json["parent"] == ids[0]
    assert cli.context(ids[1]) == before_child


def test_markdown_export(cli: Cli, tmp_path: Path) -> None:
    cli.ok(
        "conv",
        "import",
        str(write(tmp_path, {"format": "ikgui", "version": 1, "conversations": [TOOL_CONV]})),
    )
    md = cli.ok("conv", "export", "tool", "--format", "md").out
    assert md.startswith("# weather\n")
    assert "### You\n\nWhat is the weather in Oslo?" in md
    assert "**Tool call** `get_weather`" in md
    out_file = tmp_path / "out" / "t.md"
    assert cli.ok("conv", "export", "tool", "--format", "md", "-o", str(out_file)).code == 0
    assert out_file.read_text(encoding="utf-8") == md
    slash = cli.ok("run", "-c", "tool", "/export", "md", str(tmp_path / "s.md")).out
    assert slash.strip() == f"Exported to {tmp_path / 's.md'}"


def test_orcx_import(cli: Cli, tmp_path: Path) -> None:
    orcx = {
        "id": "orcx-a1b2",
        "agent": None,
        "model": "llama3",
        "messages": [
            {"role": "user", "content": "hi there", "timestamp": "2025-01-01T10:00:00"},
            {"role": "assistant", "content": "hello!", "timestamp": "2025-01-01T10:00:05"},
        ],
        "created_at": "2025-01-01T10:00:00",
        "updated_at": "2025-01-01T10:00:05",
        "total_tokens": 42,
        "total_cost": 0.01,
        "title": None,
        "tags": ["Imported"],
    }
    out = cli.ok("conv", "import", str(write(tmp_path, orcx))).out
    assert out.strip() == "Imported 1 conversation: orcx-a1b2"
    shown = cli.ok("conv", "show", "a1b2", "--json").json
    assert shown["model"] == "llama3" and shown["tags"] == ["imported"]
    assert shown["tokens"] == {"input": 0, "output": 42} and shown["cost"] == 0.01
    assert [m["content"] for m in cli.context("a1b2")] == ["hi there", "hello!"]


def test_bad_imports_change_nothing(cli: Cli, tmp_path: Path) -> None:
    cases = {
        "garbage.json": "not json at all",
        "wrong.json": json.dumps({"hello": "world"}),
        "version.json": json.dumps({"format": "ikgui", "version": 99, "conversations": []}),
        "noid.json": json.dumps(
            {"format": "ikgui", "version": 1, "conversations": [{"events": []}]}
        ),
        "badevent.json": json.dumps(
            {
                "format": "ikgui",
                "version": 1,
                "conversations": [
                    {"id": "chat-ok12", "events": [ev(1, "user", "x"), {"kind": "user"}]}
                ],
            }
        ),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = cli("conv", "import", str(path))
        assert result.code == 1, name
        assert result.err.startswith("Error: "), name
    missing = cli("conv", "import", str(tmp_path / "nope.json"))
    assert missing.code == 1 and "Cannot read" in missing.err
    assert cli.ok("conv", "list").out.strip() == "No conversations."
