"""Hostile import files and refs: bad ids, repeated ids, bad numbers, cycles, deep JSON,
OpenAI-shaped tool calls; exports that stay in their folder and leave no ``.tmp``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ikgui.domain.library import exchange
from ikgui.domain.text.safe import valid_id
from tests.cli.conftest import Cli

T = "2026-03-01T10:00:00+00:00"


def conv(conv_id: str, *texts: str, start: int = 1, **fields: Any) -> dict[str, Any]:
    events = [
        {"id": start + i, "kind": "user", "content": t, "data": None, "created_at": T}
        for i, t in enumerate(texts)
    ]
    return {"id": conv_id, "created_at": T, "updated_at": T, "events": events, **fields}


def doc(*convs: dict[str, Any]) -> dict[str, Any]:
    return {"format": "ikgui", "version": 1, "conversations": list(convs)}


def write(tmp_path: Path, document: object, name: str = "in.json") -> str:
    path = tmp_path / name
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text, encoding="utf-8")
    return str(path)


def imported(out: str) -> list[str]:
    return out.splitlines()[0].split(": ", 1)[1].split(", ")


BAD_IDS = {
    "../../../../tmp/escaped": "../../../../tmp/escaped",
    "a\nb": "a\\x0ab",
    "\x1b[2Jred": "\\x1b[2Jred",
    "   ": "   ",
    "-leading": "-leading",
    "x" * 10240: "x" * 59 + "…",
}


def test_invalid_ids_get_new_ones_and_are_reported(cli: Cli, tmp_path: Path) -> None:
    convs = [conv(bad, f"text {i}", start=10 * i + 1) for i, bad in enumerate(BAD_IDS)]
    convs.append(conv("Chat-Fine", "kept", start=100))
    result = cli.ok("conv", "import", write(tmp_path, doc(*convs)))
    ids = imported(result.out)
    assert len(ids) == len(BAD_IDS) + 1 and all(valid_id(i) for i in ids)
    assert ids[-1] == "chat-fine"
    assert result.out.splitlines()[1:] == [
        f"Renamed {shown} (not a valid id) to {new}"
        for shown, new in zip(BAD_IDS.values(), ids, strict=False)
    ]
    assert "\x1b" not in result.out
    # Every conversation keeps its text under its new id.
    for i, new in enumerate(ids[:-1]):
        assert [m["content"] for m in cli.context(new)] == [f"text {i}"]
    # /export's default file lands inside the exports folder.
    exports = cli.ok("--paths").out.split("exports:", 1)[1].splitlines()[0].strip()
    said = cli.ok("run", "-c", ids[0], "/export", "md").out.strip()
    assert said == f"Exported to {Path(exports).resolve() / (ids[0] + '.md')}"


def test_a_stored_bad_id_still_exports_inside_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    for bad in ("../../../../tmp/escaped", "..", "a/../../b", "x" * 300):
        path = exchange.default_export_path(bad, folder, "md")
        assert path.parent == folder.resolve() and path.suffix == ".md"
        assert len(path.name) <= 67


@pytest.mark.parametrize(
    ("ref", "shown"),
    [
        ("../../../../tmp/escaped", "../../../../tmp/escaped"),
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
        ("a\nb", "a\\x0ab"),
        ("y" * 10240, "y" * 59 + "…"),
    ],
)
def test_refs_that_cannot_be_ids_are_not_found_printably(cli: Cli, ref: str, shown: str) -> None:
    cli.new_id("/prompt", "p")
    for command in (("conv", "show", ref), ("conv", "export", ref), ("conv", "tag", ref, "+x")):
        result = cli(*command)
        assert (result.code, result.err) == (1, f"Error: Conversation not found: {shown}\n")


def test_repeated_ids_in_one_file_import_every_conversation(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path, doc(conv("chat-dup1", "first"), conv("chat-dup1", "second", start=5)))
    out = cli.ok("conv", "import", path).out.splitlines()
    assert out[0].startswith("Imported 2 conversations: chat-dup1, ")
    second = imported(out[0])[1]
    assert out[1:] == [f"Renamed chat-dup1 (repeated in the file) to {second}"]
    assert [m["content"] for m in cli.context("chat-dup1")] == ["first"]
    assert [m["content"] for m in cli.context(second)] == ["second"]


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"id": "orcx-1", "messages": [], "total_tokens": "many"}, 'total_tokens "many"'),
        ({"id": "orcx-1", "messages": [], "total_cost": "free"}, 'total_cost "free"'),
        (doc(conv("chat-a", "x", tokens={"input": "lots"})), 'tokens.input "lots"'),
        (doc(conv("chat-a", "x", cost="free")), 'cost "free"'),
        (doc(conv("chat-a", "x", cost=1e308)), "cost 1e+308, out of range"),
        (doc(conv("chat-a", "x", tokens={"output": 10**30})), "tokens.output 1000000000"),
        (doc(conv("chat-a", "x", cost=-1)), "cost -1, out of range"),
        (doc(conv("chat-a", "x", cost=[1])), "cost [1], not a number"),
    ],
)
def test_bad_numbers_refuse_the_file_in_one_line(
    cli: Cli, tmp_path: Path, document: Any, field: str
) -> None:
    result = cli("conv", "import", write(tmp_path, document))
    assert result.code == 1 and result.out == ""
    assert result.err.startswith("Error: Not a valid export: ") and field in result.err
    assert result.err.count("\n") == 1
    assert cli.ok("conv", "list").out.strip() == "No conversations."


def test_nan_cost_is_refused(cli: Cli, tmp_path: Path) -> None:
    text = json.dumps(doc(conv("chat-a", "x"))).replace('"events"', '"cost": NaN, "events"')
    result = cli("conv", "import", write(tmp_path, text))
    assert (result.code, result.err) == (
        1,
        "Error: Not a valid export: conversation 1 (chat-a) has cost nan, not a number\n",
    )


def test_a_parent_cycle_is_broken(cli: Cli, tmp_path: Path) -> None:
    a = conv("chat-a", "in a", parent="chat-b")
    b = conv("chat-b", "in b", start=5, parent="chat-a")
    selfish = conv("chat-c", "in c", start=9, parent="chat-c")
    out = cli.ok("conv", "import", write(tmp_path, doc(a, b, selfish))).out
    assert sorted(imported(out)) == ["chat-a", "chat-b", "chat-c"]
    parents = {i: cli.ok("conv", "show", i, "--json").json["parent"] for i in imported(out)}
    assert parents["chat-c"] is None
    # One of the two becomes a root; the other keeps it as its parent.
    assert (parents["chat-a"], parents["chat-b"]) in (("chat-b", None), (None, "chat-a"))


def test_a_long_parent_chain_imports(cli: Cli, tmp_path: Path) -> None:
    # Children first in the file, so each one needs its whole ancestry created before it.
    chain = [conv(f"chat-{i}", parent=f"chat-{i - 1}") for i in reversed(range(3000))]
    out = cli.ok("conv", "import", write(tmp_path, doc(*chain))).out
    assert out.startswith("Imported 3000 conversations: chat-0, chat-1, ")
    assert cli.ok("conv", "show", "chat-2999", "--json").json["parent"] == "chat-2998"


def test_deeply_nested_json_is_one_error_line(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path, "[" * 100000)
    result = cli("conv", "import", path)
    assert (result.code, result.err) == (
        1,
        f"Error: {path} is not valid JSON (nested too deeply)\n",
    )


def test_lone_surrogates_are_stored_repaired(cli: Cli, tmp_path: Path) -> None:
    text = json.dumps(doc(conv("chat-s", "bad \udc80 half", title="t \ud800")))
    assert "\\udc80" in text
    cli.ok("conv", "import", write(tmp_path, text))
    shown = cli.ok("conv", "show", "chat-s", "--json").json
    assert shown["title"] == "t ?"
    assert shown["scrollback"][0]["content"] == "bad ? half"


def test_openai_shaped_tool_calls_are_understood(cli: Cli, tmp_path: Path) -> None:
    nested = {
        "id": "call_7",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    events = [
        {"id": 1, "kind": "user", "content": "weather?", "data": None, "created_at": T},
        {"id": 2, "kind": "tool_call", "content": "", "data": nested, "created_at": T},
    ]
    orcx = {
        "id": "orcx-tool",
        "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None, "tool_calls": [nested]},
            {"role": "tool", "tool_call_id": "call_7", "content": "-3C"},
            {"role": "assistant", "content": "Cold."},
        ],
    }
    cli.ok("conv", "import", write(tmp_path, doc(conv("chat-tool", events=events)), "a.json"))
    cli.ok("conv", "import", write(tmp_path, orcx, "b.json"))
    expected_call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_7",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    }
    assert cli.context("chat-tool") == [{"role": "user", "content": "weather?"}, expected_call]
    assert cli.context("orcx-tool") == [
        {"role": "user", "content": "weather?"},
        expected_call,
        {"role": "tool", "tool_call_id": "call_7", "content": "-3C"},
        {"role": "assistant", "content": "Cold."},
    ]


def test_a_failed_export_leaves_no_tmp_file(cli: Cli, tmp_path: Path) -> None:
    ref = cli.new_id("/prompt", "p")
    target = tmp_path / "out" / "taken.md"
    target.mkdir(parents=True)  # a folder where the file should go: the rename fails
    result = cli("conv", "export", ref, "--format", "md", "-o", str(target))
    assert result.code == 1 and result.err.startswith(f"Error: Could not write {target}: ")
    assert sorted(p.name for p in target.parent.iterdir()) == ["taken.md"]
