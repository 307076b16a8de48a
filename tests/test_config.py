"""config.toml loading (SPEC §9): values, and every problem with file:line: reason."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ikgui.config.loading import EXAMPLE, load_settings, save_settings


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "nope.toml")
    assert settings.default_provider == "ollama"
    assert settings.providers["ollama"].base_url == "http://localhost:11434"
    assert settings.problems == []


def test_example_config_is_valid(tmp_path: Path) -> None:
    assert load_settings(write(tmp_path, EXAMPLE)).problems == []


def test_full_config(tmp_path: Path) -> None:
    settings = load_settings(
        write(
            tmp_path,
            """
[defaults]
provider = "local"
model = "qwen"
agent = "coder"

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:8080/v1/"
api_key_env = "LOCAL_KEY"

[agents.coder]
system_prompt = "Be careful."
provider = "local"
model = "qwen-coder"
prompt_mode = "line"

[prices."qwen"]
input = 1.5
output = 3
""",
        )
    )
    assert settings.problems == []
    assert settings.default_provider == "local"
    assert settings.providers["local"].base_url == "http://127.0.0.1:8080/v1"
    assert settings.providers["local"].api_key_env == "LOCAL_KEY"
    assert settings.agents["coder"].prompt_mode == "line"
    assert settings.default_agent == "coder"
    assert settings.cost("qwen", 1_000_000, 2_000_000) == 7.5
    assert settings.cost("unknown", 10, 10) == 0.0


def test_syntax_error_reports_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[defaults]\nprovider = "ollama"\nmodel = \n')
    settings = load_settings(path)
    assert len(settings.problems) == 1
    assert settings.problems[0].startswith(f"{path}:3: ")
    assert settings.default_provider == "ollama"


def test_semantic_errors_name_the_line_and_fall_back(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """[providers.bad]
kind = "telepathy"
base_url = "http://x"

[agents.writer]
prompt_mode = "yaml"

[prices."m"]
input = "cheap"

[defaults]
provider = "bad"
""",
    )
    settings = load_settings(path)
    problems = "\n".join(settings.problems)
    assert f"{path}:2: providers.bad.kind must be one of openai, ollama, anthropic" in problems
    assert f"{path}:6: agents.writer.prompt_mode must be off, line or json" in problems
    assert f'{path}:8: prices."m" needs input and output' in problems
    assert f"{path}:12: defaults.provider 'bad' is not a configured provider" in problems
    assert "bad" not in settings.providers
    assert settings.agents["writer"].prompt_mode == "off"
    assert settings.default_provider == "ollama"


def test_unreadable_bytes_are_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert load_settings(path).problems[0].startswith(f"{path}:1: cannot read the file")


def test_listed_providers_replace_the_default_and_theme(tmp_path: Path) -> None:
    settings = load_settings(
        write(
            tmp_path,
            """
[defaults]
theme = "dark"

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:8080/v1"
""",
        )
    )
    assert list(settings.providers) == ["local"]  # removing ollama from the file sticks
    assert settings.default_provider == "local"
    assert settings.theme == "dark"
    bad = load_settings(write(tmp_path, '[defaults]\ntheme = "neon"\n'))
    assert bad.theme == "system" and "defaults.theme must be" in bad.problems[0]


def test_auto_title_on_agents_and_providers(tmp_path: Path) -> None:
    """Issue 12 item 7: ``auto_title = "model"`` on an agent or a provider; a bad value
    is a problem and falls back to the first words; saving keeps it."""
    settings = load_settings(
        write(
            tmp_path,
            '[providers.local]\nkind = "openai"\nbase_url = "http://x/v1"\n'
            'auto_title = "model"\n\n[agents.painter]\nauto_title = "model"\n\n'
            '[agents.coder]\nauto_title = "sometimes"\n',
        )
    )
    assert settings.providers["local"].auto_title == "model"
    assert settings.agents["painter"].auto_title == "model"
    assert settings.agents["coder"].auto_title == "words"
    assert any("agents.coder.auto_title must be words or model" in p for p in settings.problems)
    fresh = tmp_path / "fresh" / "config.toml"
    save_settings(settings, fresh)
    document = tomllib.loads(fresh.read_text("utf-8"))
    assert document["providers"]["local"]["auto_title"] == "model"
    assert document["agents"]["painter"]["auto_title"] == "model"
    assert "auto_title" not in document["agents"]["coder"]
