"""``[limits] attachment_mb`` (SPEC §13): read from config.toml, written back, checked."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ikgui.config.loading import load_settings, save_settings
from ikgui.domain.attachments import ATTACHMENT_MB


def test_attachment_mb_is_read_saved_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[limits]\nattachment_mb = 5\n", encoding="utf-8")
    settings = load_settings(path)
    assert settings.problems == [] and settings.attachment_mb == 5
    save_settings(replace(settings, attachment_mb=8), path)
    assert "attachment_mb = 8" in path.read_text(encoding="utf-8")
    assert load_settings(path).attachment_mb == 8
    path.write_text("[limits]\nattachment_mb = 0.5\n", encoding="utf-8")
    settings = load_settings(path)
    assert settings.attachment_mb == ATTACHMENT_MB
    assert settings.problems == [
        f"{path}:2: limits.attachment_mb must be a whole number above 0 (got 0.5)"
    ]
