"""The reply streamer: sends a message of the open conversation and streams its reply
(one at a time per conversation, across processes: :mod:`ikgui.domain.sendlock`), and
stops it on request. The streaming itself is :func:`ikgui.domain.reply.stream_reply`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ikgui.domain import sendlock
from ikgui.domain.current import OpenConversation
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.events import Event, Kind
from ikgui.domain.facts import StreamFinished, StreamStarted
from ikgui.domain.reply import ProviderFactory, stream_reply


class ReplyStreamer:
    def __init__(
        self,
        current: OpenConversation,
        provider_factory: ProviderFactory | None = None,
        send_wait: float | None = None,
    ) -> None:
        self.current = current
        self.provider_factory = provider_factory
        #: How long a send waits for another process's reply in the same conversation.
        self.send_wait = sendlock.default_wait() if send_wait is None else send_wait
        #: The task streaming a reply, per conversation id.
        self.streams: dict[str, asyncio.Task[Any]] = {}

    @property
    def streaming(self) -> bool:
        """Whether a reply streams in the current conversation."""
        return self.current.conversation.id in self.streams

    async def send(self, text: str) -> Event | None:
        """Send ``text`` (as it is: never parsed) and stream the reply into the log;
        returns the reply event.

        The user event is committed before the request. Failures are recorded as an
        ``error`` event and raised as ``ProviderError``; cancelling keeps the partial
        reply, marked interrupted.
        """
        self.current.ensure_open()  # a closed branch takes no new message
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
            current.commit_prompt()
            current.append(Kind.USER, text)
            conv_id = current.conversation.id  # (a new conversation's taken id is replaced)
            task = asyncio.current_task()
            if task is not None:
                self.streams[conv_id] = task
            current.announce(StreamStarted(conv_id))
            try:
                return await stream_reply(current, conv_id, factory)
            finally:
                self.streams.pop(conv_id, None)
                current.announce(StreamFinished(conv_id))
        finally:
            lock.release()

    def stop(self, conv_id: str | None = None) -> bool:
        """Stop the reply streaming in a conversation (default: the current one)."""
        task = self.streams.get(conv_id or self.current.conversation.id)
        if task is None or task.done():
            return False
        task.cancel()
        return True
