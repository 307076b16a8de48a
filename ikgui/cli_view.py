"""``ikgui conv show`` and ``ikgui conv context``: one conversation as text or JSON.

Split from :mod:`ikgui.cli` to keep it small. Every line goes through
:mod:`ikgui.cli_output`: the model's replies are raw only to a pipe, everything else
has its control characters escaped.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from ikgui.cli_output import print_json, reply_safe, say
from ikgui.domain import exchange
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.events import Conversation, Kind
from ikgui.domain.ids import resolve_ref
from ikgui.domain.listing import describe
from ikgui.domain.ports import Store
from ikgui.domain.reading import labels, message_text
from ikgui.domain.replay import replay_conversation
from ikgui.domain.safetext import one_line, terminal_safe

if TYPE_CHECKING:
    from ikgui.cli import Env


def _ref_or_last(env: Env, args: argparse.Namespace) -> str:
    if args.last or not args.ref:
        if args.ref:
            raise UsageError("give either REF or -l, not both")
        last = env.store.last_conversation()
        if last is None:
            raise UserError("No conversation to continue")
        return last.id
    return resolve_ref(env.store, args.ref)


def conv_json(store: Store, conv_id: str, with_state: bool = True) -> dict[str, Any]:
    conv = store.get_conversation(conv_id)
    if conv is None:
        raise UserError(f"Conversation not found: {conv_id}")
    state = replay_conversation(store, conv_id)
    fields = exchange.conversation_fields(conv, state)
    fields["message_count"] = conv.message_count
    if with_state:
        fields["marks"] = [{"event_id": m.event_id, "label": m.label} for m in state.marks]
        fields["scrollback"] = [
            {"event_id": e.id, "kind": e.kind, "content": describe(e), "data": e.data or None}
            for e in state.scrollback
        ]
    return fields


_LABELS = labels(Kind.USER, Kind.ASSISTANT, Kind.SYSTEM, Kind.ERROR)


def cmd_show(env: Env, args: argparse.Namespace) -> int:
    conv_id = _ref_or_last(env, args)
    if args.json:
        print_json(conv_json(env.store, conv_id))
        return 0
    conv = env.store.get_conversation(conv_id)
    assert conv is not None
    state = replay_conversation(env.store, conv_id)
    say(f"{conv.id}  {one_line(conv.title or '-')}")
    details = [f"agent {conv.agent or '-'}", f"model {conv.model or '-'}"]
    if conv.parent:
        details.append(f"forked from {conv.parent}")
    if conv.tags:
        details.append("tags " + ", ".join(conv.tags))
    details.append(conv.visible_status)
    say(one_line("  ".join(details)))
    say(usage_line(conv))
    for event in state.scrollback:
        label = _LABELS.get(event.kind)
        text = describe(event)
        # A reply is the model's text (raw to a pipe); every other item is escaped.
        text = reply_safe(text) if event.kind == Kind.ASSISTANT else terminal_safe(text)
        sys.stdout.write("\n" + (f"[{label}] {text}" if label else f"-- {text}") + "\n")
    if state.working_prompt:
        say(f"\nWorking prompt: {state.working_prompt}")
    return 0


def usage_line(conv: Conversation) -> str:
    """Created, updated, tokens and cost, as the window's status bar shows them."""
    when = "created {}  updated {}".format(
        *(
            time.strftime("%Y-%m-%d %H:%M", time.localtime(t))
            for t in (conv.created_at, conv.updated_at)
        )
    )
    if conv.tokens_input or conv.tokens_output:
        usage = f"{conv.tokens_input:,} in / {conv.tokens_output:,} out · ${conv.cost:.4f}"
    else:
        usage = "no tokens yet"
    return f"{when}  {usage}"


def cmd_context(env: Env, args: argparse.Namespace) -> int:
    conv_id = _ref_or_last(env, args)
    session = env.session()
    session.open(conv_id)
    messages = session.context()
    if args.json:
        print_json(
            {
                "id": conv_id,
                "provider": session.provider,
                "model": session.model,
                "messages": messages,
            }
        )
        return 0
    for message in messages:
        body = message_text(message, arrow="->", gap=" ")
        if message["role"] == "tool":
            body = f"[{message['tool_call_id']}] {body}"
        body = body.strip()
        body = reply_safe(body) if message["role"] == "assistant" else terminal_safe(body)
        sys.stdout.write(f"[{message['role']}] {body}\n")
    return 0
