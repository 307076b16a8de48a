"""Comparing models (SPEC §14): one message sent to several models at once.

Each answer is a branch of its own, forked at the same event (the newest before the
message), holding the message and its model's answer, with that model as its model and
titled "<title> · <model>": nothing is special in the log. The answers stream
concurrently, each into its branch through an open conversation of its own (the one on
screen stays where it is); one failing model does not stop the others. A
:class:`Comparison` is what a view or ``ikgui run --compare`` follows: for each answer,
its text so far, time to first token, tokens, tokens per second and cost.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ikgui.domain.attachments import Attachment, StoredFile
from ikgui.domain.errors import IkguiError, UsageError, UserError
from ikgui.domain.events import BRANCH_COMPARE, Event, Kind
from ikgui.domain.session.open_conversation import Listener, OpenConversation
from ikgui.domain.session.reply import ProviderFactory
from ikgui.domain.session.sender import ReplyStreamer
from ikgui.domain.settings import Settings
from ikgui.domain.state.catalog import parse_choice
from ikgui.domain.state.facts import (
    Changed,
    DeltaReceived,
    Fact,
    StreamFinished,
    StreamStarted,
)
from ikgui.domain.state.rules import title_for_first_message
from ikgui.domain.state.usage import NO_PRICE

log = logging.getLogger(__name__)

#: Why a compare branch was made (``fork`` events' ``reason``, SPEC §14).
REASON = BRANCH_COMPARE
USAGE = "Usage: /compare MODEL MODEL… (a model is NAME or PROVIDER/NAME; /compare off cancels)"
#: An answer's states.
WAITING, STREAMING, DONE, FAILED, STOPPED = "waiting", "streaming", "done", "failed", "stopped"


@dataclass(frozen=True)
class Contender:
    """One model compared: where it is served and its name."""

    provider: str
    model: str

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}"


def contenders(
    specs: Sequence[str],
    settings: Settings,
    provider: str,
    lister: Callable[[str], list[str] | None] | None = None,
) -> list[Contender]:
    """The models ``specs`` names (``name`` at ``provider``, or ``provider/name``), each
    once, at least two; a provider that lists its models must list each."""
    picked: list[Contender] = []
    for spec in (s.strip() for s in specs):
        if not spec:
            continue
        here_models = lister(provider) if lister else None
        where, name = parse_choice(spec, settings, provider, here_models)
        if where not in settings.providers:
            raise UserError(f"Unknown provider '{where}'")
        listed = lister(where) if lister else None
        if listed is not None and name not in listed:
            at = "" if where == provider else f" at {where}"
            raise UserError(f"Unknown model '{name}'{at}")
        contender = Contender(where, name)
        if contender not in picked:
            picked.append(contender)
    if len(picked) < 2:
        raise UsageError(USAGE)
    return picked


@dataclass
class Answer:
    """One model's answer as it streams (a column of the window's compare view)."""

    contender: Contender
    branch_id: str
    started: float
    first_token: float | None = None
    finished: float | None = None
    pieces: list[str] = field(default_factory=list)
    #: Deltas received: a token count while the reply streams (the provider's own count
    #: replaces it at the end).
    deltas: int = 0
    output_tokens: int | None = None
    input_tokens: int | None = None
    cost: float | None = None
    error: str | None = None
    stopped: bool = False
    reply: Event | None = None

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    @property
    def state(self) -> str:
        if self.error is not None:
            return FAILED
        if self.stopped:
            return STOPPED
        if self.finished is not None:
            return DONE
        return STREAMING if self.first_token is not None else WAITING

    @property
    def time_to_first_token(self) -> float | None:
        return None if self.first_token is None else self.first_token - self.started

    @property
    def tokens(self) -> int:
        """Output tokens: the provider's count once known, else the deltas so far."""
        return self.output_tokens if self.output_tokens is not None else self.deltas

    def tokens_per_second(self, now: float) -> float | None:
        if self.first_token is None:
            return None
        elapsed = (self.finished if self.finished is not None else now) - self.first_token
        return self.tokens / elapsed if elapsed > 0 and self.tokens else None


#: Told each time an answer changes (its text grew, it ended).
Watcher = Callable[[Answer], None]


class Comparison:
    """A message compared across models: its answers, in the order the models were
    given, and the tasks streaming them."""

    def __init__(
        self, parent_id: str, text: str, answers: list[Answer], clock: Callable[[], float]
    ) -> None:
        self.parent_id = parent_id
        self.text = text
        self.answers = answers
        self.clock = clock
        self.watchers: list[Watcher] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.running = False

    def answer_for(self, branch_id: str) -> Answer | None:
        return next((a for a in self.answers if a.branch_id == branch_id), None)

    @property
    def failed(self) -> list[Answer]:
        return [a for a in self.answers if a.state == FAILED]

    def stop(self) -> bool:
        """Stop every answer still streaming (what arrived is kept, marked stopped)."""
        live = [t for t in self.tasks if not t.done()]
        for task in live:
            task.cancel()
        return bool(live)

    def tell(self, answer: Answer) -> None:
        for watcher in list(self.watchers):
            try:
                watcher(answer)
            except Exception:  # a view's failure never stops the streams
                log.exception("A compare view failed")

    def hear(self, answer: Answer) -> Listener:
        """The listener that follows ``answer``'s branch: its deltas, as they come."""

        def listener(fact: Fact) -> None:
            if isinstance(fact, DeltaReceived) and fact.conversation_id == answer.branch_id:
                if answer.first_token is None:
                    answer.first_token = self.clock()
                answer.pieces.append(fact.text)
                answer.deltas += 1
                self.tell(answer)

        return listener


