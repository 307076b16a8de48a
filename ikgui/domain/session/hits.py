"""Opening a search hit (SPEC §14): search finds text in every alternative, and opening a
hit in a retried reply's attempt that is not the one shown chooses that attempt (a
``choose`` event), so the hit is on screen and, from then on, in the context. A hit in
an edited version or a retried earlier reply is in its own branch: opening the branch
chooses it already."""

from __future__ import annotations

from ikgui.domain.session.session import Session


def choose_hit(session: Session, event_id: int) -> bool:
    """Show the version of a turn that holds ``event_id`` in the open conversation;
    ``True`` when that took a ``choose`` (it was not shown)."""
    state = session.state
    for alternatives in state.retry_alternatives().values():
        slot = state.slots.get(alternatives.slot_event_id)
        if slot is None:
            continue
        for attempt in slot.attempts:
            if attempt.first is None or not attempt.holds(event_id):
                continue
            options = alternatives.options
            index = next((i for i, o in enumerate(options) if o.event_id == attempt.first), None)
            if index is None or index == alternatives.index:
                return False
            session.switch_alternative(alternatives, index)
            return True
    return False
