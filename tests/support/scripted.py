"""``ScriptedProvider``: a model server that says exactly what a test tells it to.

Each call to ``stream`` plays the next script (the last one again when they run out).
A script is a sequence of steps:

- a ``TextDelta``, ``ToolCallDelta`` or ``StreamEnd``: yielded as the server's item;
- a ``ProviderError``: raised there (a failure mid-stream, or before the first item);
- a ``Pause``: the stream waits there until ``pause.resume`` is set (``pause.reached``
  tells the test it got there); a bare ``asyncio.Event`` waits the same way;
- a callable: called there with no arguments (advance a fake clock, look at the log).

The provider records every request and counts ``aclose`` calls, and never touches the
network, so domain tests run with no HTTP server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field

from ikgui.domain.errors import ProviderError
from ikgui.domain.streaming import ChatRequest, StreamEnd, StreamItem, TextDelta, ToolCallDelta


@dataclass
class Pause:
    """A point where the stream waits for the test."""

    resume: asyncio.Event = field(default_factory=asyncio.Event)
    reached: asyncio.Event = field(default_factory=asyncio.Event)


Step = StreamItem | ProviderError | Pause | asyncio.Event | Callable[[], object]


def text_reply(*pieces: str, input_tokens: int = 5, output_tokens: int = 7) -> list[Step]:
    """A script streaming ``pieces`` as text, then a normal end with usage."""
    steps: list[Step] = [TextDelta(p) for p in pieces]
    steps.append(StreamEnd(input_tokens, output_tokens, "stop"))
    return steps


class ScriptedProvider:
    """A ``Provider`` (``ikgui.domain.streaming``) that plays scripts."""

    kind = "openai"
    base_url = "http://scripted.invalid/v1"

    def __init__(
        self, *scripts: Sequence[Step], models: Sequence[str] = ("mock-gpt",), name: str = "local"
    ) -> None:
        self.name = name
        self.scripts = [list(s) for s in scripts] or [text_reply("ok")]
        self.models = list(models)
        self.requests: list[ChatRequest] = []
        self.closed = 0
        self._played = 0

    def __call__(self, name: str) -> ScriptedProvider:
        """Act as the session's provider factory (every name gives this provider)."""
        return self

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        self.requests.append(request)
        script = self.scripts[min(self._played, len(self.scripts) - 1)]
        self._played += 1
        return self._play(script)

    async def _play(self, script: list[Step]) -> AsyncGenerator[StreamItem, None]:
        for step in script:
            if isinstance(step, TextDelta | ToolCallDelta | StreamEnd):
                yield step
            elif isinstance(step, ProviderError):
                raise step
            elif isinstance(step, Pause):
                step.reached.set()
                await step.resume.wait()
            elif isinstance(step, asyncio.Event):
                await step.wait()
            else:
                step()

    async def list_models(self) -> list[str]:
        return list(self.models)

    async def aclose(self) -> None:
        self.closed += 1
