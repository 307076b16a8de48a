"""One mutation path (issue 22, item 1), checked on the source: nothing outside the
aggregate (``OpenConversation`` in ``ikgui/domain/session/open_conversation.py``) assigns the open
conversation's state, and facts are announced from its ``apply`` alone. The announces
left are named below, each with what remains to be done; an entry that no longer
matches fails, so the list only shrinks."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "ikgui"
#: The open conversation's state (``OpenConversation``'s fields).
STATE = frozenset({"conversation", "state", "saved"})
AGGREGATE = ("domain/session/open_conversation.py", "OpenConversation")

#: Methods of the aggregate that assign its state other than ``apply``'s fold
#: (``_take``, ``_patch``). The list may only shrink.
ASSIGNS_LEFT: dict[str, str] = {
    "__init__": "the blank conversation a session starts on",
    "prepare": "fields of a conversation not stored yet (the new settings' defaults)",
    "new_conversation": "a switch, not a change",
    "open": "a switch, not a change",
    "materialize": "stored now: its id (if taken) and times, with its first event",
    "mark_stored": "stored or not after a write the store refused",
}

#: (module, function) calling ``announce`` other than ``OpenConversation.apply``.
ANNOUNCES_LEFT: dict[tuple[str, str], str] = {
    (
        "domain/session/open_conversation.py",
        "new_conversation",
    ): "ConversationSwitched: a switch, not a change",
    ("domain/session/open_conversation.py", "open"): "ConversationSwitched: a switch, not a change",
    (
        "domain/session/open_conversation.py",
        "state",
    ): "StateReplaced(deferred) when a conversation opened behind a preview is first read",
    (
        "domain/session/open_conversation.py",
        "emit_delta",
    ): "DeltaReceived: streamed text not stored yet",
    (
        "domain/session/writes.py",
        "_waits",
    ): "WritesPending: a change waits in the queue (the queue's state, not the conversation's)",
    ("domain/session/writes.py", "flushed"): "WritesPending: the queue's state once it was written",
    ("domain/session/sender.py", "_exchange"): "StreamStarted/StreamFinished: a send's progress",
    ("domain/session/sendlock.py", "hold"): "SendWaiting: a send waits for another process",
}


#: The Store port's methods that write.
STORE_WRITES = frozenset(
    {
        "insert_conversation",
        "update_conversation",
        "set_tags",
        "change_tags",
        "add_usage",
        "set_pinned",
        "delete_conversations",
        "append_event",
        "update_event",
        "rename_tag",
        "delete_tag",
        "add_tag",
        "remove_tag",
    }
)

#: (module, innermost function) of the session calling a store's write method: the one
#: writer and what it runs. The list may only shrink.
WRITES_LEFT: dict[tuple[str, str], str] = {
    ("domain/session/writes.py", "append"): "the writer: an event now, or queued",
    ("domain/session/writes.py", "update"): "the writer: a reply's growth now, or queued",
    ("domain/session/pending.py", "_write"): "the writer: the queue, in order",
    ("domain/session/open_conversation.py", "materialize"): "the open conversation's insert, "
    "in the transaction of its first event (writes.append)",
    ("domain/session/open_conversation.py", "setting"): "a StoreWrite's call: run by the writer",
    ("domain/session/open_conversation.py", "adding"): "a StoreWrite's call: run by the writer",
    ("domain/session/library.py", "call"): "a StoreWrite's call: run by the writer",
    ("domain/session/library.py", "reading"): "a StoreWrite's call: run by the writer",
    ("domain/session/model_title.py", "setting"): "a StoreWrite's call: run by the writer",
    ("domain/session/open_conversation.py", "keep_drafts"): "drafts: session state kept with "
    "the conversation, not a change of it (they stay in memory while changes wait)",
    ("domain/session/crashed.py", "mark_interrupted"): "a dead writer's reply: a StoreWrite's "
    "call when the window settles it (elsewhere.settle_abandoned); at start-up, before any "
    "session exists, the store's own (recover_unfinished: another helper adds tool results)",
}


def _functions(tree: ast.AST) -> list[tuple[str, str, ast.AST]]:
    """Every function with its class (``""``: none)."""
    found: list[tuple[str, str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.append((node.name, item.name, item))
    owned = {id(f) for _, _, f in found}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and id(node) not in owned:
            found.append(("", node.name, node))
    return found


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return [t for target in node.targets for t in _flat(target)]
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return _flat(node.target)
    return []


def _flat(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        return [t for e in target.elts for t in _flat(e)]
    return [target]


def _holds_session(base: ast.expr) -> bool:
    """Whether ``base`` names the session or its open conversation (``session``,
    ``current``, ``window.session``, ``self.current``...)."""
    names = {n.id for n in ast.walk(base) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(base) if isinstance(n, ast.Attribute)}
    return bool(names & {"session", "current"})


def _scan() -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    assigns: set[tuple[str, str]] = set()
    announces: set[tuple[str, str]] = set()
    for path in sorted(ROOT.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls, name, function in _functions(tree):
            inside = (module, cls) == AGGREGATE
            for node in ast.walk(function):
                for target in _targets(node):
                    if not (isinstance(target, ast.Attribute) and target.attr in STATE):
                        continue
                    if not inside and _holds_session(target.value):
                        assigns.add((module, name))
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "announce"
                    and not (inside and name == "apply")
                ):
                    announces.add((module, name))
    return assigns, announces


def test_nothing_outside_the_aggregate_assigns_the_open_conversation_state() -> None:
    assigns, _ = _scan()
    assert not assigns, "assign through OpenConversation (apply, or a method of its own)"


def test_facts_are_announced_from_apply_and_the_named_rest_only() -> None:
    _, announces = _scan()
    assert announces == set(ANNOUNCES_LEFT)


def _store_writes() -> set[tuple[str, str]]:
    """(module, innermost function) of every call ``<...store>.<write>(...)`` in the
    session package."""
    found: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "domain" / "session").rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for _, name, function in _functions(tree):
            inner = {
                id(n)
                for child in ast.iter_child_nodes(function)
                for n in ast.walk(child)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                for n in ast.walk(n)
            }
            for node in ast.walk(function):
                if id(node) in inner:
                    continue  # (a nested function is counted under its own name)
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in STORE_WRITES
                    and "store" in ast.unparse(node.func.value)
                ):
                    found.add((module, name))
    return found


def test_the_session_writes_through_the_one_writer_and_the_named_rest_only() -> None:
    assert _store_writes() == set(WRITES_LEFT)


def test_inside_the_aggregate_the_fold_and_the_named_rest_assign_its_state() -> None:
    found: set[str] = set()
    path = ROOT / AGGREGATE[0]
    for cls, name, function in _functions(ast.parse(path.read_text(encoding="utf-8"))):
        if cls != AGGREGATE[1] or name in ("apply", "_take", "_patch"):
            continue
        for node in ast.walk(function):
            for target in _targets(node):
                if isinstance(target, ast.Attribute) and target.attr in STATE:
                    found.add(name)
    assert found == set(ASSIGNS_LEFT)


def test_the_one_writer_is_called_from_apply_alone() -> None:
    """Events, a reply's growth and changes of fields are written by ``apply`` through
    :mod:`ikgui.domain.session.writes` (now, or queued): no operation calls it."""
    callers: set[tuple[str, str]] = set()
    for path in sorted(ROOT.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        for cls, name, function in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("append", "update", "store")
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "write_ops"
                ):
                    callers.add((module, f"{cls}.{name}"))
    assert callers == {(AGGREGATE[0], f"{AGGREGATE[1]}.apply")}


#: (module, function) of the session calling a library rule on the store outside a
#: ``StoreWrite``'s call (a lambda or a nested function the writer runs). May only shrink.
LIBRARY_CALLS_LEFT: dict[tuple[str, str], str] = {
    ("domain/session/library.py", "import_document"): "importing writes what it read, "
    "in its own transaction (domain/library/importing.py: another helper's)",
    ("domain/session/library.py", "export"): "reads only (an export writes a file)",
}


def test_the_library_s_rules_run_inside_a_store_write_only() -> None:
    """The sidebar's and the Trash's operations (``library.clean`` included: Empty Trash,
    ``conv clean``) reach the store through a ``StoreWrite`` that ``apply`` hands to the
    writer, never directly."""
    found: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "domain" / "session").rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        for _, name, function in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            deferred = {
                id(n)
                for child in ast.iter_child_nodes(function)
                for inner in ast.walk(child)
                if isinstance(inner, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef)
                for n in ast.walk(inner)
            }
            for node in ast.walk(function):
                if (
                    id(node) not in deferred
                    and isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("library", "exchange")
                    and node.args
                    and "store" in ast.unparse(node.args[0])
                ):
                    found.add((module, name))
    assert found == set(LIBRARY_CALLS_LEFT)
