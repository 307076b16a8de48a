"""Issue 22, item 8: the Agents and Providers pages share one editor of named entries
(the list of names with Add and Remove beside the form): the same widget, the same
behaviour on both pages, and no copy of it left in either page."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator

import pytest
import shiboken6
from pytestqt.qtbot import QtBot

from ikgui.local.keys import KeyStore
from ikgui.ui.settings import agents as settings_agents
from ikgui.ui.settings import providers as settings_providers
from ikgui.ui.settings.dialog import SettingsDialog
from ikgui.ui.settings.entries import NamedEntries
from tests.support.memkeyring import MemoryKeyring
from tests.ui.test_settings_dialog import Harness, owned_dialogs

PAGES = ("agents_page", "providers_page")


@pytest.fixture(autouse=True)
def delete_dialogs() -> Iterator[None]:
    yield
    while owned_dialogs:
        dialog = owned_dialogs.pop()
        dialog.close()
        shiboken6.delete(dialog)


def dialog(qtbot: QtBot) -> tuple[Harness, SettingsDialog]:
    harness = Harness(qtbot, KeyStore())
    return harness, harness.dialog


@pytest.mark.parametrize("page_name", PAGES)
def test_both_pages_edit_their_names_with_the_one_shared_editor(
    qtbot: QtBot, memory_keyring: MemoryKeyring, page_name: str
) -> None:
    harness, settings = dialog(qtbot)
    page = getattr(settings, page_name)
    entries = page.editor
    assert isinstance(entries, NamedEntries) and entries.drafts is page.drafts
    what = entries.what
    first = list(page.names())
    changes: list[int] = []
    entries.changed.connect(lambda: changes.append(1))

    entries.add_button.click()
    assert page.names() == [*first, f"{what}-1"] and entries.list.currentRow() == len(first)
    assert page.current is page.drafts[-1] and changes == [1]

    harness.type_into(page.name_edit, first[0])  # a taken name: marked, and listed as typed
    assert entries.list.currentItem().text() == first[0]
    assert page.name_edit.property("invalid") is True
    assert any("names must be unique" in issue.message for issue in page.issues())
    harness.type_into(page.name_edit, "")
    assert entries.list.currentItem().text() == "(unnamed)"
    harness.type_into(page.name_edit, "fresh")
    assert page.name_edit.property("invalid") is False and page.names()[-1] == "fresh"

    entries.remove_button.click()
    assert page.names() == first and changes[-1] == 1
    while page.names():
        entries.remove_button.click()
    assert page.current is None and not entries.remove_button.isEnabled()
    assert not page.form.isEnabled()


def test_no_page_keeps_a_copy_of_the_named_entries_editor() -> None:
    """Selecting, renaming, adding and removing an entry live in ``entries`` only."""
    shared = {"current", "_name_edited", "names", "select", "free_name", "remove_current"}
    for module in (settings_agents, settings_providers):
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in shared:
                body = node.body[1:] if ast.get_docstring(node) else node.body
                assert len(body) == 1, f"{module.__name__}.{node.name} is a copy"
            # the list of names is the editor's own: no page reads or changes its items
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
                on_list = node.value.attr == "list"
                assert not on_list or node.attr not in ("currentItem", "takeItem", "addItem")
