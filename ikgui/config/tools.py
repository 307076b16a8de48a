"""config.toml's tools (SPEC §12): ``[mcp.<name>]`` servers, the ``tools`` lists of
``[defaults]`` and ``[agents.<name>]``, and ``[limits] tool_rounds, tool_output_kb``.

A mistake in one server's table drops that server (with a ``file:line: reason``
problem), never the others; a secret written into the file is refused, since secrets
live in the keyring or the environment (``secret_env``).
"""

from __future__ import annotations

import re
from typing import Any

from ikgui.config.file import Problems
from ikgui.domain.settings import ToolServerSettings

#: A server's name: it prefixes its tools' names and keys (``mcp.<name>.<VAR>``).
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
#: An environment variable's name.
VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: One entry of a ``tools`` list: ``server`` or ``server.tool``.
CHOICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*(\.[^\s.][^\s]*)?$")
_KEYS = frozenset(
    {"command", "args", "env", "cwd", "url", "enabled", "timeout", "always_allow", "secret_env"}
)


def load_servers(section: Any, problems: Problems) -> dict[str, ToolServerSettings]:
    """``[mcp]``'s tables as servers, by name."""
    if not isinstance(section, dict):
        problems.add("[mcp] must hold one table per server ([mcp.<name>])", "mcp")
        return {}
    servers: dict[str, ToolServerSettings] = {}
    for name, body in section.items():
        where = (_table(name),)
        if not NAME.match(name):
            problems.add(
                f"mcp.{name[:40]}: a server's name is letters, digits, - and _ (ignored)", *where
            )
        elif not isinstance(body, dict):
            problems.add(f"mcp.{name} must be a table", *where)
        else:
            server = _server(name, body, problems)
            if server is not None:
                servers[name] = server
    return servers


def _table(name: str) -> str:
    """The table's name as :meth:`Problems.line_of` finds its ``[mcp.<name>]`` header."""
    return f"mcp.{name}".replace(" ", "")


def _server(name: str, body: dict[str, Any], problems: Problems) -> ToolServerSettings | None:
    where = ("mcp", name)
    for key in body:
        if key not in _KEYS:
            problems.add(f"unknown setting mcp.{name}.{key} (ignored)", *where, key)
    command, url = body.get("command"), body.get("url")
    if command is None and url is None:
        problems.add(f"mcp.{name} needs a command (or a url) (ignored)", _table(name))
        return None
    if command is not None and url is not None:
        problems.add(f"mcp.{name} has both command and url: give one (ignored)", *where, "url")
        return None
    if command is not None and not (isinstance(command, str) and command.strip()):
        problems.add(f"mcp.{name}.command must be text in quotes (ignored)", *where, "command")
        return None
    if url is not None and not (isinstance(url, str) and re.match(r"https?://\S+$", url)):
        problems.add(f"mcp.{name}.url must start with http:// or https:// (ignored)", *where, "url")
        return None
    args = _words(body, "args", name, problems)
    always = _words(body, "always_allow", name, problems)
    secrets = tuple(v for v in _words(body, "secret_env", name, problems) if _variable(v))
    env = _env(body.get("env", {}), name, problems)
    if env is None:
        return None
    return ToolServerSettings(
        name=name,
        command=command,
        args=args,
        env=env,
        cwd=body["cwd"] if isinstance(body.get("cwd"), str) else None,
        url=url,
        enabled=_enabled(body, name, problems),
        timeout=_timeout(body, name, problems),
        always_allow=always,
        secret_env=secrets,
    )


def _variable(name: str) -> bool:
    return bool(VARIABLE.match(name))


def _words(body: dict[str, Any], key: str, name: str, problems: Problems) -> tuple[str, ...]:
    value = body.get(key, [])
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    problems.add(f"mcp.{name}.{key} must be a list of texts (ignored)", "mcp", name, key)
    return ()


#: Variable names that say they hold a secret: such values belong in the keyring.
_SECRET = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)


def _env(value: Any, name: str, problems: Problems) -> tuple[tuple[str, str], ...] | None:
    """``env``: plain values only. A variable whose name says it holds a secret is
    refused (the server is dropped), pointing at ``secret_env``."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and _variable(k) and isinstance(v, str) for k, v in value.items()
    ):
        problems.add(
            f'mcp.{name}.env must be a table of NAME = "text" (ignored)', "mcp", name, "env"
        )
        return ()
    for key in value:
        if _SECRET.search(key):
            problems.add(
                f"mcp.{name}.env.{key} looks like a secret: keep it out of config.toml — list "
                f'it in secret_env = ["{key}"] and run: ikgui keys set mcp.{name}.{key} '
                "(server not started)",
                "mcp",
                name,
                "env",
            )
            return None
    return tuple(value.items())


def _enabled(body: dict[str, Any], name: str, problems: Problems) -> bool:
    value = body.get("enabled", True)
    if isinstance(value, bool):
        return value
    problems.add(f"mcp.{name}.enabled must be true or false", "mcp", name, "enabled")
    return True


def _timeout(body: dict[str, Any], name: str, problems: Problems) -> float:
    from ikgui.domain.settings import TOOL_TIMEOUT

    value = body.get("timeout", TOOL_TIMEOUT)
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 86_400:
        return float(value)
    problems.add(
        f"mcp.{name}.timeout must be seconds above 0 (got {str(value)[:30]})",
        "mcp",
        name,
        "timeout",
    )
    return TOOL_TIMEOUT


def load_choice(value: Any, problems: Problems, *where: str) -> tuple[str, ...] | None:
    """A ``tools`` list (``[defaults]``, ``[agents.<name>]``): server names or
    ``server.tool``; absent: None (every enabled server)."""
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) and CHOICE.match(v) for v in value):
        return tuple(value)
    problems.add(
        f'{".".join((*where, "tools"))} must be a list like ["files", "time.get_current_time"]'
        " (ignored)",
        *where,
        "tools",
    )
    return None
