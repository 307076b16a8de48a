"""What the three stream interpreters share: JSON loading, tool-call assembly, the end.

An interpreter turns decoded wire messages (SSE messages or NDJSON lines) into
``StreamItem``s. ``feed`` handles one message atomically: it returns its items or
raises ``ProviderError`` (``protocol`` for invalid JSON, ``stream_error`` for an error
object). ``end`` is called when the body is over: it returns nothing after the end
marker, a ``StreamEnd`` when the reply is known to be complete without one (see
:meth:`Interpreter.end`), and raises ``cut`` otherwise. ``complete`` interprets a whole
non-streaming JSON reply (a server that ignored ``stream: true``). Pure: no I/O.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ikgui.domain.streaming import StreamEnd, StreamItem, ToolCallDelta
from ikgui.providers.errors import ErrorContext

M = TypeVar("M")


def load_object(text: str, errors: ErrorContext) -> dict[str, Any]:
    """``text`` parsed as a JSON object, or a ``protocol`` error naming the line."""
    try:
        value = json.loads(text)
    except ValueError:
        raise errors.malformed(text) from None
    if not isinstance(value, dict):
        raise errors.malformed(text)
    return value


def parse_arguments(raw: Any) -> Any:
    """Tool arguments as parsed JSON when they parse, else the raw string."""
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class ToolParts:
    """A tool call whose pieces are still arriving."""

    id: str = ""
    name: str = ""
    pieces: list[str] = field(default_factory=list)
    initial: Any = None  # arguments sent whole (Anthropic's start block, Ollama)

    def assemble(self, fallback_id: str) -> ToolCallDelta:
        raw = "".join(self.pieces)
        arguments = parse_arguments(raw) if raw else parse_arguments(self.initial)
        return ToolCallDelta(self.id or fallback_id, self.name, arguments)


class Interpreter(Generic[M]):
    """Base of the per-provider interpreters (``M`` is the decoded message type)."""

    def __init__(self, errors: ErrorContext | None = None, id_prefix: str | None = None) -> None:
        self.errors = errors or ErrorContext()
        #: The end marker arrived; later messages are ignored.
        self.finished = False
        #: At least one message arrived (a cut says "stopped" rather than "no reply").
        self.received = False
        self.finish_reason: str | None = None
        self.model: str | None = None
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self._prefix = id_prefix if id_prefix is not None else secrets.token_hex(4)
        self._made_ids = 0

    def feed(self, message: M) -> list[StreamItem]:
        raise NotImplementedError

    def complete(self, body: dict[str, Any]) -> list[StreamItem]:
        raise NotImplementedError

    def new_id(self) -> str:
        """An id for a tool call the server sent without one."""
        self._made_ids += 1
        return f"call_{self._prefix}_{self._made_ids}"

    def flush_tools(self) -> list[StreamItem]:
        """Tool calls still being assembled, now complete (none by default)."""
        return []

    def stream_end(self) -> list[StreamItem]:
        self.finished = True
        end = StreamEnd(self.input_tokens, self.output_tokens, self.finish_reason, self.model)
        return [*self.flush_tools(), end]

    def end(self, clean: bool) -> list[StreamItem]:
        """The body is over (``clean``: it ended on a message boundary).

        Without the end marker the reply counts as complete only when the server
        already said why it finished (``finish_reason`` / ``stop_reason``) and the body
        ended cleanly — some OpenAI-compatible servers omit ``[DONE]``. Anything else
        raises ``cut``; the items yielded before stay yielded.
        """
        if self.finished:
            return []
        if clean and self.finish_reason is not None:
            return self.stream_end()
        raise self.errors.cut(self.received)
