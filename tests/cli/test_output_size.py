"""What the command line prints stays in proportion (issue 21 item 6): a 1 MB title is
cut to the terminal's width (a sane width when stdout is no terminal) in ``conv list``,
``conv search`` and ``conv show``, and ``ikgui run`` prints a reply at a cost linear in
its length (its deltas are never added one by one to a growing string)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from ikgui.cli.output import PIPE_WIDTH
from ikgui.cli.run import _Printer
from ikgui.domain.events import Event, Kind
from ikgui.domain.state.facts import DeltaReceived
from tests.cli.conftest import Cli

BIG_TITLE = "A title that goes on " + "and on " * 150_000  # ~1 MB


def _titled(cli: Cli) -> str:
    conv = cli.new_id("/title placeholder")
    cli.ok("conv", "title", conv, BIG_TITLE)
    return conv


def test_a_huge_title_is_cut_to_a_sane_width_in_a_pipe(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    conv = _titled(cli)
    for args in (("conv", "list"), ("conv", "search", "title"), ("conv", "show", conv)):
        out = cli.ok(*args).out
        assert conv in out and "A title that goes on and on" in out, args
        widest = max(map(len, out.splitlines()))
        assert widest <= PIPE_WIDTH, (args, widest)
        assert "…" in out, args


def test_a_huge_title_is_cut_to_the_terminals_columns(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    conv = _titled(cli)
    monkeypatch.setenv("COLUMNS", "80")
    lines = cli.ok("conv", "list").out.splitlines()
    assert max(map(len, lines)) <= 80 and any(line.startswith(conv) for line in lines)


class _Session:
    prompt_mode = "off"

    def stop(self, conv_id: str | None = None) -> bool:
        return False


class _Delta(str):
    """A delta that counts the characters copied when a string is added in front of it
    (``printed += delta``): the work of keeping what was printed."""

    copied = 0

    def __radd__(self, other: Any) -> str:
        _Delta.copied += len(other)
        return str.__add__(other, self)


def test_printing_a_reply_costs_in_proportion_to_its_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    printer = _Printer(_Session(), stream=True, early=True)  # type: ignore[arg-type]
    event = Event(1, "chat-abcd", Kind.ASSISTANT, "", None, 0.0)
    pieces = 20_000
    _Delta.copied = 0
    for _ in range(pieces):
        printer(DeltaReceived("chat-abcd", event, _Delta("0123456789")))
    printer.end_line()
    assert out.getvalue() == "0123456789" * pieces + "\n"
    # Linear: what was printed before is not copied again at each delta (today's
    # quadratic cost copied ~2 billion characters for this 200 KB).
    assert _Delta.copied <= 10 * pieces
