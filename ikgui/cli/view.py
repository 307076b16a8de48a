"""``ikgui conv show`` and ``ikgui conv context``: one conversation as text or JSON; and
``ikgui conv tags``, ``tag-rename`` and ``tag-delete``: tags across conversations (a
rename onto a tag in use merges; each changes every conversation in one transaction);
``ikgui conv pin`` and ``unpin``.

Split from :mod:`ikgui.cli.main` to keep it small. Every line goes through
:mod:`ikgui.cli.output`: the model's replies are raw only to a pipe, everything else
has its control characters escaped.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from ikgui.cli.output import print_json, reply_safe, say, width
from ikgui.domain.attachments import listed, size_text
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.events import Conversation, Event, Kind
from ikgui.domain.library import conversations as library
from ikgui.domain.library import folders
from ikgui.domain.library.listing import cut, describe, tag_summary
from ikgui.domain.ports import Store
from ikgui.domain.settings import Settings
from ikgui.domain.state import tool_record
from ikgui.domain.state.ids import normalize_tag, resolve_ref
from ikgui.domain.state.reading import labels, message_text, system_sources
from ikgui.domain.state.usage import known_cost, usage_text
from ikgui.domain.text.safe import one_line, terminal_safe

if TYPE_CHECKING:
    from ikgui.cli.env import Env
    from ikgui.domain.state.alternatives import Alternatives


def _ref_or_last(env: Env, args: argparse.Namespace) -> str:
    if args.last or not args.ref:
        if args.ref:
            raise UsageError("give either REF or -l, not both")
        last = env.store.last_conversation()
        if last is None:
            raise UserError("No conversation to continue")
        return last.id
    return resolve_ref(env.store, args.ref)


def conv_json(
    store: Store, conv_id: str, with_state: bool = True, settings: Settings | None = None
) -> dict[str, Any]:
    """``conv show --json``; with ``settings``, an unknown cost (nothing priced, and the
    model has no price set) is ``null``, not ``0``."""
    from ikgui.domain.library import exchange
    from ikgui.domain.state.replay import replay_conversation

    conv = store.get_conversation(conv_id)
    if conv is None:
        raise UserError(f"Conversation not found: {conv_id}")
    state = replay_conversation(store, conv_id)
    fields = exchange.conversation_fields(conv, state)
    if settings is not None:
        fields["cost"] = known_cost(conv, settings, conv.model or settings.default_model)
    fields["message_count"] = conv.message_count
    fields["pinned"] = conv.pinned
    if with_state:
        fields["marks"] = [{"event_id": m.event_id, "label": m.label} for m in state.marks]
        from ikgui.domain.state.alternatives import branch_alternatives

        alternatives = branch_alternatives(store, conv, state.transcript)
        alternatives.update(state.retry_alternatives())
        fields["scrollback"] = [_item_json(e, alternatives) for e in state.scrollback]
    return fields


def _item_json(event: Event, alternatives: dict[int, Alternatives]) -> dict[str, Any]:
    """One scrollback item; an item with alternatives (SPEC §14) lists them."""
    item = {
        "event_id": event.id,
        "kind": event.kind,
        "content": describe(event),
        "data": event.data or None,
    }
    found = alternatives.get(event.id)
    if found is not None:
        item["alternatives"] = found.as_json()
    return item


_LABELS = labels(Kind.USER, Kind.ASSISTANT, Kind.SYSTEM, Kind.ERROR)


def cmd_show(env: Env, args: argparse.Namespace) -> int:
    from ikgui.domain.state.replay import replay_conversation

    conv_id = _ref_or_last(env, args)
    if args.json:
        print_json(conv_json(env.store, conv_id, settings=env.settings))
        return 0
    conv = env.store.get_conversation(conv_id)
    assert conv is not None
    state = replay_conversation(env.store, conv_id)
    say(cut(f"{conv.id}  {one_line(conv.title or '-')}", width()))
    model = f"model {conv.model or '-'} ({conv.provider or '-'})"  # as /model says it
    details = [f"agent {conv.agent or '-'}", model]
    if conv.parent:
        details.append(f"forked from {conv.parent}")
    if conv.tags:
        details.append("tags " + tag_summary(conv.tags))
    details.append(conv.visible_status)
    say(one_line("  ".join(details)))
    say(usage_line(conv, env.settings))
    calls = tool_record.calls_by_id(state.scrollback)
    for event in state.scrollback:
        if event.kind in _TOOL_LABELS:
            sys.stdout.write("\n" + terminal_safe(_tool_text(event, calls)) + "\n")
            continue
        label = _LABELS.get(event.kind)
        text = describe(event)
        # A reply is the model's text (raw to a pipe); every other item is escaped.
        text = reply_safe(text) if event.kind == Kind.ASSISTANT else terminal_safe(text)
        sys.stdout.write("\n" + (f"[{label}] {text}" if label else f"-- {text}") + "\n")
        for attachment in listed(event.data) if event.may_have("attachments") else ():
            kind = attachment.mime.split("/")[-1]
            line = f"  attached: {attachment.name} ({kind}, {size_text(attachment.size)})"
            sys.stdout.write(terminal_safe(one_line(line)) + "\n")
    if state.working_prompt:
        say(f"\nWorking prompt: {state.working_prompt}")
    if conv.prompt_draft is not None:  # typed in a window, not saved (issue 22, item 8)
        say(one_line(f"Unsaved working-prompt edit: {conv.prompt_draft or '(empty)'}"))
    return 0


_TOOL_LABELS: dict[str, str] = {
    Kind.TOOL_CALL: "tool call",
    Kind.TOOL_APPROVAL: "decision",
    Kind.TOOL_RESULT: "tool result",
}


def _tool_text(event: Event, calls: dict[str, Event]) -> str:
    """A call (server.tool and its arguments), its decision, or its result (how it went,
    then its first lines, each on a line of its own under it)."""
    label = _TOOL_LABELS[event.kind]
    if event.kind == Kind.TOOL_CALL:
        return f"[{label}] {tool_record.call_line(event)}"
    if event.kind == Kind.TOOL_APPROVAL:
        call = calls.get(str(event.data.get("tool_call_id")))
        return f"[{label}] {tool_record.decision_line(event, call)}"
    asked = [f"  ? {one_line(line)}" for line in tool_record.question_lines(event)]
    lines = [f"  | {one_line(line)}" for line in tool_record.first_lines(event)]
    return "\n".join([f"[{label}] {tool_record.result_head(event)}", *asked, *lines])


def usage_line(conv: Conversation, settings: Settings) -> str:
    """Created, updated, tokens and cost, as the window's status bar shows them."""
    when = "created {}  updated {}".format(
        *(
            time.strftime("%Y-%m-%d %H:%M", time.localtime(t))
            for t in (conv.created_at, conv.updated_at)
        )
    )
    usage = usage_text(conv, settings, conv.model or settings.default_model)
    return f"{when}  {usage}"