def _forwarded(listener: Listener) -> Listener:
    """What a branch's conversation tells the session's listeners: its changes (the
    sidebar lists and counts it) and its streaming, never a switch (the window stays on
    the conversation it shows)."""

    def forward(fact: Fact) -> None:
        if isinstance(fact, (Changed, StreamStarted, StreamFinished)):
            listener(fact)

    return forward


def branch_title(current: OpenConversation, text: str, files: Sequence[object]) -> str:
    """The title the compared conversation has, or would get from this message."""
    conv = current.conversation
    if conv.title:
        return conv.title
    data = {"attachments": [f.data() for f in files if isinstance(f, Attachment)]}
    return title_for_first_message(conv, Kind.USER, text, data) or "Untitled"


def prepare(
    current: OpenConversation,
    text: str,
    picked: Sequence[Contender],
    files: Sequence[StoredFile | Attachment] = (),
    clock: Callable[[], float] = time.monotonic,
) -> Comparison:
    """Make one branch per model, all forked at the same event (the newest before the
    message); the conversation on screen stays."""
    shown = [f.attachment if isinstance(f, StoredFile) else f for f in files]
    title = branch_title(current, text, shown)
    point = current.fork_point()  # (``None``: nothing yet, so nothing is inherited)
    if not current.conversation.title:  # (a new conversation: named by its question)
        current.update_fields(title=title)
    answers: list[Answer] = []
    for contender in picked:
        child = current.branch(
            point,
            title=f"{title} · {contender.model}",
            model=(contender.provider, contender.model),
            reason=REASON,
            inherit=point is not None,
        )
        answers.append(Answer(contender, child.id, clock()))
    return Comparison(current.conversation.id, text, answers, clock)


async def run(
    comparison: Comparison,
    current: OpenConversation,
    factory: ProviderFactory,
    files: Sequence[StoredFile | Attachment] = (),
    send_wait: float | None = None,
) -> Comparison:
    """Stream every answer at once; returns when all have ended (failed or not)."""
    comparison.running = True
    comparison.tasks = [
        asyncio.ensure_future(_answer(comparison, a, current, factory, files, send_wait))
        for a in comparison.answers
    ]
    try:
        await asyncio.gather(*comparison.tasks, return_exceptions=True)
    finally:
        comparison.running = False
    return comparison


async def _answer(
    comparison: Comparison,
    answer: Answer,
    current: OpenConversation,
    factory: ProviderFactory,
    files: Sequence[StoredFile | Attachment],
    send_wait: float | None,
) -> None:
    """One model's answer, in its branch: the message, then the streamed reply."""
    # (a write the store refuses fails this answer: its queue would end with it)
    branch = OpenConversation(
        current.store, current.settings, clock=current.clock, keep_pending=False
    )
    branch.locked = current.locked
    for listener in current.listeners:
        branch.subscribe(_forwarded(listener))
    branch.subscribe(comparison.hear(answer))
    answer.started = comparison.clock()
    try:
        branch.open(answer.branch_id)
        streamer = ReplyStreamer(branch, factory, send_wait)
        reply = await streamer.send(comparison.text, files)
    except asyncio.CancelledError:
        answer.stopped = True
        reply = None
    except IkguiError as exc:
        answer.error = exc.message
        reply = None
    except Exception as exc:  # one model's surprise never stops the others
        log.exception("A compared model's answer failed")
        answer.error = f"Failed: {type(exc).__name__}"
        reply = None
    answer.finished = comparison.clock()
    if reply is not None:
        _take_reply(answer, reply)
    comparison.tell(answer)


def _take_reply(answer: Answer, reply: Event) -> None:
    data = reply.data
    usage = data.get("usage")
    if isinstance(usage, dict):
        out, inp = usage.get("output"), usage.get("input")
        answer.output_tokens = out if isinstance(out, int) and out else None
        answer.input_tokens = inp if isinstance(inp, int) else None
    cost = data.get("cost")
    answer.cost = float(cost) if isinstance(cost, (int, float)) else None
    answer.reply = reply
    answer.pieces = [reply.content]
    answer.stopped = bool(data.get("interrupted"))


__all__ = [
    "DONE",
    "FAILED",
    "REASON",
    "STOPPED",
    "STREAMING",
    "USAGE",
    "WAITING",
    "Answer",
    "Comparison",
    "Contender",
    "contenders",
    "prepare",
    "run",
    "stats_line",
]


def stats_line(answer: Answer, now: float, priced: bool) -> str:
    """What a column says under its model: ``0.4 s to first token · 52 tokens/s · 120
    tokens · $0.0002`` (``priced``: the model has a price, else "no price set"), or
    where it stands (waiting, failed, stopped)."""
    if answer.state == FAILED:
        return "Failed"
    first = answer.time_to_first_token
    if first is None:
        return "Stopped before any text" if answer.stopped else "Waiting for the first token…"
    parts = [f"{_seconds(first)} to first token"]
    rate = answer.tokens_per_second(now)
    if rate is not None:
        parts.append(f"{rate:.0f} tokens/s")
    approx = "" if answer.output_tokens is not None else "~"
    parts.append(f"{approx}{answer.tokens:,} tokens")
    if answer.finished is not None and not answer.stopped:
        cost = answer.cost or 0.0
        parts.append(_money(cost) if priced or cost else NO_PRICE)
    if answer.stopped:
        parts.append("stopped")
    return " · ".join(parts)


def _seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"


def _money(cost: float) -> str:
    """``$0.0123``; a fraction of a hundredth of a cent keeps its first figures."""
    return f"${cost:.4f}" if cost >= 0.0001 or not cost else f"${cost:.6f}"
