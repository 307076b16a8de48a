"""Titles the model suggests (issue 12 item 7): with ``auto_title = "model"`` on the
conversation's agent or provider, after the first reply the model is asked, in a
separate small request, for a short title. The request and its answer are never stored
as messages; any failure leaves the automatic title (the first words) as it is; and a
title the user gave — before or while the request runs — always wins."""

from __future__ import annotations

import asyncio
import logging
from contextlib import aclosing

from ikgui.domain.errors import IkguiError, StorageError
from ikgui.domain.events import Event, Kind
from ikgui.domain.ports import Store
from ikgui.domain.session.open_conversation import OpenConversation
from ikgui.domain.session.reply import ProviderFactory, provider_named
from ikgui.domain.state.changes import Changes, StoreWrite
from ikgui.domain.state.ids import auto_title
from ikgui.domain.streaming import ChatRequest, TextDelta
from ikgui.domain.text.safe import one_line

log = logging.getLogger(__name__)

#: What the model is asked (the exchange follows as one user message).
TITLE_PROMPT = (
    "Give a short title (at most six words) for the conversation below. "
    "Answer with the title only, without quotes or a final period."
)
#: How much of the question and of the reply the request carries (characters).
EXCERPT = 1500
#: The longest the title request may take (seconds); then the first words stay.
TIMEOUT = 30.0


def wants_model_title(current: OpenConversation) -> bool:
    """Whether the conversation's agent or provider asks for a model title."""
    agent = current.agent_settings
    provider = current.settings.providers.get(current.provider)
    return (agent is not None and agent.auto_title == "model") or (
        provider is not None and provider.auto_title == "model"
    )


def clean_title(text: str) -> str | None:
    """The model's answer as a title: its first line, quotes and a final period gone,
    cut like an automatic title; ``None`` when nothing is left."""
    lines = [one_line(part) for part in text.strip().splitlines() if part.strip()]
    if not lines:
        return None
    title = lines[0].strip().strip("\"'“”‘’*#` ").rstrip(".").strip()
    if title.lower().startswith("title:"):
        title = title[len("title:") :].strip()
    return auto_title(title) or None


async def title_after_first_reply(
    current: OpenConversation, conv_id: str, reply: Event | None, factory: ProviderFactory
) -> str | None:
    """Ask for and store a model title when ``reply`` is ``conv_id``'s first reply and
    the settings ask for one; returns the title stored (``None``: nothing changed).

    A store that fails here (a server gone while the reply streamed) leaves the first
    words: the title is a nicety, and the reply waiting to be written must not be lost
    to it (issue 21 item 1)."""
    try:
        return await _title(current, conv_id, reply, factory)
    except StorageError as exc:
        log.info("no model title for %s: %s", conv_id, exc)
        return None


async def _title(
    current: OpenConversation, conv_id: str, reply: Event | None, factory: ProviderFactory
) -> str | None:
    if reply is None or reply.kind != Kind.ASSISTANT or not reply.content:
        return None
    conv = current.store.get_conversation(conv_id)
    if conv is None or conv.parent is not None or conv.title_by_user:
        return None  # a fork has its own title; a user's title wins
    if conv.id != current.conversation.id or not wants_model_title(current):
        return None
    if conv.message_count != 2:  # (cheap: most replies are not the first)
        return None
    events = current.store.events(conv_id)
    users = [e for e in events if e.kind == Kind.USER]
    replies = [e for e in events if e.kind == Kind.ASSISTANT]
    if len(users) != 1 or [e.id for e in replies if e.content] != [reply.id]:
        return None  # not the first exchange
    model = reply.data.get("model")
    if not isinstance(model, str) or not model:
        return None
    before = conv.title
    exchange = f"User: {users[0].content[:EXCERPT]}\n\nAssistant: {reply.content[:EXCERPT]}"
    messages = [
        {"role": "system", "content": TITLE_PROMPT},
        {"role": "user", "content": exchange},
    ]
    try:
        answer = await asyncio.wait_for(_ask(factory, current.provider, model, messages), TIMEOUT)
    except (IkguiError, TimeoutError) as exc:
        log.info("no model title for %s: %s", conv_id, exc)
        return None
    title = clean_title(answer)
    now = current.store.get_conversation(conv_id)
    if title is None or now is None or now.title_by_user or now.title != before:
        return None  # the user renamed it meanwhile (or it is gone)

    def setting(store: Store) -> None:
        store.update_conversation(conv_id, title=title)

    write = StoreWrite((conv_id,), f"title: {title}", setting, frozenset({"title"}))
    try:  # (a full store: it waits with the rest)
        current.apply(Changes(conv_id, fields={"title": title}, writes=(write,)))
    except IkguiError as exc:  # gone meanwhile: the first words stay
        log.warning("could not store the model's title for %s: %s", conv_id, exc)
        return None
    return title


async def _ask(
    factory: ProviderFactory, provider_name: str, model: str, messages: list[dict[str, str]]
) -> str:
    provider = await provider_named(factory, provider_name)
    parts: list[str] = []
    try:
        async with aclosing(provider.stream(ChatRequest(model, list(messages)))) as items:
            async for item in items:
                if isinstance(item, TextDelta):
                    parts.append(item.text)
    finally:
        await provider.aclose()
    return "".join(parts)
