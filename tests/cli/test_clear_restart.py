"""A clear survives a restart: only what followed it is context, the log keeps all."""

from __future__ import annotations

import sqlite3

from tests.cli.conftest import Cli, current, edit


def test_clear_then_restart(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "before")
    cli.ok("run", "-c", conv, "/mark", "m")
    cli.ok("run", "-c", conv, "/clear")
    cli.ok("run", "-c", conv, "/prompt", "after")

    # a new process: nothing is carried in memory
    shown = cli.process("conv", "show", conv, "--json")
    assert shown.code == 0, shown.err
    data = shown.json
    assert [i["content"] for i in data["scrollback"]] == ['[user edited prompt to: "after"]']
    assert data["marks"] == []
    context = cli.process("conv", "context", conv, "--json").json["messages"]
    assert [f"{m['role']}: {m['content']}" for m in context] == [edit("after"), current("after")]

    with sqlite3.connect(cli.home / "ikgui.db") as db:
        kinds = [
            k
            for (k,) in db.execute(
                "SELECT kind FROM event WHERE conversation_id = ? ORDER BY id", (conv,)
            )
        ]
    assert kinds == ["prompt_edit", "mark", "clear", "prompt_edit"]


def test_clear_resets_the_working_prompt(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "p")
    cli.ok("run", "-c", conv, "/clear")
    assert cli.ok("conv", "show", conv, "--json").json["working_prompt"] == ""
    assert cli.ok("run", "-c", conv, "/prompt").out.strip() == "No working prompt"


def test_settings_survive_a_clear_and_a_restart(cli: Cli) -> None:
    conv = cli.new_id("/system", "Answer tersely.")
    cli.ok("run", "-c", conv, "/model", "tiny-model")
    cli.ok("run", "-c", conv, "/clear")
    context = cli.process("conv", "context", conv, "--json").json
    assert context["model"] == "tiny-model"
    assert context["messages"] == [{"role": "system", "content": "Answer tersely."}]
    cli.ok("run", "-c", conv, "/system")
    assert cli.context(conv) == []
