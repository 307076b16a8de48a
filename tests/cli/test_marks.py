"""Marks and rewind through the command line (SPEC §4, §5)."""

from __future__ import annotations

from tests.cli.conftest import Cli, current, edit


def test_rewind_to_first_keeps_it_and_drops_later_marks(cli: Cli) -> None:
    conv = cli.new_id("/prompt alpha")
    cli.ok("run", "-c", conv, "/mark", "first")
    cli.ok("run", "-c", conv, "/prompt", "beta")
    cli.ok("run", "-c", conv, "/mark", "second")
    cli.ok("run", "-c", conv, "/prompt", "gamma")
    assert cli.ok("run", "-c", conv, "/rewind", "first").out.strip() == "Rewound to first"

    assert cli.notices(conv) == [edit("alpha"), current("alpha")]
    shown = cli.ok("conv", "show", conv, "--json").json
    assert [m["label"] for m in shown["marks"]] == ["first"]
    assert shown["working_prompt"] == "alpha"
    assert [item["content"] for item in shown["scrollback"]] == [
        '[user edited prompt to: "alpha"]',
        "/mark first",
        "Rewound to first",
    ]
    # the log keeps everything that was rolled back
    events = cli.ok("conv", "export", conv).json["conversations"][0]["events"]
    assert [e["kind"] for e in events].count("prompt_edit") == 3

    missing = cli("run", "-c", conv, "/rewind", "second")
    assert (missing.code, missing.err.strip()) == (1, "Error: Mark not found: second")


def test_rewinding_to_the_same_mark_twice(cli: Cli) -> None:
    conv = cli.new_id("/mark", "cp")
    cli.ok("run", "-c", conv, "/prompt", "one")
    cli.ok("run", "-c", conv, "/rewind", "cp")
    cli.ok("run", "-c", conv, "/prompt", "two")
    cli.ok("run", "-c", conv, "/rewind", "cp")
    assert cli.notices(conv) == []
    shown = cli.ok("conv", "show", conv, "--json").json
    assert [i["content"] for i in shown["scrollback"]] == ["/mark cp", "Rewound to cp"]


def test_duplicate_labels_go_to_the_newest_and_labels_are_case_sensitive(cli: Cli) -> None:
    conv = cli.new_id("/mark", "dup")
    cli.ok("run", "-c", conv, "/prompt", "x")
    cli.ok("run", "-c", conv, "/mark", "dup")
    cli.ok("run", "-c", conv, "/prompt", "y")
    cli.ok("run", "-c", conv, "/rewind", "dup")
    assert cli.notices(conv) == [edit("x"), current("x")]

    wrong_case = cli("run", "-c", conv, "/rewind", "DUP")
    assert (wrong_case.code, wrong_case.err.strip()) == (1, "Error: Mark not found: DUP")


def test_labels_may_contain_spaces_and_unlabeled_rewind_takes_the_newest(cli: Cli) -> None:
    conv = cli.new_id("/mark", "before", "the", "refactor")
    cli.ok("run", "-c", conv, "/prompt", "p1")
    cli.ok("run", "-c", conv, "/mark")
    cli.ok("run", "-c", conv, "/prompt", "p2")
    assert cli.ok("run", "-c", conv, "/rewind").out.strip() == "Rewound to last mark"
    assert cli.notices(conv) == [edit("p1"), current("p1")]
    assert cli.ok("run", "-c", conv, "/rewind", "before the refactor").out.strip() == (
        "Rewound to before the refactor"
    )
    assert cli.notices(conv) == []


def test_no_marks_and_command_errors(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "x")
    result = cli("run", "-c", conv, "/rewind")
    assert (result.code, result.err.strip()) == (1, "Error: No marks found")
    empty = cli("run", "/")
    assert (empty.code, empty.err.strip()) == (2, "Error: Empty command")
    unknown = cli("run", "/frobnicate", "now")
    assert (unknown.code, unknown.err.strip()) == (2, "Error: Unknown command 'frobnicate'")
    # errors change nothing
    assert cli.notices(conv) == [edit("x"), current("x")]


def test_help_lists_every_command_in_registry_order(cli: Cli) -> None:
    out = cli.ok("run", "/help").out.splitlines()
    assert out[0] == "Available commands:"
    names = [line.split(" - ")[0].strip() for line in out[1:]]
    assert names[:5] == ["/help", "/clear", "/mark", "/rewind", "/fork"]
    assert "/quit" in names and "/export" in names
    assert all(line.startswith("  /") and " - " in line for line in out[1:])


def test_plain_text_without_a_provider(cli: Cli) -> None:
    result = cli("run", "hello")
    assert result.code in (2, 3)
    assert result.err.strip().startswith("Error: ")
