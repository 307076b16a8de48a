"""Show context says where each part of the system prompt came from (SPEC §15, issue 26
item 3): the agent's, then the project's, each a block of its own; a project's prompt
edited once is what the next request of its conversations carries."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from ikgui.domain.folders import Project
from ikgui.ui.window.main_window import MainWindow
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer
from tests.ui.test_window import reply, settle, type_and_send, window

__all__ = ["window", "wire_server", "wire_server_session"]


async def test_show_context_names_the_agent_and_the_project(
    window: MainWindow, wire_server: WireServer, qtbot: QtBot
) -> None:
    session = window.session
    session.library.set_project(Project("work/acme", system_prompt="Answer in French."))
    session.new_conversation("painter", project="work/acme")
    await settle(window)
    wire_server.route("/v1/chat/completions", reply("Bonjour."))
    await type_and_send(qtbot, window, "hello")
    await settle(window)
    system = wire_server.bodies("/v1/chat/completions")[-1]["messages"][0]
    assert system["content"] == "You draft image prompts.\n\nAnswer in French."
    window.show_context()
    text = window.context_dialog.view.toPlainText()
    assert text.startswith(
        "[system: agent painter]\nYou draft image prompts.\n\n"
        "[system: project work/acme]\nAnswer in French.\n\n[user]\nhello"
    )
    window.context_dialog.close()
