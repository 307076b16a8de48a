"""Branches you can tell apart (issue 12 item 3): a fork's own default title."""

from __future__ import annotations

from ikgui.domain.command_handlers import default_registry
from ikgui.domain.events import Kind
from ikgui.domain.rules import fork_title
from ikgui.domain.session import Session
from ikgui.domain.settings import Settings
from tests.support.memstore import MemoryStore


def test_fork_title_rule() -> None:
    assert fork_title("Painting", 2) == "↳ Painting · branch 2"
    assert fork_title("↳ Painting · branch 2", 1) == "↳ Painting · branch 2.1"
    assert fork_title("Painting", 1, "  what about   oil paint? ") == "what about oil paint?"
    assert fork_title(None, 1) is None


def test_a_fork_title_differs_from_its_parent_and_its_siblings() -> None:
    session = Session(MemoryStore())
    session.append(Kind.USER, "Painting with oils")
    root = session.conversation
    assert root.title == "Painting with oils"
    first = session.fork()
    session.open(root.id)
    second = session.fork()
    grandchild = session.fork()
    assert first.title == "↳ Painting with oils · branch 1"
    assert second.title == "↳ Painting with oils · branch 2"
    assert grandchild.title == "↳ Painting with oils · branch 2.1"


async def test_fork_with_a_prompt_is_titled_by_the_prompt() -> None:
    session = Session(MemoryStore(), Settings(), registry=default_registry())
    session.append(Kind.USER, "Painting with oils")
    await session.execute("/fork")  # no prompt: the numbered title
    assert session.conversation.title == "↳ Painting with oils · branch 1"
    session.open(session.conversation.parent or "")
    child = session.fork(prompt="Try watercolours instead")
    assert child.title == "Try watercolours instead"
