"""The built-in slash commands (SPEC §5), in registry (and ``/help``) order."""

from __future__ import annotations

from pathlib import Path

from ikgui.domain import exchange
from ikgui.domain.commands import Command, CommandResult, unquote_argument
from ikgui.domain.errors import NotFoundError, UsageError, UserError
from ikgui.domain.events import TreeNode
from ikgui.domain.ids import resolve_ref
from ikgui.domain.library import apply_tag_changes, descendants
from ikgui.domain.listing import MAX_COUNT, format_listing, format_tree
from ikgui.domain.session import Session


def _help(session: Session, args: str) -> CommandResult:
    return CommandResult(session.registry.help_text())


def _clear(session: Session, args: str) -> CommandResult:
    session.clear()
    return CommandResult("Context cleared")


def _mark(session: Session, args: str) -> CommandResult:
    session.mark(args or None)
    return CommandResult(f"/mark {args}" if args else "/mark")


def _rewind(session: Session, args: str) -> CommandResult:
    event = session.rewind(args or None)
    label = event.data.get("target_label")
    return CommandResult(f"Rewound to {label if label is not None else 'last mark'}")


def _fork(session: Session, args: str) -> CommandResult:
    prompt = unquote_argument(args) if args else None
    parent = session.conversation.id
    child = session.fork()
    return CommandResult(f"Forked child {child.id} from {parent}", send=prompt or None)


def _kill(session: Session, args: str) -> CommandResult:
    words = args.split()
    cascade = "--cascade" in words
    refs = [w for w in words if w != "--cascade"]
    if len(refs) > 1 or any(r.startswith("--") for r in refs):
        raise UsageError("Usage: /kill [ref] [--cascade]")
    target, count = session.kill(refs[0] if refs else None, cascade)
    if cascade:
        return CommandResult(f"Closed {count} conversations")
    return CommandResult(f"Closed {target.id}")


def build_tree(session: Session, conv_id: str) -> TreeNode:
    store = session.store
    conv = store.get_conversation(conv_id)
    if conv is None:
        raise NotFoundError(f"Conversation not found: {conv_id}")
    seen = {conv.id}
    while conv.parent is not None and conv.parent not in seen:
        parent = store.get_conversation(conv.parent)
        if parent is None:
            break
        seen.add(parent.id)
        conv = parent
    root = TreeNode(conv)
    nodes = {conv.id: root}
    for child in descendants(store, conv.id):
        node = TreeNode(child)
        nodes[child.id] = node
        if child.parent in nodes:
            nodes[child.parent].children.append(node)
    for node in nodes.values():
        node.children.sort(key=lambda n: (n.conversation.created_at, n.conversation.id))
    return root


def _tree(session: Session, args: str) -> CommandResult:
    if not session.saved:
        return CommandResult(f"{session.conversation.id} *  (not saved yet)", store=False)
    tree = build_tree(session, session.conversation.id)
    return CommandResult(format_tree(tree, session.conversation.id))


def _model(session: Session, args: str) -> CommandResult:
    models = session.model_lister(session.provider) if session.model_lister else None
    if not args:
        lines = [f"Current model: {session.model or '(provider default)'} ({session.provider})"]
        if models:
            lines.append("Available models: " + ", ".join(models))
        return CommandResult("\n".join(lines))
    if models is not None and args not in models:
        raise UserError(f"Unknown model '{args}'")
    session.update_fields(model=args)
    return CommandResult(
        f"Switched to model: {args}",
        data={"model": args, "provider": session.provider},
        materialize=True,
    )


def _system(session: Session, args: str) -> CommandResult:
    text = unquote_argument(args) if args else ""
    if text:
        return CommandResult(
            f"System message set to: {text}", data={"system": text}, materialize=True
        )
    return CommandResult("System message cleared", data={"system": ""}, materialize=True)


def _title(session: Session, args: str) -> CommandResult:
    if not args:
        return CommandResult(f"Title: {session.conversation.title or '(none)'}")
    title = unquote_argument(args)
    session.update_fields(title=title, title_by_user=True)
    return CommandResult(f"Title set to: {title}", materialize=True)


def tags_line(tags: tuple[str, ...] | list[str]) -> str:
    return "Tags: " + (", ".join(tags) if tags else "(none)")


def _tag(session: Session, args: str) -> CommandResult:
    if not args:
        return CommandResult(tags_line(session.conversation.tags))
    tags = apply_tag_changes(session.conversation.tags, args.replace(",", " ").split())
    session.set_tags(tags)
    return CommandResult(tags_line(tags), data={"tags": tags}, materialize=True)


