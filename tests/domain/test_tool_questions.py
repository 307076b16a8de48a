"""A tool server's question (MCP elicitation) in the domain: its form read from the
schema, a typed answer parsed and checked, and the tool loop recording every question
and its answer with the call's result — an answer that does not fit the form is
recorded (and sent) as cancelled. The host here asks through the ``ask`` it is given,
as :class:`ikgui.tools.McpHost` does (``tests/tools/test_questions.py`` runs real
servers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.session.tool_loop import PendingCall
from ikgui.domain.settings import Settings, ToolServerSettings
from ikgui.domain.state.tool_record import question_lines
from ikgui.domain.state.tool_use import ONCE, Decision
from ikgui.domain.tools import (
    ACCEPT,
    CHOICES,
    DECLINE,
    RUNNING,
    Answer,
    Asker,
    Question,
    ServerState,
    ToolInfo,
    ToolOutcome,
    decline_question,
    fields_of,
)
from tests.domain.test_tool_loop import asks
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider, text_reply

SCHEMA = {
    "type": "object",
    "properties": {
        "colour": {"type": "string", "title": "Colour", "enum": ["red", "blue"]},
        "day": {"type": "string", "format": "date"},
        "site": {"type": "string", "format": "uri"},
        "count": {"type": "integer", "minimum": 1},
        "ratio": {"type": "number", "maximum": 1},
        "ok": {"type": "boolean"},
    },
    "required": ["colour"],
}


class AskingHost:
    """One server, ``paint``, whose tool ``pick`` asks its questions, then says what
    came back."""

    def __init__(self, questions: int = 1) -> None:
        self.questions = questions

    def states(self) -> list[ServerState]:
        return [ServerState("paint", RUNNING, (ToolInfo("paint", "pick"),))]

    async def start(self, names: Sequence[str]) -> list[ServerState]:
        return self.states()

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        ask: Asker = decline_question,
    ) -> ToolOutcome:
        said = []
        for _ in range(self.questions):
            answer = await ask(Question("paint", "Pick a colour", SCHEMA))
            said.append(answer.action)
        return ToolOutcome(" ".join(said), True)

    async def close(self) -> None:
        pass


def test_the_form_the_fields_and_their_checks() -> None:
    fields = {f.name: f for f in fields_of(SCHEMA)}
    assert fields["colour"].required and fields["colour"].label == "Colour"
    assert fields["day"].problem("2026-02-30") == "It must be a date such as 2026-12-31."
    assert fields["day"].problem("2026-02-28") is None
    assert fields["site"].problem("not a uri") is not None
    assert fields["site"].problem("https://example.org") is None
    assert fields["count"].problem(0) == "It must be at least 1."
    assert fields["count"].problem(1.5) == "It must be a whole number."
    assert fields["count"].problem(True) == "It must be a number."
    assert fields["ratio"].problem(2) == "It must be at most 1."
    assert fields["ok"].problem("yes") == "It must be yes or no."
    assert fields["colour"].problem(None) == "It is required."
    assert fields["ratio"].problem(None) is None  # optional, not given
    assert fields["count"].parse(" 3 ") == 3 and fields["ratio"].parse("0.5") == 0.5
    assert fields["ok"].parse("Yes") is True and fields["colour"].parse("BLUE") == "blue"
    with pytest.raises(ValueError, match="whole number"):
        fields["count"].parse("3.5")
    with pytest.raises(ValueError, match="a number"):
        fields["ratio"].parse("nan")
    several = fields_of(
        {"properties": {"x": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 1}}}
    )[0]
    assert several.kind == CHOICES and several.parse("a, b") == ["a", "b"]
    assert several.problem(["a", "b"]) == "Choose at most 1."
    assert fields_of({"properties": "nonsense"}) == ()


def session_with(host: AskingHost) -> Session:
    provider = ScriptedProvider(asks(("c1", "paint__pick", {})), text_reply("Done."))
    config = Settings(tool_servers={"paint": ToolServerSettings("paint", command="paint")})
    session = Session(MemoryStore(), config, provider_factory=provider, tool_host=host)
    session.new_conversation(None)
    assert session.tools is not None

    async def allow(call: PendingCall) -> Decision:
        return Decision(ONCE)

    session.tools.approver = allow
    return session


async def test_every_question_and_its_answer_is_recorded_with_the_result() -> None:
    session = session_with(AskingHost(questions=3))
    answers = iter(
        [
            Answer(ACCEPT, {"colour": "green"}),  # not a choice: not sent
            Answer(ACCEPT, {"colour": "red", "count": 2}),
            Answer(DECLINE),
        ]
    )
    seen: list[tuple[str, str]] = []

    async def questioner(call: PendingCall, question: Question) -> Answer:
        seen.append((call.qualified, question.message))
        return next(answers)

    assert session.tools is not None
    session.tools.questioner = questioner
    await session.send("Paint it")
    assert seen == [("paint.pick", "Pick a colour")] * 3
    [result] = [e for e in session.state.scrollback if e.kind == Kind.TOOL_RESULT]
    assert result.data["output"] == "cancel accept decline"
    questions = result.data["questions"]
    assert [q["action"] for q in questions] == ["cancel", "accept", "decline"]
    assert questions[0]["note"] == "the answer did not fit the form"
    assert "content" not in questions[0] and questions[1]["content"] == {
        "colour": "red",
        "count": 2,
    }
    assert questions[1]["schema"] == SCHEMA
    assert question_lines(result) == [
        'Asked: "Pick a colour" → cancelled (the answer did not fit the form)',
        'Asked: "Pick a colour" → answered: colour = red; count = 2',
        'Asked: "Pick a colour" → declined',
    ]


async def test_nobody_to_ask_declines() -> None:
    session = session_with(AskingHost())
    await session.send("Paint it")
    [result] = [e for e in session.state.scrollback if e.kind == Kind.TOOL_RESULT]
    assert result.data["output"] == "decline"
    assert result.data["questions"][0]["note"] == "no one was there to answer"
