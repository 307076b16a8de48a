"""Forks of forks (SPEC §4, §6): inherited context up to each fork point, nothing later."""

from __future__ import annotations

from tests.cli.conftest import Cli, current, edit


def fork(cli: Cli, conv: str) -> str:
    result = cli.ok("run", "-c", conv, "/fork")
    child = result.err.strip().splitlines()[-1]
    assert result.out.strip() == f"Forked child {child} from {conv}"
    return child


def edits(cli: Cli, conv: str) -> list[str]:
    return [m["content"] for m in cli.context(conv) if "edited prompt" in m["content"]]


def e(p: str) -> str:
    return f'[user edited prompt to: "{p}"]'


def test_fork_of_fork_of_fork(cli: Cli) -> None:
    root = cli.new_id("/prompt", "r1")
    cli.ok("run", "-c", root, "/mark", "root-mark")
    c1 = fork(cli, root)
    cli.ok("run", "-c", c1, "/prompt", "c1")
    c2 = fork(cli, c1)
    cli.ok("run", "-c", c2, "/prompt", "c2")
    c3 = fork(cli, c2)
    cli.ok("run", "-c", c3, "/prompt", "c3")
    # later events in ancestors are not seen by descendants, and vice versa
    cli.ok("run", "-c", root, "/prompt", "r2")
    cli.ok("run", "-c", c1, "/prompt", "c1-later")

    assert edits(cli, root) == [e("r1"), e("r2")]
    assert edits(cli, c1) == [e("r1"), e("c1"), e("c1-later")]
    assert edits(cli, c2) == [e("r1"), e("c1"), e("c2")]
    assert edits(cli, c3) == [e("r1"), e("c1"), e("c2"), e("c3")]
    assert cli.context(c3)[-1]["content"] == '[current prompt: "c3"]'

    shown = cli.ok("conv", "show", c2, "--json").json
    assert (shown["parent"], shown["status"]) == (c1, "active")
    assert shown["marks"] == []  # marks are not inherited
    scroll = [i["content"] for i in shown["scrollback"]]
    assert f"Forked from {c1}" in scroll and f"Forked child {c3}" in scroll
    assert "/mark root-mark" in scroll
    no_marks = cli("run", "-c", c2, "/rewind")
    assert no_marks.err.strip() == "Error: No marks found"

    # a clear in a child cuts inherited history; its own children keep theirs
    cli.ok("run", "-c", c2, "/clear")
    cli.ok("run", "-c", c2, "/prompt", "fresh")
    assert cli.notices(c2) == [edit("fresh"), current("fresh")]
    assert edits(cli, c3) == [e("r1"), e("c1"), e("c2"), e("c3")]

    tree = cli.ok("conv", "tree", c2).out
    assert tree.splitlines()[0].startswith(root)
    assert f"{c2} *" in tree and tree.rstrip().endswith("4 live, 0 closed")


def test_kill_rules(cli: Cli) -> None:
    root = cli.new_id("/prompt", "r")
    c1 = fork(cli, root)
    c2 = fork(cli, c1)
    fork(cli, c2)
    sibling = fork(cli, root)

    refused = cli("run", "-c", root, "/kill")
    assert (refused.code, refused.err.strip()) == (1, "Error: Cannot kill a root conversation")

    closed = cli.ok("run", "-c", c1, "/kill", "--cascade")
    assert closed.out.strip() == "Closed 3 conversations"
    # it switched to the parent, where the agent_killed event is recorded
    assert closed.err.strip().splitlines()[-1] == root
    root_scroll = [i["content"] for i in cli.ok("conv", "show", root, "--json").json["scrollback"]]
    assert root_scroll[-1] == "Closed 3 conversations"
    assert cli.ok("conv", "show", c2, "--json").json["status"] == "killed"
    assert cli.ok("conv", "show", sibling, "--json").json["status"] == "active"
    assert cli.ok("conv", "tree", root).out.rstrip().endswith("2 live, 3 closed")

    single = cli.ok("run", "-c", root, f"/kill {sibling}")
    assert single.out.strip() == f"Closed {sibling}"


def test_fork_with_a_prompt_needs_quotes_closed(cli: Cli) -> None:
    root = cli.new_id("/prompt", "r")
    bad = cli("run", "-c", root, '/fork "unterminated')
    assert (bad.code, bad.err.strip()) == (2, "Error: Unterminated quoted string")
    assert cli.ok("conv", "tree", root).out.rstrip().endswith("1 live, 0 closed")