def _prompt(session: Session, args: str) -> CommandResult:
    if not args:
        current = session.state.working_prompt
        return CommandResult(f"Working prompt: {current}" if current else "No working prompt")
    text = unquote_argument(args)
    if session.edit_prompt(text) is None:
        return CommandResult("Working prompt unchanged", store=False)
    return CommandResult(f"Working prompt set to: {text}" if text else "Working prompt cleared")


def _new(session: Session, args: str) -> CommandResult:
    conv = session.new_conversation(args or None)
    return CommandResult(f"New conversation {conv.id}", store=False)


def _sessions(session: Session, args: str) -> CommandResult:
    try:
        count = int(args) if args else 10
    except ValueError:
        raise UsageError("Usage: /sessions [n]") from None
    if count > MAX_COUNT:
        raise UsageError(f"Usage: /sessions [n], n at most {MAX_COUNT}")
    rows = session.store.list_conversations(max(count, 1))
    return CommandResult(format_listing(rows, session.clock()))


def _load(session: Session, args: str) -> CommandResult:
    if not args:
        raise UsageError("Usage: /load <ref or words>")
    if " " not in args:
        try:
            conv = session.open_ref(args)
        except NotFoundError:
            pass
        else:
            return CommandResult(f"Switched to {conv.id}", store=False)
    hits = session.store.search(args)
    if not hits:
        return CommandResult(f"No matches for '{args}'")
    lines = [f"Matches for '{args}':"]
    for hit in hits[:20]:
        lines.append(f"  {hit.conversation.id}  {hit.conversation.title or '-'}  {hit.snippet}")
    return CommandResult("\n".join(lines))


def _export(session: Session, args: str) -> CommandResult:
    words = args.split(maxsplit=1)
    fmt = "json"
    if words and words[0] in ("md", "json"):
        fmt = words.pop(0)
    if not session.saved:
        raise UserError("Nothing to export yet")
    path = Path(words[0]).expanduser() if words else exchange.default_export_path(session, fmt)
    written = exchange.write_export(session.store, session.conversation.id, fmt, path)
    return CommandResult(f"Exported to {written}")


def _quit(session: Session, args: str) -> CommandResult:
    session.quit_requested = True
    return CommandResult("", store=False)


def _has_marks(session: Session) -> bool:
    return bool(session.state.marks)


def _not_streaming(session: Session) -> bool:
    return not session.streaming


def _has_scrollback(session: Session) -> bool:
    return bool(session.state.scrollback)


def _has_parent(session: Session) -> bool:
    return session.conversation.parent is not None


def _saved(session: Session) -> bool:
    return session.saved


COMMANDS = [
    Command("help", "/help", "Show available commands", _help),
    Command(
        "clear",
        "/clear",
        "Clear the context and scrollback (the log keeps everything)",
        _clear,
        _has_scrollback,
        own_event=True,
    ),
    Command("mark", "/mark [label]", "Create a checkpoint [LABEL]", _mark, own_event=True),
    Command(
        "rewind",
        "/rewind [label]",
        "Roll the context back to a checkpoint [LABEL]",
        _rewind,
        _has_marks,
        own_event=True,
    ),
    Command(
        "fork",
        "/fork [prompt]",
        "Branch this conversation into a child [PROMPT]",
        _fork,
        _not_streaming,
        own_event=True,
    ),
    Command(
        "kill",
        "/kill [ref] [--cascade]",
        "Close a branch and return to its parent",
        _kill,
        _has_parent,
        own_event=True,
    ),
    Command("tree", "/tree", "Show the fork tree of this conversation", _tree),
    Command("model", "/model [name]", "Show or switch the model", _model),
    Command("system", "/system [text]", "Set or clear this conversation's system message", _system),
    Command("title", "/title [text]", "Show or set the title", _title),
    Command("tag", "/tag [+t -t ...]", "Show, add or remove tags", _tag),
    Command("prompt", "/prompt [text]", "Show or edit the working prompt", _prompt, own_event=True),
    Command("new", "/new [agent]", "Start a new conversation", _new),
    Command("sessions", "/sessions [n]", "List recent conversations", _sessions),
    Command("load", "/load <ref or words>", "Switch to a conversation or search for one", _load),
    Command("export", "/export [md|json] [path]", "Export this conversation", _export, _saved),
    Command("quit", "/quit", "Close the window", _quit),
]

__all__ = ["COMMANDS", "build_tree", "resolve_ref", "tags_line"]
