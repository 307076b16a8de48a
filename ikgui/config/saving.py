"""Writing ``config.toml`` from the Settings dialog (SPEC §9) by editing the user's file.

The file is parsed with tomlkit, which keeps its comments, blank lines, key order and
every key ikgui does not know. Only the keys whose setting changed between ``before``
(the settings in force when the dialog opened) and the new settings are set, added or
removed; everything else stays byte for byte as it was. A missing file, or one that
does not parse, is written whole (the old one is kept as ``<name>.bak``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import Table

from ikgui.domain.attachments import ATTACHMENT_MB
from ikgui.domain.settings import (
    REPLY_BYTES,
    REPLY_SECONDS,
    TEXT_SIZE_DEFAULT,
    TOOL_OUTPUT_KB,
    TOOL_ROUNDS,
    TOOL_TIMEOUT,
    AgentSettings,
    Price,
    ProviderSettings,
    Settings,
    ToolServerSettings,
)

HEADER = (
    "ikgui configuration, first written by the Settings dialog. Edit it freely: Settings",
    "changes only the lines of what you change there. API keys are never stored here: they",
    "live in the OS keyring, or in an environment variable named by api_key_env.",
)

#: A table's keys as config.toml spells them, each with its value (None: left out).
Fields = dict[str, Any]


def provider_fields(provider: ProviderSettings) -> Fields:
    return {
        "kind": provider.kind,
        "base_url": provider.base_url,
        "api_key_env": provider.api_key_env,
        "auto_title": None if provider.auto_title == "words" else provider.auto_title,
    }


def agent_fields(agent: AgentSettings) -> Fields:
    return {
        "system_prompt": agent.system_prompt,
        "provider": agent.provider,
        "model": agent.model,
        "prompt_mode": agent.prompt_mode,
        "auto_title": None if agent.auto_title == "words" else agent.auto_title,
        "tools": _listed(agent.tools),
    }


def _listed(values: tuple[str, ...] | None) -> list[str] | None:
    return None if values is None else list(values)


def server_fields(server: ToolServerSettings) -> Fields:
    """``[mcp.<name>]``: only what differs from a default is written."""
    return {
        "command": server.command,
        "args": list(server.args) or None,
        "env": dict(server.env) or None,
        "cwd": server.cwd,
        "url": server.url,
        "enabled": None if server.enabled else False,
        "timeout": None if server.timeout == TOOL_TIMEOUT else server.timeout,
        "always_allow": list(server.always_allow) or None,
        "secret_env": list(server.secret_env) or None,
    }


def _price_fields(price: Price) -> Fields:
    return {"input": price.input, "output": price.output}


def _defaults_fields(settings: Settings) -> Fields:
    return {
        "provider": settings.default_provider,
        "model": settings.default_model,
        "agent": settings.default_agent,
        "theme": None if settings.theme == "system" else settings.theme,
        "text_size": None if settings.text_size == TEXT_SIZE_DEFAULT else settings.text_size,
        "tools": _listed(settings.default_tools),
    }


def _limits_fields(settings: Settings) -> Fields:
    minutes = settings.reply_seconds / 60
    megabytes = settings.reply_bytes / 1_000_000
    return {
        "reply_minutes": None if settings.reply_seconds == REPLY_SECONDS else minutes,
        "reply_mb": None if settings.reply_bytes == REPLY_BYTES else megabytes,
        "tool_rounds": None if settings.tool_rounds == TOOL_ROUNDS else settings.tool_rounds,
        "tool_output_kb": (
            None if settings.tool_output_kb == TOOL_OUTPUT_KB else settings.tool_output_kb
        ),
        "attachment_mb": (
            None if settings.attachment_mb == ATTACHMENT_MB else settings.attachment_mb
        ),
    }


def _storage_fields(settings: Settings) -> Fields:
    return {"url": settings.storage_url, "password_env": settings.storage_password_env}


def _tables(settings: Settings) -> dict[str, Fields]:
    return {
        "defaults": _defaults_fields(settings),
        "limits": _limits_fields(settings),
        "storage": _storage_fields(settings),
    }


def _collections(settings: Settings) -> dict[str, dict[str, Fields]]:
    return {
        "providers": {n: provider_fields(p) for n, p in settings.providers.items()},
        "agents": {n: agent_fields(a) for n, a in settings.agents.items()},
        "prices": {n: _price_fields(p) for n, p in settings.prices.items()},
        "mcp": {n: server_fields(s) for n, s in settings.tool_servers.items()},
    }


def config_text(settings: Settings, before: Settings, text: str | None) -> str:
    """``text`` (config.toml as it is; None: no file) with what changed from ``before``
    to ``settings`` written into it; a file that does not parse is replaced whole."""
    if text is not None:
        try:
            tomllib.loads(text)  # what load_settings reads: a file it rejects is not kept
            document = tomlkit.parse(text)
            _edit(document, before, settings)
        except Exception:  # any TOML tomlkit cannot edit is written whole
            pass
        else:
            edited = document.as_string()
            if edited != text and not text.endswith("\n\n"):
                edited = edited.rstrip("\n") + "\n"  # a table added last: no blank tail
            return edited
    document = tomlkit.document()
    for line in HEADER:
        document.add(tomlkit.comment(line))
    document.add(tomlkit.nl())
    _edit(document, None, settings)
    return document.as_string().rstrip("\n") + "\n"


def _edit(document: Container, before: Settings | None, settings: Settings) -> None:
    """Write into ``document`` what differs between ``before`` (None: nothing is
    written yet) and ``settings``, table by table, key by key."""
    old_tables = _tables(before) if before is not None else None
    old_collections = _collections(before) if before is not None else None
    new_tables = _tables(settings)
    new_collections = _collections(settings)
    # The order of a new file: [defaults], providers, agents, prices, mcp, [limits], [storage].
    _edit_table(document, "defaults", old_tables and old_tables["defaults"], new_tables)
    for name in ("providers", "agents", "prices", "mcp"):
        old = old_collections[name] if old_collections is not None else None
        _edit_collection(document, name, old, new_collections[name])
    for name in ("limits", "storage"):
        _edit_table(document, name, old_tables and old_tables[name], new_tables)


def _edit_table(
    document: Container, name: str, old: Fields | None, tables: dict[str, Fields]
) -> None:
    new = tables[name]
    if old is None:
        if any(value is not None for value in new.values()):
            document[name] = _table(new)
        return
    if old == new:
        return
    if name not in document:
        document[name] = _table({k: v for k, v in new.items() if old.get(k) != v})
        return
    table = document[name]
    _edit_keys(table, old, new)
    if not table and not table.as_string().strip():  # emptied, with no comment to keep
        del document[name]


def _edit_collection(
    document: Container,
    name: str,
    old: dict[str, Fields] | None,
    new: dict[str, dict[str, Any]],
) -> None:
    """``[providers.x]``-style tables: removed ones deleted, added ones written whole,
    changed ones edited key by key."""
    if old == new:
        return
    if name not in document:
        if not new:
            return
        document[name] = tomlkit.table(is_super_table=True)
        # No [providers] in the file means Ollama by default: the new list is written
        # whole (an added provider would otherwise replace the implicit default).
        old = None
    section = document[name]
    if old is None:
        for entry, fields in new.items():
            section[entry] = _table(fields)
        return
    for entry in old:
        if entry not in new and entry in section:
            del section[entry]
    for entry, fields in new.items():
        if entry not in old or not isinstance(section.get(entry), Table):
            section[entry] = _table(fields)
        elif old[entry] != fields:
            _edit_keys(section[entry], old[entry], fields)
    if not section:
        del document[name]


def _edit_keys(table: Any, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    for key, value in new.items():
        if old.get(key) == value:
            continue
        if value is None:
            if key in table:
                del table[key]
        else:
            table[key] = _item(value)


def _table(fields: Fields) -> Table:
    table = tomlkit.table()
    for key, value in fields.items():
        if value is not None:
            table.add(key, _item(value))
    table.add(tomlkit.nl())
    return table


def _item(value: Any) -> Any:
    """A string with line breaks as a multi-line string (a system prompt reads as
    written); anything else as tomlkit writes it."""
    if isinstance(value, str) and "\n" in value:
        return tomlkit.string(value, multiline=True)
    if isinstance(value, dict):  # a server's env: one line, as people write it
        table = tomlkit.inline_table()
        table.update(value)
        return table
    return value


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` in one step, keeping the old file as ``<name>.bak``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        if path.is_file():  # never a FIFO or a device: copying those would hang or fill the disk
            shutil.copy2(path, path.with_name(path.name + ".bak"))
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
