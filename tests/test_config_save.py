"""Writing config.toml (SPEC §9): round trip, a backup of the previous file, atomicity."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from ikgui.config.loading import load_settings, save_settings
from ikgui.domain.settings import AgentSettings, Price, ProviderSettings, Settings
from ikgui.local.keys import KeyStore
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


# -- issue 20 item 3: saving edits the user's file, it does not re-write it ------------

HAND_WRITTEN = """\
# My ikgui setup — hand-written, please keep my notes.

[defaults]
provider = "local"      # the GPU box
theme = "dark"
mood = "cheerful"       # not an ikgui key: kept as it is

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:1234/v1/"   # trailing slash on purpose
timeout_note = "ask Bob"

[providers.ollama]
kind = "ollama"
base_url = "http://localhost:11434"

# Writers first.
[agents.writer]
system_prompt = '''
You write short, plain sentences.
Never more than three paragraphs.'''
provider = "local"
auto_title = "model"    # titles by the model, after the first reply
prompt_mode = "line"


[agents.plain]
# nothing but the defaults

[prices."gpt-4o-mini"]
input = 0.15
output = 0.6

[limits]
reply_minutes = 45

[experiments]
colour = "teal"
"""


def _lines_changed(before: str, after: str) -> list[str]:
    import difflib

    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_saving_unchanged_settings_leaves_the_file_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, "utf-8")
    settings = load_settings(path)
    assert settings.agents["writer"].auto_title == "model"
    save_settings(settings, path)
    assert path.read_text("utf-8") == HAND_WRITTEN
    assert not (tmp_path / "config.toml.bak").exists()  # nothing to write: nothing written


def test_changing_one_setting_changes_only_its_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, "utf-8")
    settings = load_settings(path)
    writer = settings.agents["writer"]
    settings.agents["writer"] = replace(writer, prompt_mode="json")
    save_settings(settings, path, before=load_settings(path))
    after = path.read_text("utf-8")
    assert _lines_changed(HAND_WRITTEN, after) == [
        '-prompt_mode = "line"',
        '+prompt_mode = "json"',
    ]
    assert load_settings(path).agents["writer"] == replace(writer, prompt_mode="json")


def test_a_changed_key_keeps_its_comment_and_a_cleared_one_goes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, "utf-8")
    settings = load_settings(path)
    settings.default_provider = "ollama"
    settings.theme = "system"
    save_settings(settings, path)
    assert _lines_changed(HAND_WRITTEN, path.read_text("utf-8")) == [
        '-provider = "local"      # the GPU box',
        '-theme = "dark"',
        '+provider = "ollama"      # the GPU box',
    ]


def test_added_and_removed_tables_leave_the_rest_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, "utf-8")
    settings = load_settings(path)
    del settings.agents["plain"]
    settings.agents["coder"] = AgentSettings("coder", "Be exact.\nSay so.", None, "qwen", "off")
    settings.providers["lm studio"] = ProviderSettings(
        "lm studio", "openai", "http://localhost:1234/v1", auto_title="model"
    )
    settings.prices["qwen"] = Price(0.0, 0.0)
    save_settings(settings, path)
    text = path.read_text("utf-8")
    loaded = load_settings(path)
    assert replace(loaded, problems=[]) == replace(settings, problems=[])
    assert [p.split(": ", 1)[1] for p in loaded.problems] == [
        "unknown section [experiments] (ignored)"
    ]
    for kept in (
        "# My ikgui setup — hand-written, please keep my notes.",
        'mood = "cheerful"       # not an ikgui key: kept as it is',
        'timeout_note = "ask Bob"',
        'base_url = "http://127.0.0.1:1234/v1/"   # trailing slash on purpose',
        'auto_title = "model"    # titles by the model, after the first reply',
        "# Writers first.",
        '[experiments]\ncolour = "teal"',
    ):
        assert kept in text
    assert "[agents.plain]" not in text
    assert '[providers."lm studio"]' in text


def test_a_file_with_no_providers_gets_the_whole_list_when_one_is_added(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('# only a theme\n[defaults]\ntheme = "light"\n', "utf-8")
    settings = load_settings(path)
    settings.providers["local"] = ProviderSettings("local", "openai", "http://127.0.0.1:8080/v1")
    save_settings(settings, path)
    assert load_settings(path).providers == settings.providers  # Ollama kept too
    assert path.read_text("utf-8").startswith('# only a theme\n[defaults]\ntheme = "light"\n')


def test_a_file_that_does_not_parse_is_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[defaults\nprovider = ", "utf-8")
    save_settings(full_settings(), path)
    assert load_settings(path) == full_settings()
    assert (tmp_path / "config.toml.bak").read_text("utf-8") == "[defaults\nprovider = "


def test_a_key_edited_in_the_file_meanwhile_is_kept(tmp_path: Path) -> None:
    """The window saves what changed since the settings in force: an edit made to the
    file while ikgui ran survives a Settings → OK that did not touch it."""
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, "utf-8")
    in_force = load_settings(path)
    path.write_text(HAND_WRITTEN.replace("reply_minutes = 45", "reply_minutes = 50"), "utf-8")
    save_settings(replace(in_force, text_size=120), path, before=in_force)
    text = path.read_text("utf-8")
    assert "reply_minutes = 50" in text and "text_size = 120" in text


def test_saving_over_a_fifo_or_a_device_link_replaces_it_without_reading_it(
    tmp_path: Path,
) -> None:
    """Settings → OK on a config.toml that is a named pipe (no writer: reading would wait
    for ever) or a link to /dev/zero (reading would never end) writes a new file."""
    fifo = tmp_path / "fifo" / "config.toml"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    device = tmp_path / "device" / "config.toml"
    device.parent.mkdir()
    device.symlink_to("/dev/zero")
    for path in (fifo, device):
        save_settings(full_settings(), path)
        assert path.is_file() and not path.is_symlink()
        assert load_settings(path) == full_settings()
        assert not path.with_name("config.toml.bak").exists()
