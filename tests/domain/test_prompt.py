"""Working-prompt extraction (SPEC §7): line and json modes."""

from __future__ import annotations

import pytest

from ikgui.domain.prompt import current_prompt_line, edit_notice, extract


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
            "Prompt: a cat\nwearing a hat\nin the rain\n\nWant changes?",
            "a cat wearing a hat in the rain",
        ),
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
