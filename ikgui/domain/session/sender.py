"""The reply streamer: sends a message of the open conversation and streams its reply
(one at a time per conversation, across processes: :mod:`ikgui.domain.session.sendlock`), and
stops it on request. The streaming itself is :func:`ikgui.domain.session.reply.stream_reply`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from ikgui.domain.attachments import Attachment, StoredFile
from ikgui.domain.errors import ToolRoundsError, UsageError, UserError
from ikgui.domain.events import BRANCH_RETRY, Event, Kind
from ikgui.domain.session import sendlock
from ikgui.domain.session.attaching import message_files
from ikgui.domain.session.crashed import INTERRUPTED, interrupted_result, unanswered
from ikgui.domain.session.model_title import title_after_first_reply
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.session.reply import ProviderFactory, stream_reply
from ikgui.domain.session.tool_loop import ToolLoop
from ikgui.domain.state.facts import StreamFinished, StreamStarted


class ReplyStreamer:
    def __init__(
        self,
        current: OpenConversation,
        provider_factory: ProviderFactory | None = None,
        send_wait: float | None = None,
        tools: ToolLoop | None = None,
    ) -> None:
        self.current = current
        #: Runs the tool calls replies ask for (None: no tool is offered).
        self.tools = tools
        self.provider_factory = provider_factory
        #: How long a send waits for another process's reply in the same conversation.
        self.send_wait = sendlock.default_wait() if send_wait is None else send_wait
        #: The task streaming a reply, per conversation id.
        self.streams: dict[str, asyncio.Task[Any]] = {}

    @property
    def streaming(self) -> bool:
        """Whether a reply streams in the current conversation."""
        return self.current.conversation.id in self.streams

    async def send(self, text: str, files: Sequence[StoredFile | Attachment] = ()) -> Event | None:
        """Send ``text`` (as it is: never parsed) with ``files`` and stream the reply
        into the log; returns the reply event.

        The user event is committed before the request, its files with it (SPEC §13: a
        file given as its :class:`Attachment` alone must be stored already). Failures
        are recorded as an ``error`` event and raised as ``ProviderError``; cancelling
        keeps the partial reply, marked interrupted.
        """
        self.current.ensure_open()  # a closed branch takes no new message
        stored, data = message_files(self.current, files)
        return await self._exchange(
            lambda: self.current.append(Kind.USER, text, data, files=stored)
        )

    async def retry(self, event_id: int) -> Event | None:
        """Run the model again for the exchange ``event_id`` belongs to (a reply, an
        error, or the user message itself), without sending the message again.

        For the last exchange a ``retry`` event first takes the attempt out of the
        context (the window keeps it as a collapsed "failed attempt"); for an earlier
        one the conversation forks just after its user message and the reply is
        generated in the child. Nothing is re-parsed: a message reading ``/help`` is
        answered as text.
        """
        self.current.ensure_open()
        if self.streaming:
            raise UserError("A reply is already streaming in this conversation")
        current = self.current
        context = current.state.context
        users = [e for e in context if e.kind == Kind.USER and e.id <= event_id]
        if not users:
            raise UserError("Nothing to retry: no message of yours comes before it")
        user = users[-1]
        if any(e.kind == Kind.USER and e.id > user.id for e in context):
            # An earlier reply: regenerate it in a branch (an alternative of that reply).
            current.fork(user.id, reason=BRANCH_RETRY)
            return await self._exchange(lambda: None)
        data = {"target_event_id": user.id}
        return await self._exchange(lambda: current.append(Kind.RETRY, "", data))

    async def _exchange(self, prepare: Callable[[], object]) -> Event | None:
        """Under the conversation's send lock: ``prepare`` (append what asks for the
        reply), then stream the reply to the context."""
        factory = self.provider_factory
        if factory is None:
            raise UsageError("no provider configured")
        if self.streaming:
            raise UserError("A reply is already streaming in this conversation")
        current = self.current
        conv_id = current.conversation.id
        # One reply at a time, across processes.
        lock = await sendlock.hold(current, conv_id, self.send_wait, lambda: self.streaming)
        try:
            # Calls a stopped process left without a result (we hold the lock: nobody
            # runs them) get one, so the request is well-formed; none runs again.
            for call in unanswered(current.state.context):
                current.append_to(conv_id, Kind.TOOL_RESULT, INTERRUPTED, interrupted_result(call))
            current.commit_prompt()
            prepare()
            conv_id = current.conversation.id  # (a new conversation's taken id is replaced)
            task = asyncio.current_task()
            if task is not None:
                self.streams[conv_id] = task
            current.announce(StreamStarted(conv_id))
            try:
                # Let a window paint what the message changed (its row, the transcript)
                # before the reply's own work starts: one long step stalls its loop.
                await asyncio.sleep(0)
                reply = await self._replies(conv_id, factory)
            finally:
                self.streams.pop(conv_id, None)
                current.announce(StreamFinished(conv_id))
        finally:
            lock.release()
        await title_after_first_reply(current, conv_id, reply, factory)  # if asked for
        return reply

    async def _replies(self, conv_id: str, factory: ProviderFactory) -> Event | None:
        """The reply, and while it asks for tools, their calls and the next reply (at
        most ``[limits] tool_rounds`` rounds)."""
        current, tools = self.current, self.tools
        current.reread_projects()  # (its system prompt and tools: as stored now)
        offer = await tools.offer(current) if tools is not None else {}
        before = tools.calls_in(current) if tools is not None else set()
        reply = await stream_reply(current, conv_id, factory, offer)
        rounds = 0
        while tools is not None and (calls := tools.waiting(current, before)):
            limit = current.settings.tool_rounds
            if rounds >= limit:
                error = ToolRoundsError(limit)
                current.append_to(conv_id, Kind.ERROR, error.message, error.event_data())
                raise error
            rounds += 1
            await tools.run_round(current, conv_id, calls, offer)
            before = tools.calls_in(current)
            reply = await stream_reply(current, conv_id, factory, offer)
        return reply

    def stop(self, conv_id: str | None = None) -> bool:
        """Stop the reply streaming in a conversation (default: the current one)."""
        task = self.streams.get(conv_id or self.current.conversation.id)
        if task is None or task.done():
            return False
        task.cancel()
        return True
