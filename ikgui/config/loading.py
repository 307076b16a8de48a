"""Loading ``config.toml`` (SPEC §9) into :class:`~ikgui.domain.settings.Settings`.

A broken file never stops ikgui: each problem is reported as ``file:line: reason``
in ``Settings.problems`` and the affected part falls back to its default.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from ikgui.config.file import Problems as _Problems
from ikgui.config.file import read_config_text
from ikgui.config.storage import load_storage
from ikgui.config.tools import load_choice, load_servers
from ikgui.domain.settings import (
    AUTO_TITLES,
    PROVIDER_KINDS,
    TEXT_SIZE_DEFAULT,
    TEXT_SIZE_MAX,
    TEXT_SIZE_MIN,
    THEMES,
    AgentSettings,
    Price,
    ProviderSettings,
    Settings,
    default_providers,
)
from ikgui.domain.state.working_prompt import PROMPT_MODES

EXAMPLE = """\
# ikgui configuration. Keys live in the OS keyring (`ikgui keys set NAME`),
# or in an environment variable named by api_key_env.

[defaults]
provider = "ollama"
# model = "llama3.2"
# agent = "coder"
# text_size = 100   # the transcript's text, in percent (also Ctrl+= / Ctrl+- / Ctrl+0)

[providers.ollama]
kind = "ollama"
base_url = "http://localhost:11434"

# [providers.openai]
# kind = "openai"
# base_url = "https://api.openai.com/v1"
# api_key_env = "OPENAI_API_KEY"

# [agents.coder]
# system_prompt = "You are a careful senior engineer."
# provider = "ollama"
# model = "qwen2.5-coder"
# prompt_mode = "off"   # off | line | json
# auto_title = "words"  # words | model (the model titles it after the first reply)

# [prices."gpt-4o-mini"]
# input = 0.15    # dollars per million input tokens
# output = 0.60

# [limits]
# reply_minutes = 30   # the longest one reply may stream
# reply_mb = 20        # the most one reply may hold
# tool_rounds = 10     # rounds of tool calls one message may run
# tool_output_kb = 100 # how much of a tool's output the model reads (stored whole)
# attachment_mb = 20   # the most one attached file may hold (MiB)

# Tools from MCP servers (SPEC §12): started on first need, asked before each call.
# [mcp.files]
# command = "npx"
# args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
# timeout = 60             # seconds per call
# always_allow = []        # tools that run without asking
# secret_env = []          # variables from the keyring: ikgui keys set mcp.files.VAR
"""


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _shown(value: Any) -> str:
    """``value`` as a problem line quotes it: short (a value may be a megabyte long)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _text(section: dict[str, Any], key: str, problems: _Problems, *where: str) -> str | None:
    """``section[key]`` as text (None: absent or blank); another type is a problem."""
    value = section.get(key)
    if value is not None and not isinstance(value, str):
        name = ".".join((*where, key))
        problems.add(f"{name} must be text in quotes (got {_shown(value)}; ignored)", *where, key)
        return None
    return _str(value)


def load_settings(path: Path) -> Settings:
    settings = Settings()
    read = read_config_text(path)
    if read.problem is not None:
        settings.problems.append(read.problem)
    if read.text is None:
        return settings
    text = read.text
    try:
        raw = tomllib.loads(text)
    except RecursionError:
        # tomllib parses nested arrays and tables by recursion: ``a = [[[[…`` 100,000
        # deep would otherwise end the program.
        settings.problems.append(f"{path}:1: values are nested too deeply")
        return settings
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        settings.problems.append(f"{path}:{match.group(1) if match else 1}: {reason}")
        return settings
    problems = _Problems(path, text)
    # First: the store's problem is kept as found[-1], before any cap on their number.
    load_storage(raw, settings, problems.add, problems.found)
    if isinstance(raw.get("providers"), dict) and raw["providers"]:
        settings.providers = {}  # the file lists every provider (Ollama only by default)
    _load_providers(raw.get("providers", {}), settings, problems)
    if not settings.providers:
        settings.providers = default_providers()
    settings.tool_servers = load_servers(raw.get("mcp", {}), problems)
    _load_agents(raw.get("agents", {}), settings, problems)
    _load_prices(raw.get("prices", {}), settings, problems)
    _load_defaults(raw.get("defaults", {}), settings, problems)
    _load_limits(raw.get("limits", {}), settings, problems)
    for key in raw:
        if key not in ("defaults", "providers", "agents", "prices", "limits", "storage", "mcp"):
            problems.add(f"unknown section [{key}] (ignored)", key)
    settings.problems.extend(problems.summary())
    return settings


