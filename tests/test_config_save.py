"""Writing config.toml (SPEC §9): round trip, a backup of the previous file, atomicity."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ikgui.config import load_settings, save_settings
from ikgui.domain.settings import AgentSettings, Price, ProviderSettings, Settings
from ikgui.keys import KeyStore
from tests.support.memkeyring import MemoryKeyring


def full_settings() -> Settings:
    return Settings(
        default_provider="openrouter",
        default_model="meta/llama-3.1:8b",
        default_agent="coder",
        providers={
            "ollama": ProviderSettings("ollama", "ollama", "http://localhost:11434"),
            "openrouter": ProviderSettings(
                "openrouter", "openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"
            ),
            "claude": ProviderSettings(
                "claude", "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY"
            ),
            "lm studio": ProviderSettings("lm studio", "openai", "http://127.0.0.1:1234/v1"),
        },
        agents={
            "coder": AgentSettings(
                "coder",
                'You are a careful "senior" engineer.\nIt\'s fine to say """I don\'t know""".\n'
                "  Indented line with a backslash \\ and a tab\there.\n",
                "openrouter",
                "gpt-4o-mini",
                "line",
            ),
            "painter": AgentSettings("painter", "Draft image prompts.", None, None, "json"),
            "plain": AgentSettings("plain"),
        },
        prices={
            "gpt-4o-mini": Price(0.15, 0.6),
            "meta/llama-3.1:8b": Price(0.0, 0.0),
            'odd "quoted" model': Price(1.25, 10.0),
        },
    )


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    settings = full_settings()
    save_settings(settings, path)
    loaded = load_settings(path)
    assert loaded.problems == []
    assert loaded == settings


def test_round_trip_of_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_settings(Settings(), path)
    assert load_settings(path) == Settings()


def test_creates_missing_folders(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "config.toml"
    save_settings(full_settings(), path)
    assert load_settings(path) == full_settings()


def test_previous_file_is_kept_as_bak(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# my hand-written config\n[defaults]\nprovider = 'ollama'\n", "utf-8")
    save_settings(full_settings(), path)
    backup = tmp_path / "config.toml.bak"
    assert backup.read_text("utf-8").startswith("# my hand-written config")
    assert load_settings(path) == full_settings()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "config.toml.bak"]


def test_failed_write_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    save_settings(Settings(), path)
    before = path.read_bytes()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        save_settings(full_settings(), path)
    assert path.read_bytes() == before
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers == ["config.toml", "config.toml.bak"]  # no temporary file left behind


def test_keys_are_never_written(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    keys = KeyStore()
    assert keys.set("openrouter", "sk-or-secret-4242") == "keyring"
    path = tmp_path / "config.toml"
    save_settings(full_settings(), path)
    text = path.read_text("utf-8")
    assert "sk-or-secret-4242" not in text
    assert "OPENROUTER_API_KEY" in text  # only the variable's name
