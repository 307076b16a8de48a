"""``ikgui run --compare M1,M2 TEXT`` (SPEC §14): the message goes to each model at once,
each answer into a branch of its own; each is printed, in the order the models were
given, under a header line naming the model and the branch id. Exit 3 if any model
failed (after every answer), 130 if stopped."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from ikgui.cli import output as out
from ikgui.domain.attachments import Attachment, StoredFile
from ikgui.domain.errors import UsageError
from ikgui.domain.session.comparison import FAILED, Answer, Comparison

if TYPE_CHECKING:
    from ikgui.cli.env import Env

#: The exit code when a compared model failed (a provider's failure, as ``run``'s).
FAILED_EXIT = 3


def header(answer: Answer) -> str:
    """``=== local/mock-gpt · chat-ab12 ===``: the model and the branch it answered in."""
    return f"=== {answer.contender.label} · {answer.branch_id} ==="


def run_compare(
    env: Env,
    args: argparse.Namespace,
    target: str | None,
    text: str,
    files: list[StoredFile | Attachment],
) -> int:
    if text.startswith("/") and not text.startswith("//"):
        raise UsageError("--compare sends a message to several models, not a command")
    if args.no_save:
        raise UsageError(
            "--compare keeps each answer as a branch: it cannot be used with --no-save"
        )
    session = env.session()
    if target is None:
        session.new_conversation(args.agent or env.settings.default_agent)
    else:
        session.open(target)
    if args.provider:  # where a bare model name is looked for
        session.overrides["provider"] = args.provider
    models = [m for m in args.compare.split(",") if m.strip()]
    message = text[1:] if text.startswith("//") else text
    picked = session.contenders(models)
    stopped = False
    try:
        asyncio.run(session.compare(message, picked, files))
    except KeyboardInterrupt:
        stopped = True
    comparison = session.comparison
    if comparison is None:  # (stopped before any branch was made)
        return 130
    if args.json:
        out.print_json(_as_json(comparison))
    else:
        _print(comparison, quiet=args.quiet)
    if not args.quiet:
        print(comparison.parent_id, file=sys.stderr)
    if stopped:
        return 130
    return FAILED_EXIT if comparison.failed else 0


def _print(comparison: Comparison, quiet: bool) -> None:
    for index, answer in enumerate(comparison.answers):
        if index:
            sys.stdout.write("\n")
        out.say(header(answer))
        if answer.state == FAILED:
            out.say(f"Error: {answer.error}")
            continue
        text = answer.text
        out.reply(text, "" if text.endswith("\n") or not text else "\n")
        if answer.stopped and not quiet:
            out.say("(stopped)")
    sys.stdout.flush()


def _as_json(comparison: Comparison) -> dict[str, Any]:
    answers = []
    for answer in comparison.answers:
        reply = answer.reply
        data = reply.data if reply is not None else {}
        answers.append(
            {
                "provider": answer.contender.provider,
                "model": answer.contender.model,
                "branch": answer.branch_id,
                "reply": answer.text if answer.state != FAILED else None,
                "usage": data.get("usage"),
                "cost": data.get("cost"),
                "error": answer.error,
                "interrupted": answer.stopped,
            }
        )
    return {"id": comparison.parent_id, "answers": answers}
