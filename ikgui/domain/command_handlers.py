"""The built-in slash commands (SPEC §5), in registry (and ``/help``) order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ikgui.domain import command_rules as rules
from ikgui.domain import exchange
from ikgui.domain.branches import BRANCHES_TIP, branches_command
from ikgui.domain.command_rules import tags_line
from ikgui.domain.commands import (
    Action,
    Command,
    CommandResult,
    Registry,
    text_argument,
    unquote_argument,
)
from ikgui.domain.errors import NotFoundError, UsageError, UserError
from ikgui.domain.ids import resolve_ref
from ikgui.domain.library import build_tree
from ikgui.domain.listing import MAX_COUNT, format_listing, format_tree
from ikgui.domain.rules import user_title_fields
from ikgui.domain.session import Session


def _help(session: Session) -> CommandResult:
    return CommandResult(session.registry.help_text())


def _clear(session: Session) -> CommandResult:
    session.clear()
    return CommandResult("Context cleared")


def _mark(session: Session, label: str | None = None) -> CommandResult:
    session.mark(label or None)
    return CommandResult(f"/mark {label}" if label else "/mark")


def _rewind(session: Session, label: str | None = None, mark: int | None = None) -> CommandResult:
    """To the newest mark called ``label`` (default: the newest), or to the live mark
    whose event id is ``mark`` (the Rewind menu)."""
    event = session.rewind(label or None, mark=mark)
    target = event.data.get("target_label")
    return CommandResult(f"Rewound to {target if target is not None else 'last mark'}")


def _parse_fork(args: str) -> dict[str, Any]:
    return {"prompt": unquote_argument(args) if args else None}


def _fork(session: Session, prompt: str | None = None) -> CommandResult:
    parent = session.conversation.id
    child = session.fork(prompt=prompt)
    return CommandResult(f"Forked child {child.id} from {parent}", send=prompt or None)


def _parse_kill(args: str) -> dict[str, Any]:
    words = args.split()
    refs = [w for w in words if w != "--cascade"]
    if len(refs) > 1 or any(r.startswith("--") for r in refs):
        raise UsageError("Usage: /kill [ref] [--cascade]")
    return {"ref": refs[0] if refs else None, "cascade": "--cascade" in words}


def _kill(session: Session, ref: str | None = None, cascade: bool = False) -> CommandResult:
    target, count = session.kill(ref or None, cascade)
    if cascade:
        return CommandResult(f"Closed {count} conversations")
    return CommandResult(f"Closed {target.id}")


def _tree(session: Session) -> CommandResult:
    if not session.saved:
        return CommandResult(f"{session.conversation.id} *  (not saved yet)", store=False)
    tree = build_tree(session.store, session.conversation.id)
    return CommandResult(format_tree(tree, session.conversation.id))


def _model(session: Session, name: str | None = None) -> CommandResult:
    models = session.model_lister(session.provider) if session.model_lister else None
    if not name:
        lines = [f"Current model: {session.model or '(provider default)'} ({session.provider})"]
        if models:
            lines.append("Available models: " + ", ".join(models))
        return CommandResult("\n".join(lines))
    if models is not None and name not in models:
        raise UserError(f"Unknown model '{name}'")
    session.update_fields(model=name)
    return CommandResult(
        f"Switched to model: {name}",
        data={"model": name, "provider": session.provider},
        materialize=True,
    )


def _unquoted(key: str) -> Callable[[str], dict[str, Any]]:
    """The parser of a command whose one argument may be quoted (``None`` if absent)."""

    def parse(args: str) -> dict[str, Any]:
        return {key: unquote_argument(args) if args else None}

    return parse


def _system(session: Session, text: str | None = None) -> CommandResult:
    if text:
        return CommandResult(
            f"System message set to: {text}", data={"system": text}, materialize=True
        )
    return CommandResult("System message cleared", data={"system": ""}, materialize=True)


def _title(session: Session, title: str | None = None) -> CommandResult:
    if title is None:
        return CommandResult(f"Title: {session.conversation.title or '(none)'}")
    fields = user_title_fields(title)
    session.update_fields(**fields)
    clean = fields["title"]
    if clean is None:
        return CommandResult("Title cleared", materialize=True)
    return CommandResult(f"Title set to: {clean}", materialize=True)


def _parse_tag(args: str) -> dict[str, Any]:
    return {"changes": args.replace(",", " ").split() or None}


def _tag(session: Session, changes: list[str] | None = None) -> CommandResult:
    if not changes:
        return CommandResult(tags_line(session.conversation.tags))
    tags = list(session.retag(list(changes)))
    return CommandResult(tags_line(tags), data={"tags": tags}, materialize=True)


def _prompt(session: Session, text: str | None = None) -> CommandResult:
    if text is None:
        current = session.state.working_prompt
        return CommandResult(f"Working prompt: {current}" if current else "No working prompt")
    if session.edit_prompt(text) is None:
        return CommandResult("Working prompt unchanged", store=False)
    return CommandResult(f"Working prompt set to: {text}" if text else "Working prompt cleared")


def _new(session: Session, agent: str | None = None) -> CommandResult:
    conv = session.new_conversation(agent or None)
    return CommandResult(f"New conversation {conv.id}", store=False)


def _parse_sessions(args: str) -> dict[str, Any]:
    try:
        count = int(args) if args else 10
    except ValueError:
        raise UsageError("Usage: /sessions [n]") from None
    return {"count": count}


def _sessions(session: Session, count: int = 10) -> CommandResult:
    if count > MAX_COUNT:
        raise UsageError(f"Usage: /sessions [n], n at most {MAX_COUNT}")
    rows = session.store.list_conversations(max(count, 1))
    return CommandResult(format_listing(rows, session.clock()))


def _load(session: Session, ref: str | None = None) -> CommandResult:
    if not ref:
        raise UsageError("Usage: /load <ref or words>")
    if " " not in ref:
        try:
            conv = session.open_ref(ref)
        except NotFoundError:
            pass
        else:
            return CommandResult(f"Switched to {conv.id}", store=False)
    hits = session.store.search(ref)
    if not hits:
        return CommandResult(f"No matches for '{ref}'")
    lines = [f"Matches for '{ref}':"]
    for hit in hits[:20]:
        lines.append(f"  {hit.conversation.id}  {hit.conversation.title or '-'}  {hit.snippet}")
    return CommandResult("\n".join(lines))


def _parse_export(args: str) -> dict[str, Any]:
    words = args.split(maxsplit=1)
    fmt = "json"
    if words and words[0] in ("md", "json"):
        fmt = words.pop(0)
    return {"fmt": fmt, "path": words[0] if words else None}


def _export(session: Session, fmt: str = "json", path: str | Path | None = None) -> CommandResult:
    if not session.saved:
        raise UserError("Nothing to export yet")
    conv_id = session.conversation.id
    target = (
        Path(path).expanduser()
        if path
        else exchange.default_export_path(conv_id, session.export_dir, fmt)
    )
    written = session.library.export(conv_id, fmt, target)
    return CommandResult(f"Exported to {written}")


def _quit(session: Session) -> CommandResult:
    session.quit_requested = True
    return CommandResult("", store=False)


def _act(name: str, label: str, shortcut: str | None, tip: str, icon: str = "") -> Action:
    """A toolbar action (object name ``action<Name>``; the icon defaults to the name)."""
    return Action(f"action{label}", label, icon or name, shortcut, tip)


C = Command[Session]

COMMANDS: list[C] = [
    C("help", "/help", "Show available commands", _help),
    C(
        "clear",
        "/clear",
        "Clear the context and scrollback (the log keeps everything)",
        _clear,
        enabled=rules.can_clear,
        own_event=True,
        action=_act(
            "clear", "Clear", "Ctrl+L", "Clear the context; the log keeps everything (/clear)"
        ),
    ),
    C(
        "mark",
        "/mark [label]",
        "Create a checkpoint [LABEL]",
        _mark,
        text_argument("label"),
        own_event=True,
        action=_act("mark", "Mark", "Ctrl+M", "Checkpoint the context here (/mark [label])"),
    ),
    C(
        "rewind",
        "/rewind [label]",
        "Roll the context back to a checkpoint [LABEL]",
        _rewind,
        text_argument("label"),
        rules.has_marks,
        own_event=True,
        action=_act(
            "rewind",
            "Rewind",
            "Ctrl+Shift+R",
            "Roll the context back to the newest mark, or pick one (/rewind)",
        ),
    ),
    C(
        "fork",
        "/fork [prompt]",
        "Branch this conversation into a child [PROMPT]",
        _fork,
        _parse_fork,
        rules.can_fork,
        own_event=True,
        action=_act("fork", "Fork", "Ctrl+B", "Branch this conversation into a child (/fork)"),
    ),
    C(
        "kill",
        "/kill [ref] [--cascade]",
        "Close a branch and return to its parent",
        _kill,
        _parse_kill,
        rules.has_parent,
        own_event=True,
    ),
    C("tree", "/tree", "Show the fork tree of this conversation", _tree),
    C(
        "branches",
        "/branches",
        "Show this conversation's parent, sibling and child branches",
        branches_command,
        enabled=rules.saved,
        action=_act("branches", "Branches", "Ctrl+Shift+B", BRANCHES_TIP, icon="fork"),
    ),
    C("model", "/model [name]", "Show or switch the model", _model, text_argument("name")),
    C(
        "system",
        "/system [text]",
        "Set or clear this conversation's system message",
        _system,
        _unquoted("text"),
    ),
    C("title", "/title [text]", "Show or set the title", _title, _unquoted("title")),
    C("tag", "/tag [+t -t ...]", "Show, add or remove tags", _tag, _parse_tag),
    C(
        "prompt",
        "/prompt [text]",
        "Show or edit the working prompt",
        _prompt,
        _unquoted("text"),
        own_event=True,
    ),
    C(
        "new",
        "/new [agent]",
        "Start a new conversation",
        _new,
        text_argument("agent"),
        action=_act("new", "New", "Ctrl+N", "Start a new conversation (/new)"),
    ),
    C("sessions", "/sessions [n]", "List recent conversations", _sessions, _parse_sessions),
    C(
        "load",
        "/load <ref or words>",
        "Switch to a conversation or search for one",
        _load,
        text_argument("ref"),
    ),
    C(
        "export",
        "/export [md|json] [path]",
        "Export this conversation",
        _export,
        _parse_export,
        rules.saved,
        action=_act(
            "export", "Export", "Ctrl+E", "Export as JSON (lossless) or Markdown (/export)"
        ),
    ),
    C("quit", "/quit", "Close the window", _quit),
    # Run with values only: not slash commands.
    C("send", "", "Send a message as it is", rules.send, slash=False),
    C(
        "stop",
        "",
        "Stop the reply",
        rules.stop,
        enabled=rules.streaming,
        slash=False,
        action=_act("stop", "Stop", "Ctrl+.", "Stop the reply (Escape)"),
    ),
    C(
        "rename",
        "",
        "Rename a conversation",
        rules.rename,
        enabled=rules.saved,
        slash=False,
        action=_act("rename", "Rename", "F2", "Rename this conversation"),
    ),
    C(
        "set_tags",
        "",
        "Replace a conversation's tags",
        rules.set_tags,
        enabled=rules.saved,
        slash=False,
        action=_act("tags", "Tags", "Ctrl+T", "Edit this conversation's tags"),
    ),
    C(
        "trash",
        "",
        "Move a conversation to the Trash",
        rules.trash,
        enabled=rules.saved,
        slash=False,
        action=_act("delete", "Delete", None, "Move this conversation to the Trash"),
    ),
    C("restore", "", "Restore a conversation from the Trash", rules.restore, slash=False),
]

#: The toolbar's actions in order (the window adds Settings, its own, at the end).
TOOLBAR = (
    "new",
    "mark",
    "rewind",
    "fork",
    "branches",
    "clear",
    "stop",
    "rename",
    "set_tags",
    "export",
    "trash",
)


def default_registry() -> Registry[Session]:
    """The built-in commands (the composition root hands them to the session)."""
    return Registry(COMMANDS, TOOLBAR)


__all__ = ["COMMANDS", "TOOLBAR", "build_tree", "default_registry", "resolve_ref", "tags_line"]
