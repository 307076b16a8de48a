"""Streaming one reply into the log (SPEC §8, §11).

The assistant event is created with the first text, grows as deltas arrive and is
saved at least every second (``streaming: true`` while it grows, so a crash leaves a
row that start-up marks interrupted). On the end it stores provider, model, usage,
cost, finish reason and the extracted working prompt; a cancel keeps the partial
text with ``interrupted: true``; a failure adds one ``error`` event. A save the store
refuses (disk full) does not stop the stream: the open conversation keeps it in memory and writes
it later (``ikgui.domain.session.writes``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

from ikgui.domain.errors import ProviderError, StorageError
from ikgui.domain.events import Event, Kind
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.state.context import Message, attached_shas, with_files
from ikgui.domain.state.tool_use import wire_tools
from ikgui.domain.state.working_prompt import extract
from ikgui.domain.streaming import ChatRequest, Provider, StreamEnd, TextDelta, ToolCallDelta
from ikgui.domain.text.advice import Advice
from ikgui.domain.tools import ToolInfo

#: Builds the provider configured under a name (raises ``ProviderError`` if it can't);
#: a window's is a coroutine, which looks the API key up off its event loop's thread.
ProviderFactory = Callable[[str], Provider | Awaitable[Provider]]

SAVE_INTERVAL = 1.0
#: The longest the reply loop runs before giving the event loop a turn (seconds).
YIELD_AFTER = 0.005


def _no_model(provider: str) -> ProviderError:
    return ProviderError(
        f"No model is chosen and {provider} lists none.",
        "config",
        advice=Advice("pick_model", {"provider": provider}),
    )


async def provider_named(factory: ProviderFactory, name: str) -> Provider:
    """The provider ``factory`` builds under ``name``, awaited if it must be."""
    made = factory(name)
    if inspect.isawaitable(made):
        return await made
    return made


def _tool_summary(item: ToolCallDelta) -> str:
    args = item.arguments if isinstance(item.arguments, str) else json.dumps(item.arguments)
    return f"{item.name}({args[:80]}{'…' if len(args) > 80 else ''})"


class _Reply:
    def __init__(
        self,
        session: OpenConversation,
        conv_id: str,
        provider_name: str,
        model: str,
        offer: dict[str, ToolInfo] | None = None,
    ) -> None:
        self.offer = offer or {}
        self.session = session
        self.conv_id = conv_id
        self.base: dict[str, Any] = {"provider": provider_name, "model": model}
        self.parts: list[str] = []
        self.event: Event | None = None
        self.saved_at = session.clock()
        self.saved_len = 0

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def open(self) -> None:
        """Create the growing reply before the request goes out, so the first delta
        is shown at once, with no database write in its way."""
        data = {**self.base, "streaming": True, "owner": os.getpid()}
        self.event = self.session.append_to(self.conv_id, Kind.ASSISTANT, "", data)
        self.session.live_text[self.event.id] = lambda: self.text

    def delta(self, text: str) -> None:
        if not text or self.event is None:
            return
        self.parts.append(text)
        self.session.emit_delta(self.event, text)
        now = self.session.clock()
        if now - self.saved_at >= SAVE_INTERVAL:
            self.save(now)

    def save(self, now: float) -> None:
        if self.event is not None and len(self.parts) != self.saved_len:
            data = {**self.base, "streaming": True, "owner": os.getpid()}
            self.event = self.session.update_event(self.event, self.text, data)
            self.saved_len = len(self.parts)
        self.saved_at = now

    def tool_call(self, item: ToolCallDelta) -> None:
        self.save(self.session.clock())
        data: dict[str, Any] = {
            "id": self._unique(item.id),
            "name": item.name,
            "arguments": item.arguments,
        }
        info = self.offer.get(item.name)
        if info is not None:  # a tool ikgui offered: stored by its server and own name
            data.update(name=info.name, server=info.server)
        self.session.append_to(self.conv_id, Kind.TOOL_CALL, _tool_summary(item), data)

    def _unique(self, call_id: str) -> str:
        """The call's id, made unique in the conversation: a model that sends an id
        again (a loop, a server that numbers from 1 each reply) must not have its new
        call taken for the old one, which has its result already."""
        state = self.session.state if self.conv_id == self.session.conversation.id else None
        if state is None:
            return call_id
        taken = {str(e.data.get("id")) for e in state.context if e.kind == Kind.TOOL_CALL}
        unique, number = call_id, 1
        while unique in taken:
            number += 1
            unique = f"{call_id}_{number}"
        return unique

    def finish(
        self, end: StreamEnd | None, interrupted: bool, keep_empty: bool = True
    ) -> Event | None:
        """Store the final reply. A stop before any text still leaves a ``(stopped)``
        reply (``keep_empty``); a failure before any text leaves only its error."""
        session = self.session
        text = self.text
        if self.event is not None:
            session.live_text.pop(self.event.id, None)
            session.live_text.pop(session.writes.real_id(self.event.id), None)
        data: dict[str, Any] = dict(self.base)
        if end is not None and end.model:
            data["model"] = end.model
        input_tokens = (end.input_tokens or 0) if end else 0
        output_tokens = (end.output_tokens or 0) if end else 0
        cost = session.settings.cost(data["model"], input_tokens, output_tokens)
        data["usage"] = {"input": input_tokens, "output": output_tokens}
        data["cost"] = cost
        data["finish_reason"] = end.finish_reason if end else None
        data["interrupted"] = interrupted
        extraction = extract(text, session.prompt_mode)
        if extraction.prompt is not None:
            data["prompt"] = extraction.prompt
        if extraction.display_end is not None:
            data["display_end"] = extraction.display_end
        if extraction.warning and text and not interrupted:
            data["prompt_warning"] = extraction.warning
        if interrupted and not text and not keep_empty:
            data["failed"] = True  # nothing arrived: replay shows only the error
        if self.event is None:
            self.event = session.append_to(self.conv_id, Kind.ASSISTANT, text, data)
        else:
            self.event = session.update_event(self.event, text, data)
        if input_tokens or output_tokens or cost:
            session.add_usage(self.conv_id, input_tokens, output_tokens, cost)
        if extraction.prompt is not None and self.conv_id == session.conversation.id:
            session.set_reply_prompt(self.event, extraction.prompt)
        return self.event


async def sent_context(session: OpenConversation) -> list[Message]:
    """The context with the bytes of the files its messages list, read from the store
    in a worker thread (megabytes of images never hold the window's loop)."""
    messages = session.context()
    shas = attached_shas(messages)
    if not shas:
        return messages
    waiting = session.writes.waiting_files()  # (a message written while the disk is full)
    stored = [sha for sha in shas if sha not in waiting]
    try:
        found = await asyncio.to_thread(session.store.read_files, stored) if stored else {}
    except StorageError:  # (the store went away: what it holds is sent by name)
        found = {}
    return with_files(messages, {**found, **waiting})


async def stream_reply(
    session: OpenConversation,
    conv_id: str,
    provider_factory: ProviderFactory,
    offer: dict[str, ToolInfo] | None = None,
) -> Event | None:
    """Stream the reply to the context of ``conv_id`` (the current conversation),
    offering the tools of ``offer`` (by the name the model sees)."""
    provider_name = session.provider
    reply: _Reply | None = None
    try:
        provider = await provider_named(provider_factory, provider_name)
        model = session.model
        if not model:
            # No model chosen: use the server's first (e.g. the one Ollama has pulled).
            try:
                models = await provider.list_models()
            finally:
                await provider.aclose()
            if not models:
                raise _no_model(provider_name)
            model = models[0]
        options = {"tools": wire_tools(offer)} if offer else {}
        request = ChatRequest(model, await sent_context(session), options)
        reply = _Reply(session, conv_id, provider_name, model, offer)
        reply.open()
        end: StreamEnd | None = None
        try:
            async with aclosing(provider.stream(request)) as items:
                busy_since = time.monotonic()
                async for item in items:
                    if time.monotonic() - busy_since > YIELD_AFTER:
                        # A network read can carry hundreds of deltas: let the window
                        # paint and stay responsive between them.
                        await asyncio.sleep(0)
                        busy_since = time.monotonic()
                    if isinstance(item, TextDelta):
                        reply.delta(item.text)
                    elif isinstance(item, ToolCallDelta):
                        reply.tool_call(item)
                    elif isinstance(item, StreamEnd):
                        end = item
        finally:
            await provider.aclose()
    except asyncio.CancelledError:
        if reply is not None:
            reply.finish(None, interrupted=True)
        raise
    except ProviderError as exc:
        if reply is not None:
            reply.finish(None, interrupted=True, keep_empty=False)
        session.append_to(conv_id, Kind.ERROR, exc.message, exc.event_data())
        raise
    return reply.finish(end, interrupted=False)
