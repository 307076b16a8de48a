"""Fuzzing ``ikgui conv import``: whatever the file holds, the answer is a summary or one
``Error:`` line with exit code 1, never a traceback; and what was imported can be shown
and exported again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.cli.conftest import Cli

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["../../x", "chat-a", "chat-b", "\x1b[2J", "", " ", "2026-01-01T00:00:00"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
IDS = st.sampled_from(["chat-a", "chat-b", "CHAT-A", "../../x", "a\nb", "", "x" * 80, "chat-c"])
KINDS = st.sampled_from(
    ["user", "assistant", "system", "tool_call", "tool_result", "rewind", "fork", "clear", "mark"]
)
TOOL_DATA = st.fixed_dictionaries(
    {
        "id": JSON,
        "type": st.just("function"),
        "function": st.dictionaries(
            st.sampled_from(["name", "arguments"]), JSON | st.just('{"a": [1, 2]}'), max_size=2
        ),
    }
)
EVENT = st.fixed_dictionaries(
    {"id": st.integers(min_value=-5, max_value=40), "kind": KINDS},
    optional={
        "content": JSON,
        "data": st.none()
        | TOOL_DATA
        | st.dictionaries(
            st.sampled_from(["target_event_id", "fork_event_id", "child_id", "name", "output"]),
            JSON,
            max_size=3,
        ),
        "created_at": JSON,
    },
)
FIELDS = {
    name: JSON
    for name in (
        "agent",
        "provider",
        "model",
        "title",
        "title_by_user",
        "tags",
        "status",
        "created_at",
        "updated_at",
        "trashed_at",
        "draft",
        "fork_event_id",
        "cost",
    )
}
CONVERSATION = st.fixed_dictionaries(
    {"id": IDS, "events": st.lists(EVENT, max_size=4)},
    optional={
        "parent": IDS,
        "tokens": st.dictionaries(st.sampled_from(["input", "output"]), JSON, max_size=2) | JSON,
        **FIELDS,
    },
)
IKGUI_DOCUMENT = st.fixed_dictionaries(
    {
        "format": st.just("ikgui"),
        "version": st.just(1),
        "conversations": st.lists(CONVERSATION, max_size=4),
    }
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool"])},
    optional={
        "content": JSON,
        "timestamp": JSON,
        "tool_calls": st.lists(TOOL_DATA, max_size=2) | JSON,
    },
)
ORCX_DOCUMENT = st.fixed_dictionaries(
    {"id": IDS, "messages": st.lists(MESSAGE, max_size=4)},
    optional={"total_tokens": JSON, "total_cost": JSON, "tags": JSON, **FIELDS},
)
DOCUMENT = IKGUI_DOCUMENT | ORCX_DOCUMENT | st.lists(ORCX_DOCUMENT, min_size=1, max_size=3)


def check(result_code: int, out: str, err: str) -> None:
    assert "Traceback" not in err and "Traceback" not in out
    if result_code == 0:
        assert out.startswith("Imported ")
    else:
        assert result_code == 1, err
        assert err.startswith("Error: ") and err.count("\n") == 1, err


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=DOCUMENT)
def test_no_import_document_raises(cli: Cli, tmp_path: Path, document: Any) -> None:
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = cli("conv", "import", str(path))
    check(result.code, result.out, result.err)
    event("imported" if result.code == 0 else result.err[:40])
    if result.code != 0:
        return
    listed = result.out.splitlines()[0].split(":", 1)[1].strip()
    for conv_id in listed.split(", ") if listed else []:
        for command in (
            ("conv", "show", conv_id),
            ("conv", "export", conv_id),
            ("conv", "export", conv_id, "--format", "md"),
            ("conv", "context", conv_id),
        ):
            shown = cli(*command)
            assert shown.code == 0 and "Traceback" not in shown.err, shown.err


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100000,
        json.dumps(
            {"format": "ikgui", "version": 1, "conversations": [{"id": "a", "cost": 1e308}]}
        ),
        '{"id": "o", "messages": [], "total_tokens": "many"}',
    ],
)
def test_no_traceback_from_a_real_process(cli: Cli, tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.json"
    path.write_text(text, encoding="utf-8")
    result = cli.process("conv", "import", str(path))
    check(result.code, result.out, result.err)
    assert result.code == 1