def _load_providers(section: Any, settings: Settings, problems: _Problems) -> None:
    if not isinstance(section, dict):
        problems.add("[providers] must be a table", "providers")
        return
    for name, body in section.items():
        where = ("providers", name)
        if not isinstance(body, dict):
            problems.add(f"providers.{name} must be a table", *where)
            continue
        kind = body.get("kind", "ollama" if name == "ollama" else None)
        if kind not in PROVIDER_KINDS:
            problems.add(
                f"providers.{name}.kind must be one of {', '.join(PROVIDER_KINDS)} "
                f"(got {_shown(kind)})",
                *where,
                "kind",
            )
            continue
        given = body.get("base_url")
        url = _str(given)
        if url is None or not re.match(r"https?://", url):
            problems.add(
                f"providers.{name}.base_url must be an http(s) URL (got {_shown(given)})",
                *where,
                "base_url",
            )
            continue
        env = body.get("api_key_env")
        if env is not None and _str(env) is None:
            problems.add(
                f"providers.{name}.api_key_env must be a variable name", *where, "api_key_env"
            )
            env = None
        settings.providers[name] = ProviderSettings(
            name, kind, url.rstrip("/"), env, _auto_title(body, where, problems)
        )


def _load_agents(section: Any, settings: Settings, problems: _Problems) -> None:
    if not isinstance(section, dict):
        problems.add("[agents] must be a table", "agents")
        return
    for name, body in section.items():
        where = ("agents", name)
        if not isinstance(body, dict):
            problems.add(f"agents.{name} must be a table", *where)
            continue
        mode = body.get("prompt_mode", "off")
        if mode not in PROMPT_MODES:
            problems.add(
                f"agents.{name}.prompt_mode must be off, line or json (got {_shown(mode)})",
                *where,
                "prompt_mode",
            )
            mode = "off"
        provider = _text(body, "provider", problems, *where)
        if provider is not None and provider not in settings.providers:
            problems.add(
                f"agents.{name}.provider '{provider}' is not a configured provider",
                *where,
                "provider",
            )
            provider = None
        settings.agents[name] = AgentSettings(
            name,
            _text(body, "system_prompt", problems, *where),
            provider,
            _text(body, "model", problems, *where),
            mode,
            _auto_title(body, where, problems),
            load_choice(body.get("tools"), problems, *where),
        )


def _auto_title(body: dict[str, Any], where: tuple[str, str], problems: _Problems) -> str:
    """``auto_title``: ``words`` (the first words, the default) or ``model``."""
    value = body.get("auto_title", "words")
    if value not in AUTO_TITLES:
        problems.add(
            f"{'.'.join(where)}.auto_title must be words or model (got {_shown(value)})",
            *where,
            "auto_title",
        )
        return "words"
    return str(value)


def _load_prices(section: Any, settings: Settings, problems: _Problems) -> None:
    if not isinstance(section, dict):
        problems.add("[prices] must be a table", "prices")
        return
    for model, body in section.items():
        values = body if isinstance(body, dict) else {}
        numbers = [values.get("input"), values.get("output")]
        if not all(
            isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in numbers
        ):
            problems.add(
                f'prices."{model}" needs input and output as numbers >= 0', f'prices."{model}"'
            )
            continue
        settings.prices[model] = Price(float(values["input"]), float(values["output"]))


