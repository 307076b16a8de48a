"""Working-prompt extraction (SPEC §7): line and json modes."""

from __future__ import annotations

import pytest

from ikgui.domain.state.working_prompt import (
    PromptBlockGate,
    current_prompt_line,
    edit_notice,
    extract,
)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Here you go.\n\nPrompt: a tabby cat in a wizard hat", "a tabby cat in a wizard hat"),
        ("prompt: lower case works", "lower case works"),
        ("Image prompt: not at line start", None),
        ("Prompt for the image: with words before the colon", "with words before the colon"),
        ('Prompt: "quoted text"', "quoted text"),
        ("Prompt: “curly quotes”", "curly quotes"),
        ("**Prompt:** bold label", "bold label"),
        (
            "Prompt:\na cat\nwearing a hat\nin the rain\n\nWant changes?",
            "a cat wearing a hat in the rain",
        ),
        # Text on the label's line is the whole prompt (issue 11: it swallowed the next).
        ("Here you go!\nPrompt: a cute cat\nWant any changes?", "a cute cat"),
        ("Here you go!\r\nPrompt: a cute cat\r\nWant any changes?\r\n", "a cute cat"),
        ("Done.\r\n\r\nPrompt:\r\na cat\r\nin a hat\r\n\r\nMore?", "a cat in a hat"),
        ("so:\nprompt: lower case label\nand then chat", "lower case label"),
        ("**Prompt:** bold label\nWant it brighter?", "bold label"),
        ("**Prompt:**\n\nA paragraph\nover two lines.\n\nTell me.", "A paragraph over two lines."),
        (
            "Prompt: a cat with\n- a red hat\n- blue shoes\nLike it?",
            "a cat with a red hat blue shoes",
        ),
        ("Prompt:\n- one\n-  two\n\nAnything else?", "one two"),
        (
            "Prompt:\n- a cat\n- a wizard hat\n* purple background\n\nAnything else?",
            "a cat a wizard hat purple background",
        ),
        ("Prompt:\n\n1. first\n2. second", "first second"),
        ("Prompt: old one\n\nOn second thought:\nPrompt: the newest one", "the newest one"),
        ("No prompt in this reply at all.", None),
        ("Prompt:", None),
        ("Prompting is fun: but this is not a prompt line", None),
    ],
)
def test_line_mode(reply: str, expected: str | None) -> None:
    assert extract(reply, "line").prompt == expected


def test_json_mode_ready_sets_prompt_and_hides_the_object() -> None:
    reply = 'A cat it is!\n\nHow about this?\n---\n{"prompt": "a cat, watercolor", "ready": true}'
    result = extract(reply, "json")
    assert result.prompt == "a cat, watercolor"
    assert result.display_end is not None
    assert reply[: result.display_end] == "A cat it is!\n\nHow about this?"


def test_json_mode_not_ready_shows_text_but_sets_nothing() -> None:
    reply = 'Still thinking.\n---\n{"prompt": "draft", "ready": false}'
    result = extract(reply, "json")
    assert result.prompt is None
    assert reply[: result.display_end] == "Still thinking."


def test_json_mode_missing_ready_is_not_ready() -> None:
    assert extract('x\n---\n{"prompt": "p"}', "json").prompt is None


def test_json_mode_fenced_object_and_multiline_json() -> None:
    reply = 'Text\n---\n```json\n{\n  "prompt": "multi\\nline",\n  "ready": true\n}\n```'
    assert extract(reply, "json").prompt == "multi\nline"


@pytest.mark.parametrize("reply", ["no separator", "x\n---\nnot json", "x\n---\n[1, 2]"])
def test_json_mode_without_a_valid_object_leaves_prompt_alone(reply: str) -> None:
    result = extract(reply, "json")
    assert result.prompt is None
    assert result.display_end is None


def test_off_mode_never_extracts() -> None:
    assert extract("Prompt: something", "off").prompt is None


def test_notice_texts() -> None:
    assert edit_notice("a b") == '[user edited prompt to: "a b"]'
    assert current_prompt_line("") == '[current prompt: ""]'


@pytest.mark.parametrize(
    ("reply", "warning"),
    [
        ("Just chatting, no block.", "No prompt block found"),
        ("x\n---\nnot json", "Prompt block is not valid JSON: Expecting value"),
        ("x\n---\n[1, 2]", "Prompt block is not a JSON object"),
        ('x\n---\n{"prompt": "p", "ready": true}', None),
        ('x\n---\n{"prompt": "p", "ready": false}', None),
        # a block without "ready" is not applied, and says so (issue 20)
        (
            'x\n---\n{"prompt": "p"}',
            'Prompt block has no "ready": true, so its prompt was not applied',
        ),
        (
            'x\n---\n{"prompt": "p", "ready": "yes"}',
            'Prompt block\'s "ready" is not true or false, so its prompt was not applied',
        ),
        ('x\n---\n{"ready": true}', 'Prompt block has no "prompt" text, so nothing was applied'),
    ],
)
def test_json_mode_says_why_a_reply_set_no_prompt(reply: str, warning: str | None) -> None:
    assert extract(reply, "json").warning == warning
    assert extract(reply, "line").warning is None


def _gated(mode: str, chunks: list[str]) -> str:
    gate = PromptBlockGate(mode)
    return "".join(gate.feed(chunk) for chunk in chunks)


def test_gate_holds_back_the_json_block_however_it_is_cut() -> None:
    reply = 'A cat!\n- item\n--\nmore\n---\n{"prompt": "a cat", "ready": true}'
    for size in (1, 2, 3, 5, 64):
        chunks = [reply[i : i + size] for i in range(0, len(reply), size)]
        assert _gated("json", chunks) == "A cat!\n- item\n--\nmore\n"
    assert _gated("line", [reply]) == reply
    assert _gated("off", list(reply)) == reply


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        ("Here.\n\nPrompt: a cat", "Here.\n\n"),
        ("Here.\n\n**Prompt:**\n\na cat,\nwatercolor\n\n", "Here.\n\n"),
        ("Prompt: a cat", ""),
        ("Here.\n\nPrompt:\n- a cat\n- a hat\n", "Here.\n\n"),
    ],
)
def test_line_mode_says_where_a_final_prompt_starts(reply: str, shown: str) -> None:
    """Issue 20 item 18: the window shows the reply up to a prompt that ends it (the
    prompt is in its panel, not three times over)."""
    result = extract(reply, "line")
    assert result.prompt is not None and result.label_start is not None
    assert reply[: result.label_start] == shown


def test_line_mode_keeps_a_prompt_followed_by_more_text_in_place() -> None:
    result = extract("Prompt: a cat\n\nShall I go on?", "line")
    assert result.prompt == "a cat" and result.label_start is None
