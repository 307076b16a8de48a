"""The registry's toolbar entries carry exactly what the window's old ``SPECS`` table
says (so the toolbar can be generated from the registry without a visible change)."""

from __future__ import annotations

from ikgui.domain.command_handlers import default_registry
from ikgui.ui.window_actions import SPECS


def test_registry_actions_match_the_window_table() -> None:
    from_registry = [
        (a.object_name, a.label, a.icon, a.shortcut, a.tooltip)
        for a in (c.action for c in default_registry().actions())
        if a is not None
    ]
    from_table = [
        (s.name, s.text, s.icon, s.shortcut, s.tip) for s in SPECS if s.name != "actionSettings"
    ]
    assert from_registry == from_table
