"""``ikgui conv show`` mentions a working-prompt edit a window has not saved (issue 22,
item 8: the draft is kept in the store, where the command line sees it)."""

from __future__ import annotations

from ikgui.storage import open_store
from tests.cli.conftest import Cli


def test_conv_show_mentions_an_unsaved_working_prompt_edit(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "a red fox")
    assert "Unsaved working-prompt edit" not in cli.ok("conv", "show", conv).out
    with open_store(cli.home / "ikgui.db") as store:  # as the window keeps it
        store.update_conversation(conv, prompt_draft="a red fox\nat \x1b[31mdawn")
    lines = cli.ok("conv", "show", conv).out.splitlines()
    # one line, the terminal's control characters shown, never run
    assert lines[-1] == "Unsaved working-prompt edit: a red fox\\x0aat \\x1b[31mdawn"