def _load_defaults(section: Any, settings: Settings, problems: _Problems) -> None:
    if not isinstance(section, dict):
        problems.add("[defaults] must be a table", "defaults")
        return
    provider = _text(section, "provider", problems, "defaults")
    if provider is not None:
        if provider in settings.providers:
            settings.default_provider = provider
        else:
            problems.add(
                f"defaults.provider '{provider}' is not a configured provider",
                "defaults",
                "provider",
            )
    if settings.default_provider not in settings.providers:
        settings.default_provider = next(iter(settings.providers))
    theme = section.get("theme", "system")
    if theme in THEMES:
        settings.theme = theme
    else:
        problems.add(
            f"defaults.theme must be system, light or dark (got {_shown(theme)})",
            "defaults",
            "theme",
        )
    _load_text_size(section.get("text_size", TEXT_SIZE_DEFAULT), settings, problems)
    settings.default_model = _text(section, "model", problems, "defaults")
    settings.default_tools = load_choice(section.get("tools"), problems, "defaults")
    agent = _text(section, "agent", problems, "defaults")
    if agent is not None:
        if agent in settings.agents:
            settings.default_agent = agent
        else:
            problems.add(f"defaults.agent '{agent}' is not a configured agent", "defaults", "agent")


def _load_text_size(value: Any, settings: Settings, problems: _Problems) -> None:
    whole = isinstance(value, int) and not isinstance(value, bool)
    if whole and TEXT_SIZE_MIN <= value <= TEXT_SIZE_MAX:
        settings.text_size = value
        return
    problems.add(
        f"defaults.text_size must be a whole percentage from {TEXT_SIZE_MIN} to "
        f"{TEXT_SIZE_MAX} (got {_shown(value)})",
        "defaults",
        "text_size",
    )


def _load_limits(section: Any, settings: Settings, problems: _Problems) -> None:
    """``[limits] reply_minutes, reply_mb``: numbers above 0 (fractions allowed);
    ``tool_rounds``, ``tool_output_kb``, ``attachment_mb``: whole numbers above 0."""
    if not isinstance(section, dict):
        problems.add("[limits] must be a table", "limits")
        return
    for key, value in section.items():
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if key in ("tool_rounds", "tool_output_kb", "attachment_mb"):
            _load_whole_limit(key, value, settings, problems)
        elif key not in ("reply_minutes", "reply_mb"):
            problems.add(f"unknown setting limits.{key} (ignored)", "limits", key)
        elif number is None or not 0 < number < 1e9:
            problems.add(
                f"limits.{key} must be a number above 0 (got {_shown(value)})", "limits", key
            )
        elif key == "reply_minutes":
            settings.reply_seconds = float(number) * 60
        else:
            settings.reply_bytes = max(1, int(number * 1_000_000))


def _load_whole_limit(key: str, value: Any, settings: Settings, problems: _Problems) -> None:
    whole = isinstance(value, int) and not isinstance(value, bool)
    if not (whole and 0 < value <= 1_000_000):
        problems.add(
            f"limits.{key} must be a whole number above 0 (got {_shown(value)})", "limits", key
        )
    elif key == "tool_rounds":
        settings.tool_rounds = value
    elif key == "attachment_mb":
        settings.attachment_mb = value
    else:
        settings.tool_output_kb = value


def save_settings(settings: Settings, path: Path, before: Settings | None = None) -> None:
    """Write ``settings`` to ``path`` so that :func:`load_settings` reads them back equal,
    changing only the keys whose setting differs from ``before`` (default: the file as
    it is): its comments, layout and unknown keys are kept (:mod:`ikgui.config.saving`).

    The write is atomic (a temporary file in the same folder replaces the old one), and
    the previous file is kept as ``<name>.bak``; a file that would not change is not
    written. ``Settings.problems`` is not written.
    """
    # Imported here so that the command line, which only reads the config, stays fast.
    from ikgui.config.saving import config_text, write_atomically

    # Read as loading does (a regular file of bounded size only): a config.toml that is a
    # FIFO or a link to a device is replaced whole instead of hanging the save.
    text = read_config_text(path).text  # None when missing or unreadable: written whole
    new = config_text(settings, before if before is not None else load_settings(path), text)
    if new != text:
        write_atomically(path, new)
