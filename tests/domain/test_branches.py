"""Branches you can tell apart (issue 12 item 3): a fork's own default title."""

from __future__ import annotations

from ikgui.domain.commands.branches import branch_family, format_branches
from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings
from ikgui.domain.state.rules import branch_name, fork_title
from tests.support.memstore import MemoryStore


def test_fork_title_rule() -> None:
    assert fork_title("Painting", 2) == "↳ Painting · branch 2"
    assert fork_title("↳ Painting · branch 2", 1) == "↳ Painting · branch 2.1"
    assert fork_title("Painting", 1, "  what about   oil paint? ") == "what about oil paint?"
    assert fork_title(None, 1) is None
    long = "Plan a watercolour of a fox on a misty morning"
    assert fork_title(long, 3) == "↳ Plan a watercolour… · branch 3"
    assert branch_name("↳ Plan a watercolour… · branch 3.1") == "branch 3.1"
    assert branch_name("Plan") is None


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


def test_branch_family_lists_parent_siblings_and_children_with_fork_points() -> None:
    store = MemoryStore()
    session = Session(store, Settings(), registry=default_registry())
    session.append(Kind.USER, "Painting with oils")
    session.append(Kind.ASSISTANT, "Oils dry slowly")
    root = session.conversation.id
    first = session.fork().id
    session.append(Kind.USER, "What about acrylics?")
    grandchild = session.fork().id
    session.open(root)
    second = session.fork().id
    session.open(first)
    family = branch_family(store, first)
    assert [(b.relation, b.conversation.id) for b in family] == [
        ("parent", root),
        ("this", first),
        ("child", grandchild),
        ("sibling", second),
    ]
    by_id = {b.conversation.id: b.fork_point for b in family}
    assert by_id[first] == by_id[second] == "Reply: Oils dry slowly"
    assert by_id[grandchild] == "You: What about acrylics?"
    assert by_id[root] == ""
    text = format_branches(family)
    assert "this: ↳ Painting with oils · branch 1 *" in text and grandchild in text


async def test_the_branches_command() -> None:
    session = Session(MemoryStore(), Settings(), registry=default_registry())
    session.append(Kind.USER, "Painting with oils")
    session.fork()
    output = await session.execute("/branches")
    assert output.startswith("parent: Painting with oils")
    assert "this: ↳ Painting with oils · branch 1 *" in output


async def test_the_family_is_the_whole_subtree_with_plain_fork_points_and_closed_marks() -> None:
    """Issue 20 item 11: grandchildren were left out, fork points printed ``\\x0a\\x0a``
    and raw Markdown."""
    store = MemoryStore()
    session = Session(store, Settings(), registry=default_registry())
    session.append(Kind.USER, "Painting with oils")
    session.append(Kind.ASSISTANT, "## Oils\n\nThey **dry slowly**:\n\n```\nlinseed\n```")
    root = session.conversation.id
    first = session.fork().id
    session.append(Kind.USER, "What about *acrylics*?")
    grandchild = session.fork().id
    session.append(Kind.USER, "And gouache?")
    great = session.fork().id
    session.open(root)
    sibling = session.fork().id
    session.append(Kind.USER, "Watercolours")
    nephew = session.fork().id
    await session.execute("/kill")  # closes the nephew, back to the sibling
    session.open(first)

    family = branch_family(store, first)
    assert [(b.relation, b.conversation.id, b.depth) for b in family] == [
        ("parent", root, 0),
        ("this", first, 1),
        ("child", grandchild, 2),
        ("descendant", great, 3),
        ("sibling", sibling, 1),
        ("sibling's fork", nephew, 2),
    ]
    by_id = {b.conversation.id: b for b in family}
    assert by_id[first].fork_point == "Reply: Oils They dry slowly: linseed"
    assert by_id[grandchild].fork_point == "You: What about acrylics?"
    assert by_id[nephew].conversation.status == "killed"
    lines = format_branches(family).splitlines()
    assert lines[3].startswith("      descendant: ") and great in lines[3]
    assert lines[5].startswith("    sibling's fork: ") and "[closed]" in lines[5]
