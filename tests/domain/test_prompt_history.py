"""The working prompt's versions, word diffs and restores (issue 11, items 2–4)."""

from __future__ import annotations

from ikgui.domain.commands.handlers import default_registry
from ikgui.domain.events import Kind
from ikgui.domain.session.session import Session
from ikgui.domain.state.prompt_history import diff_counts, same_prompt, word_diff
from tests.support.memstore import MemoryStore


def test_whitespace_only_changes_are_not_edits() -> None:
    session = Session(MemoryStore())
    session.append(Kind.ASSISTANT, "Prompt: a cat", {"prompt": "a cat in a hat"})
    session.stage_prompt("a cat  in a hat\n")
    assert not session.prompt_edited and session.staged_prompt is None
    assert session.commit_prompt() is None
    session.stage_prompt("a cat in a red hat")
    assert session.staged_prompt == "a cat in a red hat"
    session.revert_prompt()
    assert not session.prompt_edited
    assert same_prompt(" a\tb ", "a b") and not same_prompt("a b", "a c")


def test_versions_name_who_set_each_one_including_a_rewind() -> None:
    session = Session(MemoryStore(), registry=default_registry())
    session.append(Kind.USER, "draw a cat")
    session.append(Kind.ASSISTANT, "Prompt: a cat", {"prompt": "a cat"})
    session.registry.dispatch(session, "/mark first")
    session.append(Kind.USER, "make it a wizard")
    session.append(Kind.ASSISTANT, "Prompt: a wizard cat", {"prompt": "a wizard cat"})
    session.edit_prompt("a wizard cat, watercolor")
    session.registry.dispatch(session, "/rewind first")
    versions = session.prompt_versions()
    assert [(v.author, v.text) for v in versions] == [
        ("assistant", "a cat"),
        ("assistant", "a wizard cat"),
        ("you", "a wizard cat, watercolor"),
        ("rewind", "a cat"),
    ]
    assert versions[2].previous == "a wizard cat"
    assert versions[3].label == "A rewind restored it"


def test_restore_records_one_new_edit_and_never_rewrites() -> None:
    store = MemoryStore()
    session = Session(store)
    session.append(Kind.ASSISTANT, "Prompt: a cat", {"prompt": "a cat"})
    session.edit_prompt("a dog")
    before = [(e.id, e.content) for e in store.events(session.conversation.id)]
    first = session.prompt_versions()[0]
    notice = session.restore_prompt(first.text, first.event_id)
    assert notice is not None and notice.data["prompt"] == "a cat"
    assert notice.data["restored_from"] == first.event_id
    after = [(e.id, e.content) for e in store.events(session.conversation.id)]
    assert after[: len(before)] == before and len(after) == len(before) + 1
    assert session.state.working_prompt == "a cat"
    assert session.prompt_versions()[-1].author == "restored"
    assert session.restore_prompt(first.text, first.event_id) is None  # already the working prompt


def test_word_diff_marks_inserted_and_deleted_words() -> None:
    runs = word_diff("a tabby cat in a hat", "a black cat in a tall hat")
    assert ("delete", "tabby") in runs and ("insert", "black") in runs
    assert any(op == "insert" and "tall" in text for op, text in runs)
    assert "".join(t for op, t in runs if op != "delete") == "a black cat in a tall hat"
    assert "".join(t for op, t in runs if op != "insert") == "a tabby cat in a hat"
    assert diff_counts(runs) == (2, 1)
    assert word_diff("", "new text") == [("insert", "new text")]
    assert word_diff("dusk, warm light", "dusk, stormy sea") == [
        ("equal", "dusk, "),
        ("delete", "warm light"),
        ("insert", "stormy sea"),
    ]
    huge = " ".join(["w"] * 5000)
    assert word_diff(huge, huge + " x") == [("delete", huge), ("insert", huge + " x")]


def test_last_request_is_what_the_newest_reply_answered() -> None:
    from ikgui.domain.state.context_diff import line_diff

    session = Session(MemoryStore())
    assert session.last_request() is None
    session.append(Kind.USER, "draw a cat")
    assert session.last_request() is None  # never asked yet
    session.append(Kind.ASSISTANT, "Prompt: a cat", {"prompt": "a cat"})
    asked = session.last_request()
    assert asked == [{"role": "user", "content": "draw a cat"}]
    session.edit_prompt("a black cat")
    now = session.context()
    assert now[:2] == [
        {"role": "user", "content": "draw a cat"},
        {"role": "assistant", "content": "Prompt: a cat"},
    ]
    diff = line_diff("[user]\ndraw a cat", "[user]\ndraw a cat\n\n[assistant]\nPrompt: a cat")
    assert ("insert", "[assistant]") in diff and not any(op == "delete" for op, _ in diff)
    long_old = "\n".join(f"line {i}" for i in range(100))
    folded = line_diff(long_old, long_old + "\nnew")
    assert folded[0] == ("skipped", "98 unchanged lines") and folded[-1] == ("insert", "new")
    assert len(folded) == 4


def test_word_diff_treats_punctuation_apart() -> None:
    """Issue 20 item 18: "sea" → "sea, red-and-white" is an insertion, not a replacement."""
    assert word_diff("a lighthouse by the sea", "a lighthouse by the sea, red-and-white") == [
        ("equal", "a lighthouse by the sea"),
        ("insert", ", red-and-white"),
    ]
    runs = word_diff("a cat.", "a black cat!")
    assert ("insert", "black ") in runs and ("delete", ".") in runs and ("insert", "!") in runs
    assert diff_counts(word_diff("sea", "sea, red-and-white")) == (1, 0)
