"""Configuration values the domain works with (loaded by :mod:`ikgui.config.loading`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ikgui.domain.attachments import ATTACHMENT_MB

PROVIDER_KINDS = ("openai", "ollama", "anthropic")
THEMES = ("system", "light", "dark")
#: How a conversation gets its automatic title: its first words, or a short title the
#: model is asked for after the first reply (``auto_title = "model"``).
AUTO_TITLES = ("words", "model")
DEFAULT_PROVIDER = "ollama"
DEFAULT_OLLAMA_URL = "http://localhost:11434"
REPLY_SECONDS = 30 * 60.0
REPLY_BYTES = 20_000_000
#: The transcript's text size, in percent of its normal size: the default, the range and
#: the step of Ctrl+= and Ctrl+-.
TEXT_SIZE_DEFAULT = 100
TEXT_SIZE_MIN = 70
TEXT_SIZE_MAX = 200
TEXT_SIZE_STEP = 10


@dataclass(frozen=True)
class ProviderSettings:
    name: str
    kind: str
    base_url: str
    api_key_env: str | None = None
    auto_title: str = "words"


@dataclass(frozen=True)
class AgentSettings:
    name: str
    system_prompt: str | None = None
    provider: str | None = None
    model: str | None = None
    prompt_mode: str = "off"
    auto_title: str = "words"
    #: The tools its conversations offer (SPEC §12): server names or ``server.tool``;
    #: empty: none; None: as ``[defaults] tools``.
    tools: tuple[str, ...] | None = None


#: A tool call's default time limit (seconds), and the rounds of tool calls one send may run.
TOOL_TIMEOUT = 60.0
TOOL_ROUNDS = 10
#: How much of one tool's output goes into the context (KiB); it is stored whole.
TOOL_OUTPUT_KB = 100


@dataclass(frozen=True)
class ToolServerSettings:
    """``[mcp.<name>]``: an MCP server started with ``command`` (stdio) or reached at
    ``url`` (Streamable HTTP). Secrets never sit here: ``secret_env`` names variables
    whose values come from the keyring (``mcp.<name>.<VAR>``) or the environment."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    enabled: bool = True
    timeout: float = TOOL_TIMEOUT
    always_allow: tuple[str, ...] = ()
    secret_env: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """How it is reached, in words: its command line or its URL."""
        if self.url is not None:
            return self.url
        return " ".join((self.command or "", *self.args)).strip()


@dataclass(frozen=True)
class Price:
    input: float
    output: float


def stepped_text_size(size: int, steps: int) -> int:
    """``size`` moved by ``steps`` steps of ``TEXT_SIZE_STEP``, within the range (0 steps:
    back to the default)."""
    if steps == 0:
        return TEXT_SIZE_DEFAULT
    moved = (size // TEXT_SIZE_STEP + steps) * TEXT_SIZE_STEP
    return max(TEXT_SIZE_MIN, min(TEXT_SIZE_MAX, moved))


def default_providers() -> dict[str, ProviderSettings]:
    return {"ollama": ProviderSettings("ollama", "ollama", DEFAULT_OLLAMA_URL)}


@dataclass
class Settings:
    default_provider: str = DEFAULT_PROVIDER
    default_model: str | None = None
    default_agent: str | None = None
    providers: dict[str, ProviderSettings] = field(default_factory=default_providers)
    agents: dict[str, AgentSettings] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)
    #: The window's theme: follow the system, or force light or dark.
    theme: str = "system"
    #: The transcript's text size in percent (``[defaults] text_size``).
    text_size: int = TEXT_SIZE_DEFAULT
    #: The longest one reply may stream, and the most it may hold ([limits]).
    reply_seconds: float = REPLY_SECONDS
    reply_bytes: int = REPLY_BYTES
    #: MCP servers (``[mcp.<name>]``), the tools conversations offer by default
    #: (``[defaults] tools``; None: every enabled server), and the tool loop's limits.
    tool_servers: dict[str, ToolServerSettings] = field(default_factory=dict)
    default_tools: tuple[str, ...] | None = None
    tool_rounds: int = TOOL_ROUNDS
    tool_output_kb: int = TOOL_OUTPUT_KB
    #: The most one attached file may hold, in MiB (``[limits] attachment_mb``).
    attachment_mb: int = ATTACHMENT_MB
    #: ``[storage] url``: a PostgreSQL URL (None: the SQLite file), and ``password_env``:
    #: the environment variable holding its password (the password is never stored here).
    storage_url: str | None = None
    storage_password_env: str | None = None
    #: What is wrong with ``[storage]`` (``file:line: reason``): no store is opened then.
    storage_problem: str | None = None
    #: Problems found while loading (``file:line: reason``); defaults were used instead.
    problems: list[str] = field(default_factory=list)

    def agent(self, name: str | None) -> AgentSettings | None:
        return self.agents.get(name) if name else None

    def defaults_for(self, agent: str | None) -> tuple[str, str | None]:
        """The provider and model a new conversation (of ``agent``) starts with: the
        agent's own, else the defaults."""
        settings = self.agent(agent)
        provider = (settings and settings.provider) or self.default_provider
        model = (settings and settings.model) or self.default_model
        return provider, model

    def cost(self, model: str | None, input_tokens: int, output_tokens: int) -> float:
        price = self.prices.get(model or "")
        if price is None:
            return 0.0
        return (input_tokens * price.input + output_tokens * price.output) / 1_000_000
