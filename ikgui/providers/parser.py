"""Bytes in, ``StreamItem``s out: a decoder (SSE or NDJSON) feeding an interpreter.

``StreamParser.feed`` and ``finish`` are generators: they yield every item a chunk
completes and raise ``ProviderError`` only after yielding the items that came before
the failure, so text that arrived is never lost. Identical output however the body
is split. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ikgui.domain.errors import ProviderError
from ikgui.domain.streaming import StreamItem
from ikgui.providers.anthropic_stream import AnthropicInterpreter
from ikgui.providers.errors import ErrorContext
from ikgui.providers.interpret import Interpreter, load_object
from ikgui.providers.ndjson import NDJSONDecoder
from ikgui.providers.ollama_stream import OllamaInterpreter
from ikgui.providers.openai_stream import OpenAIInterpreter
from ikgui.providers.sse import SSEDecoder

KINDS = ("openai", "ollama", "anthropic")


class StreamParser:
    """One reply body of one provider kind."""

    def __init__(
        self, kind: str, errors: ErrorContext | None = None, id_prefix: str | None = None
    ) -> None:
        errors = errors or ErrorContext(kind=kind)
        self.kind = kind
        self.interpreter: Interpreter[Any]
        self._decoder: SSEDecoder | NDJSONDecoder
        if kind == "ollama":
            self._decoder = NDJSONDecoder()
            self.interpreter = OllamaInterpreter(errors, id_prefix)
        elif kind == "anthropic":
            self._decoder = SSEDecoder()
            self.interpreter = AnthropicInterpreter(errors, id_prefix)
        elif kind == "openai":
            self._decoder = SSEDecoder()
            self.interpreter = OpenAIInterpreter(errors, id_prefix)
        else:
            raise ValueError(f"unknown provider kind {kind!r}")
        #: Messages the decoder completed (an SSE message, an NDJSON line).
        self.messages = 0
        #: Of those, the ones that show the model working (all but Anthropic's pings;
        #: SSE comments such as ``: keep-alive`` are not messages at all).
        self.progress = 0

    @property
    def finished(self) -> bool:
        """The end marker has been seen (the rest of the body can be dropped)."""
        return self.interpreter.finished

    def feed(self, chunk: bytes) -> Iterator[StreamItem]:
        interpreter = self.interpreter
        for message in self._decoder.feed(chunk):
            self.messages += 1
            if getattr(message, "event", None) != "ping":
                self.progress += 1
            yield from interpreter.feed(message)
            if interpreter.finished:
                return

    def finish(self, broken: bool = False) -> Iterator[StreamItem]:
        """The body ended: the tail's items, then ``StreamEnd`` or a ``cut`` error.

        ``broken``: the connection failed rather than ended, so only the end marker
        itself (not a ``finish_reason``) makes the reply complete.
        """
        interpreter = self.interpreter
        tail = self._decoder.finish()
        clean = tail is None and not broken
        if tail is not None and not interpreter.finished:
            try:
                items = interpreter.feed(tail)
            except ProviderError as exc:
                if exc.category != "protocol":
                    raise
                items = []  # a last line cut in half: the stream was cut
            else:
                clean = not broken
                self.messages += 1
            yield from items
        yield from interpreter.end(clean)

    def complete(self, body: bytes) -> list[StreamItem]:
        """A whole non-streaming JSON reply (the server ignored ``stream: true``)."""
        text = body.decode("utf-8", "replace")
        return self.interpreter.complete(load_object(text, self.interpreter.errors))
