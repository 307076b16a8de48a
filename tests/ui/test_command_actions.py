"""The registry's toolbar entries carry exactly what the window's old ``SPECS`` table
says (so the toolbar can be generated from the registry without a visible change)."""

from __future__ import annotations

from ikgui.domain.command_handlers import default_registry
from ikgui.ui.window.actions import SPECS


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


def test_the_window_reads_as_the_domain_rules_say() -> None:
    """The window's copies of the reading rules agree with the domain's one home (the
    lead moves the window onto ``ikgui.domain.reading``)."""
    from ikgui.domain import reading
    from ikgui.domain.events import Event, Kind
    from ikgui.ui import panels, scrollback, scrollback_items

    assert scrollback_items._LABELS == reading.ROLE_LABELS
    messages = [{"role": "user", "content": "hi"}]
    assert panels.format_context(messages) == reading.format_context(messages)
    for kind in Kind:
        for content, data in (("", {"failed": True}), ("x", {}), ("", {})):
            item = Event(1, "c", kind, content, data, 0.0)
            assert scrollback._hidden(item) == (not reading.shown(item))
