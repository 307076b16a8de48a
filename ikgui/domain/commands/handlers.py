"""The built-in slash commands (SPEC §5), in registry (and ``/help``) order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ikgui.domain.commands import direct as rules
from ikgui.domain.commands.branches import BRANCHES_TIP, branches_command
from ikgui.domain.commands.browse import (
    export_command,
    load_command,
    new_command,
    parse_export,
    parse_sessions,
    sessions_command,
)
from ikgui.domain.commands.direct import tags_line
from ikgui.domain.commands.registry import (
    Action,
    Command,
    CommandResult,
    Registry,
    text_argument,
    unquote_argument,
)
from ikgui.domain.commands.tools import parse_tools, tools_command
from ikgui.domain.errors import UsageError, UserError
from ikgui.domain.library.conversations import build_tree
from ikgui.domain.library.listing import format_tree
from ikgui.domain.session.comparison import USAGE as COMPARE_USAGE
from ikgui.domain.session.session import Session
from ikgui.domain.state.catalog import parse_choice
from ikgui.domain.state.ids import resolve_ref
from ikgui.domain.state.rules import current_provider, user_title_fields


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


def _parse_compare(args: str) -> dict[str, Any]:
    return {"models": args.split()}


def _compare(session: Session, models: list[str] | None = None) -> CommandResult:
    """``/compare MODEL MODEL…``: the next message (that one only) goes to each model;
    ``/compare off`` sends it as usual again; ``/compare`` alone says which are chosen."""
    if models == ["off"]:
        session.compare_next = None
        return CommandResult("The next message is sent as usual", store=False)
    if not models:
        if session.compare_next is None:
            raise UsageError(COMPARE_USAGE)
        names = ", ".join(c.label for c in session.compare_next)
        return CommandResult(f"The next message goes to: {names}", store=False)
    picked = session.contenders(models)
    session.compare_next = picked
    names = ", ".join(c.label for c in picked)
    return CommandResult(f"The next message goes to: {names}", store=False)


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


def _model(session: Session, name: str | None = None, provider: str | None = None) -> CommandResult:
    """Show the model, or choose one: ``name`` under the open conversation's provider,
    under ``provider`` (the model selector), or ``PROVIDER/NAME`` typed (a move to
    another configured provider)."""
    lister = session.model_lister
    here = session.provider
    if not name:
        models = lister(here) if lister else None
        lines = [f"Current model: {session.model or '(provider default)'} ({here})"]
        if models:
            lines.append("Available models: " + ", ".join(models))
        others = [p for p in session.settings.providers if p != here]
        if others:
            lines.append(f"Other providers: {', '.join(others)} (/model PROVIDER/MODEL)")
        return CommandResult("\n".join(lines))
    data: dict[str, Any] = {}
    if provider is None:
        provider, name = parse_choice(
            name, session.settings, here, lister(here) if lister else None
        )
    elif provider not in session.settings.providers:
        raise UserError(f"Unknown provider '{provider}'")
    else:  # chosen with values: stored as the line that would do it
        data["input"] = f"/model {name}" if provider == here else f"/model {provider}/{name}"
    models = lister(provider) if lister else None
    if models is not None and name not in models:
        where = "" if provider == here else f" at {provider}"
        raise UserError(f"Unknown model '{name}'{where}")
    moved = provider != current_provider(session.state, session.conversation, session.settings)
    session.update_fields(model=name, **({"provider": provider} if moved else {}))
    return CommandResult(
        f"Switched to model: {name}" + (f" ({provider})" if provider != here else ""),
        data={**data, "model": name, "provider": provider},
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


def _quit(session: Session) -> CommandResult:
    session.quit_requested = True
    return CommandResult("", store=False)


def _act(name: str, label: str, shortcut: str | None, tip: str, icon: str = "") -> Action:
    """A toolbar action (object name ``action<Name>``; the icon defaults to the name)."""
    return Action(f"action{label}", label, icon or name, shortcut, tip)


C = Command[Session]


def _shown(*args: Any, **kwargs: Any) -> C:
    """A command that may run in a closed branch (it appends nothing to its log)."""
    return C(*args, **{**kwargs, "when_closed": True})


COMMANDS: list[C] = [
    _shown("help", "/help", "Show available commands", _help),
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
    _shown(
        "kill",
        "/kill [ref] [--cascade]",
        "Close a branch and return to its parent",
        _kill,
        _parse_kill,
        rules.has_parent,
        own_event=True,
    ),
    _shown(
        "reopen",
        "/reopen [ref]",
        "Reopen a closed branch",
        rules.reopen,
        text_argument("ref"),
        own_event=True,
    ),
    _shown("tree", "/tree", "Show the fork tree of this conversation", _tree),
    _shown(
        "branches",
        "/branches",
        "Show this conversation's parent, sibling and child branches",
        branches_command,
        enabled=rules.saved,
        action=_act("branches", "Branches", "Ctrl+Shift+B", BRANCHES_TIP, icon="fork"),
    ),
    C(
        "compare",
        "/compare MODEL MODEL…",
        "Send the next message to each model at once, answers side by side",
        _compare,
        _parse_compare,
        rules.can_compare,
        action=_act(
            "compare",
            "Compare",
            "Ctrl+Shift+D",
            "Send the next message to several models at once, side by side (/compare)",
        ),
    ),
    C(
        "model",
        "/model [[provider/]name]",
        "Show or switch the model (or move to another provider)",
        _model,
        text_argument("name"),
    ),
    C(
        "system",
        "/system [text]",
        "Set or clear this conversation's system message",
        _system,
        _unquoted("text"),
    ),
    C(
        "tools",
        "/tools [on|off|revoke NAME]",
        "Show tool servers and grants, switch a server for this conversation, or revoke a grant",
        tools_command,
        parse_tools,
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
    _shown(
        "new",
        "/new [agent]",
        "Start a new conversation",
        new_command,
        text_argument("agent"),
        action=_act("new", "New", "Ctrl+N", "Start a new conversation (/new)"),
    ),
    _shown(
        "sessions", "/sessions [n]", "List recent conversations", sessions_command, parse_sessions
    ),
    _shown(
        "load",
        "/load <ref or words>",
        "Switch to a conversation or search for one",
        load_command,
        text_argument("ref"),
    ),
    _shown(
        "export",
        "/export [md|json] [path]",
        "Export this conversation",
        export_command,
        parse_export,
        rules.saved,
        action=_act(
            "export", "Export", "Ctrl+E", "Export as JSON (lossless) or Markdown (/export)"
        ),
    ),
    _shown("quit", "/quit", "Close the window", _quit),
    # Run with values only: not slash commands.
    C("send", "", "Send a message as it is", rules.send, slash=False),
    _shown(
        "stop",
        "",
        "Stop the reply",
        rules.stop,
        enabled=rules.streaming,
        slash=False,
        action=_act("stop", "Stop", "Ctrl+.", "Stop the reply (Escape)"),
    ),
    _shown(
        "rename",
        "",
        "Rename a conversation",
        rules.rename,
        enabled=rules.saved,
        slash=False,
        action=_act("rename", "Rename", "F2", "Rename this conversation"),
    ),
    _shown(
        "set_tags",
        "",
        "Replace a conversation's tags",
        rules.set_tags,
        enabled=rules.saved,
        slash=False,
        action=_act("tags", "Tags", "Ctrl+T", "Edit this conversation's tags"),
    ),
    _shown(
        "trash",
        "",
        "Move a conversation to the Trash",
        rules.trash,
        enabled=rules.saved,
        slash=False,
        action=_act("delete", "Delete", None, "Move this conversation to the Trash"),
    ),
    _shown("restore", "", "Restore a conversation from the Trash", rules.restore, slash=False),
]

#: The toolbar's actions in order (the window adds Settings, its own, at the end).
TOOLBAR = (
    "new",
    "mark",
    "rewind",
    "fork",
    "branches",
    "compare",
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
