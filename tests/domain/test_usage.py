"""Usage text (issue 13, item 4): an unpriced model says "no price set", not "$0.0000"."""

from __future__ import annotations

from ikgui.domain.events import Conversation
from ikgui.domain.settings import Price, Settings
from ikgui.domain.state.usage import known_cost, usage_text


def conversation(cost: float) -> Conversation:
    return Conversation(id="c1", model="m", tokens_input=1200, tokens_output=34, cost=cost)


def test_an_unpriced_model_reads_no_price_set() -> None:
    conv = conversation(0.0)
    assert usage_text(conv, Settings(), "m") == "1,200 in / 34 out · no price set"
    assert known_cost(conv, Settings(), "m") is None


def test_a_priced_model_shows_its_cost_even_when_zero() -> None:
    settings = Settings(prices={"m": Price(input=0.0, output=0.0)})
    assert usage_text(conversation(0.0), settings, "m") == "1,200 in / 34 out · $0.0000"
    assert usage_text(conversation(0.0123), Settings(), "other").endswith("$0.0123")


def test_no_tokens_yet() -> None:
    conv = Conversation(id="c2")
    assert usage_text(conv, Settings(), None) == "no tokens yet"