def cmd_context(env: Env, args: argparse.Namespace) -> int:
    conv_id = _ref_or_last(env, args)
    session = env.session()
    session.open(conv_id)
    messages = session.context()
    parts = session.system_parts()
    if args.json:
        print_json(
            {
                "id": conv_id,
                "provider": session.provider,
                "model": session.model,
                "messages": messages,
                # Where the leading system message came from, part by part (SPEC §15).
                "system_parts": [
                    {"source": p.source, "name": p.name, "text": p.text} for p in parts
                ],
            }
        )
        return 0
    sources = system_sources(messages, parts)
    if sources is not None:
        for part in sources:
            sys.stdout.write(
                f"[system: {one_line(part.label())}] {terminal_safe(part.text.strip())}\n"
            )
        messages = messages[1:]
    # What the model reads, and beside each call what the log says of it (server.tool,
    # the decision), which the model never reads.
    events = session.state.scrollback
    calls, decisions = tool_record.calls_by_id(events), tool_record.decisions_by_call(events)
    for message in messages:
        body = message_text(message, arrow="->", gap=" ")
        for call in message.get("tool_calls", []):
            call_id = str(call.get("id"))
            if call_id in calls:
                said = tool_record.qualified(calls[call_id].data)
                if call_id in decisions:
                    said += f": {tool_record.decision_line(decisions[call_id])}"
                body += f"\n   ({one_line(said)})"
        if message["role"] == "tool":
            body = f"[{message['tool_call_id']}] {body}"
        body = body.strip()
        body = reply_safe(body) if message["role"] == "assistant" else terminal_safe(body)
        sys.stdout.write(f"[{message['role']}] {body}\n")
    return 0


# -- tags across conversations ------------------------------------------------------


