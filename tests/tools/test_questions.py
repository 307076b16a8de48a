"""A server's question during a call (MCP elicitation) through the host, against real
servers: ``server-everything``'s ``trigger-elicitation-request`` and the suite's own
server's ``survey``, ``insist`` and ``visit``. The question hops from the host's loop to
the caller's and its answer back; an answer that does not fit the form is not sent."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from ikgui.domain.settings import ToolServerSettings
from ikgui.domain.tools import (
    ACCEPT,
    BOOLEAN,
    CHOICE,
    CHOICES,
    DECLINE,
    INTEGER,
    NUMBER,
    TEXT,
    Answer,
    Question,
)
from ikgui.tools import McpHost
from tests.support.mcp_servers import everything_server, faulty_server

pytestmark = pytest.mark.asyncio

HostMaker = Callable[..., McpHost]


@pytest.fixture
async def make_host() -> AsyncIterator[HostMaker]:
    hosts: list[McpHost] = []

    def make(*servers: ToolServerSettings) -> McpHost:
        host = McpHost({s.name: s for s in servers})
        hosts.append(host)
        return host

    yield make
    for host in hosts:
        await host.close()


def answering(*answers: Answer) -> tuple[list[Question], Callable[..., object]]:
    """An asker that gives ``answers`` in turn, and the questions it was asked (on the
    caller's loop and thread: the test's)."""
    asked: list[Question] = []
    thread = threading.get_ident()

    async def ask(question: Question) -> Answer:
        assert threading.get_ident() == thread  # hopped back to the caller's loop
        asked.append(question)
        return answers[len(asked) - 1]

    return asked, ask


async def test_server_everything_asks_its_form_and_reads_the_answer(
    make_host: HostMaker,
) -> None:
    host = make_host(everything_server())
    [state] = await host.start(["everything"])
    # It offers the tool only to a client that says it can answer questions.
    assert "trigger-elicitation-request" in {t.name for t in state.tools}
    asked, ask = answering(Answer(ACCEPT, {"name": "Ada Lovelace", "check": True, "integer": 7}))
    outcome = await host.call("everything", "trigger-elicitation-request", {}, ask)
    assert outcome.success, outcome
    assert "- Name: Ada Lovelace" in outcome.output
    assert "- Favorite Integer: 7" in outcome.output
    [question] = asked
    assert question.server == "everything"
    assert question.message == "Please provide inputs for the following fields:"
    kinds = {f.name: f.kind for f in question.fields}
    assert kinds["name"] == TEXT and kinds["check"] == BOOLEAN
    assert kinds["integer"] == INTEGER and kinds["number"] == NUMBER
    assert kinds["untitledSingleSelectEnum"] == CHOICE
    assert kinds["titledSingleSelectEnum"] == CHOICE
    assert kinds["untitledMultipleSelectEnum"] == CHOICES
    assert kinds["legacyTitledEnum"] == CHOICE
    hero = next(f for f in question.fields if f.name == "titledSingleSelectEnum")
    assert hero.choices[0] == ("hero-1", "Superman")
    pet = next(f for f in question.fields if f.name == "legacyTitledEnum")
    assert pet.choices[1] == ("pet-2", "Dogs")
    name = next(f for f in question.fields if f.name == "name")
    assert name.required and name.label == "String"


async def test_declined_and_without_an_asker_declined(make_host: HostMaker) -> None:
    host = make_host(everything_server())
    asked, ask = answering(Answer(DECLINE))
    declined = await host.call("everything", "trigger-elicitation-request", {}, ask)
    assert "User declined" in declined.output and len(asked) == 1
    unasked = await host.call("everything", "trigger-elicitation-request", {})
    assert "User declined" in unasked.output


async def test_an_answer_that_does_not_fit_the_form_is_not_sent(make_host: HostMaker) -> None:
    host = make_host(faulty_server())
    # "name" is too short, "age" out of range, "colour" not a choice, "toppings" empty.
    bad = {"name": "A", "age": 200, "colour": "purple", "toppings": []}
    asked, ask = answering(Answer(ACCEPT, bad))
    outcome = await host.call("faulty", "survey", {}, ask)
    assert json.loads(outcome.output) == {"action": "cancel", "content": None}
    assert asked[0].problems(bad) == {
        "name": "It must have at least 2 characters.",
        "age": "It must be at most 150.",
        "colour": "Choose one of the choices.",
        "toppings": "Choose at least 1.",
    }
    good = {"name": "Ada", "age": 36, "colour": "red", "toppings": ["basil"], "height": 1.6}
    _asked, ask = answering(Answer(ACCEPT, good))
    outcome = await host.call("faulty", "survey", {}, ask)
    assert json.loads(outcome.output) == {"action": "accept", "content": good}


async def test_a_question_waits_for_the_user_past_the_time_limit(
    make_host: HostMaker, tmp_path: Path
) -> None:
    """The call's ``timeout`` does not count the time the user takes to answer: another
    call of the same server times out meanwhile, the asking one does not."""
    host = make_host(faulty_server(timeout=0.5))
    asked, release = asyncio.Event(), asyncio.Event()

    async def slow(question: Question) -> Answer:
        asked.set()
        await release.wait()
        return Answer(ACCEPT, {"colour": "blue"})

    call = asyncio.ensure_future(host.call("faulty", "insist", {}, slow))
    await asked.wait()
    marker = tmp_path / "hang"
    hung = await host.call("faulty", "hang", {"marker": str(marker)})
    assert hung.output == "Timed out after 0.5 s"  # the limit has passed…
    assert not call.done()  # …and the question still waits for its answer
    release.set()
    outcome = await call
    assert outcome.output == "went on with blue after accept", outcome


async def test_url_mode_shows_the_address_and_the_answer_goes_back(make_host: HostMaker) -> None:
    host = make_host(faulty_server())
    asked, ask = answering(Answer(ACCEPT))
    outcome = await host.call("faulty", "visit", {"url": "https://example.org/sign-in"}, ask)
    assert json.loads(outcome.output)["action"] == "accept"
    assert asked[0].url == "https://example.org/sign-in"
    assert asked[0].message == "Sign in to continue" and asked[0].fields == ()


async def test_a_call_cancelled_while_asking_cancels_its_question(make_host: HostMaker) -> None:
    host = make_host(faulty_server())
    opened = asyncio.Event()
    closed: list[str] = []

    async def forever(question: Question) -> Answer:
        opened.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            closed.append("cancelled")
            raise
        return Answer(DECLINE)

    call = asyncio.ensure_future(host.call("faulty", "insist", {}, forever))
    await opened.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    while not closed:
        await asyncio.sleep(0.01)
    assert closed == ["cancelled"]
    # The server is still there for the next call.
    _asked, ask = answering(Answer(ACCEPT, {"colour": "red"}))
    outcome = await host.call("faulty", "insist", {}, ask)
    assert outcome.output == "went on with red after accept"
