"""An unpriced model's cost is unknown, not free (issue 13, item 4): ``null`` in
``conv show --json`` and ``conv list --json``, "no price set" in ``conv show``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Cli


def test_an_unpriced_model_has_an_unknown_cost(cli: Cli, tmp_path: Path) -> None:
    orcx = {
        "id": "orcx-c3d4",
        "model": "llama3",
        "messages": [
            {"role": "user", "content": "hi", "timestamp": "2025-01-01T10:00:00"},
            {"role": "assistant", "content": "hello", "timestamp": "2025-01-01T10:00:05"},
        ],
        "created_at": "2025-01-01T10:00:00",
        "updated_at": "2025-01-01T10:00:05",
        "total_tokens": 42,
        "total_cost": 0,
    }
    path = tmp_path / "orcx.json"
    path.write_text(json.dumps(orcx), encoding="utf-8")
    cli.ok("conv", "import", str(path))
    assert cli.ok("conv", "show", "c3d4", "--json").json["cost"] is None
    assert [c["cost"] for c in cli.ok("conv", "list", "--json").json] == [None]
    shown = cli.ok("conv", "show", "c3d4").out
    assert "0 in / 42 out · no price set" in shown and "$0.0000" not in shown