def add_tag_parsers(csub: Any) -> None:
    """The three subcommands, on ``ikgui conv``'s subparsers."""
    tags = csub.add_parser("tags", help="list every tag with its number of conversations")
    tags.add_argument("--json", action="store_true")
    tags.add_argument(
        "--all", action="store_true", help=f"every tag (else the first {TAGS_LISTED:,})"
    )
    rename = csub.add_parser(
        "tag-rename",
        help="rename a tag (a folder: with every tag under it) on every conversation, "
        "merging into those in use; move a folder by naming its new place (other/work)",
    )
    rename.add_argument("old")
    rename.add_argument("new")
    csub.add_parser(
        "tag-delete",
        help="remove a tag (a folder: with every tag under it) from every conversation",
    ).add_argument("tag")


#: Tags ``conv tags`` lists without ``--all``: a screenful is read, 100,000 are not.
TAGS_LISTED = 1000


def _noun(count: int) -> str:
    return "conversation" if count == 1 else "conversations"


def cmd_tags(env: Env, args: argparse.Namespace) -> int:
    live = dict(env.store.tag_counts())
    trashed = dict(env.store.tag_counts(trashed=True))
    names = sorted(set(live) | set(trashed))
    if args.json:
        print_json(
            [{"tag": n, "count": live.get(n, 0), "trashed": trashed.get(n, 0)} for n in names]
        )
        return 0
    if not names:
        say("No tags.")
        return 0
    shown = names if args.all else names[:TAGS_LISTED]
    width = max(len(n) for n in shown)
    for name in shown:
        extra = f"  (+{trashed[name]} in the Trash)" if trashed.get(name) else ""
        say(f"{one_line(name).ljust(width)}  {live.get(name, 0):>5}{extra}")
    if len(shown) < len(names):
        more = len(names) - len(shown)
        say(f"… and {more:,} more tags (ikgui conv tags --all lists them all, or --json)")
    return 0


def _under(count: int) -> str:
    """What a folder's rename or delete did below it too (SPEC §15)."""
    if count <= 1:
        return ""
    return f", with the {count - 1} {'tag' if count == 2 else 'tags'} under it"


def cmd_tag_rename(env: Env, args: argparse.Namespace) -> int:
    """A tag is a folder: every tag under it is renamed too (``work/acme`` → ``job/acme``)."""
    old, new = normalize_tag(args.old), normalize_tag(args.new)
    if old == new:
        changed = library.rename_tag(env.store, old, new).count
        say(f"Renamed '{old}' into '{new}' on {changed} {_noun(changed)}")
        return 0
    edit = folders.rename_folder(env.store, old, new)
    verb = "Merged" if any(e.merging for e in edit.edits) else "Renamed"
    changed = edit.count
    say(f"{verb} '{old}' into '{new}' on {changed} {_noun(changed)}{_under(len(edit.edits))}")
    return 0


def cmd_tag_delete(env: Env, args: argparse.Namespace) -> int:
    """A tag is a folder: every tag under it goes too, never a conversation."""
    edit = folders.delete_folder(env.store, args.tag)
    changed = edit.count
    say(f"Removed '{edit.old}' from {changed} {_noun(changed)}{_under(len(edit.edits))}")
    return 0


TAG_COMMANDS = {"tags": cmd_tags, "tag-rename": cmd_tag_rename, "tag-delete": cmd_tag_delete}


# -- pins -------------------------------------------------------------------------------


def add_pin_parsers(csub: Any) -> None:
    """``ikgui conv pin REF...`` and ``unpin REF...`` (all of them in one transaction)."""
    for name, text in (
        ("pin", "pin conversations (listed first in the window's sidebar)"),
        ("unpin", "unpin conversations"),
    ):
        csub.add_parser(name, help=text).add_argument("refs", nargs="+", metavar="ref")


def _set_pinned(env: Env, refs: list[str], pinned: bool) -> int:
    ids = [resolve_ref(env.store, ref) for ref in refs]
    convs = library.set_pinned(env.store, ids, pinned)
    verb = "Pinned" if pinned else "Unpinned"
    say(f"{verb} " + ", ".join(c.id for c in convs))
    return 0


def cmd_pin(env: Env, args: argparse.Namespace) -> int:
    return _set_pinned(env, args.refs, True)


def cmd_unpin(env: Env, args: argparse.Namespace) -> int:
    return _set_pinned(env, args.refs, False)


PIN_COMMANDS = {"pin": cmd_pin, "unpin": cmd_unpin}


def add_tag_and_pin_parsers(csub: Any) -> None:
    add_tag_parsers(csub)
    add_pin_parsers(csub)
