"""A conversation's tokens and cost as the window and the CLI say them (issue 13, item 4):
a model without a price set reads "no price set", never "$0.0000" (which reads as free)."""

from __future__ import annotations

from ikgui.domain.events import Conversation
from ikgui.domain.settings import Settings

NO_PRICE = "no price set"


def known_cost(conv: Conversation, settings: Settings, model: str | None) -> float | None:
    """The conversation's cost, or ``None`` when it is unknown: nothing was priced and
    ``model`` (the one it talks to) has no price in the settings."""
    if conv.cost or (model or "") in settings.prices:
        return conv.cost
    return None


def usage_text(conv: Conversation, settings: Settings, model: str | None) -> str:
    """``1,234 in / 56 out · $0.0012``, ``… · no price set``, or ``no tokens yet``."""
    if not (conv.tokens_input or conv.tokens_output):
        return "no tokens yet"
    cost = known_cost(conv, settings, model)
    money = NO_PRICE if cost is None else f"${cost:.4f}"
    return f"{conv.tokens_input:,} in / {conv.tokens_output:,} out · {money}"
