"""Reading ``config.toml``'s text safely: a regular file, at most :data:`MAX_BYTES`.

The path is the user's, and may be anything: a link to ``/dev/zero`` (read forever), a
FIFO (an ``open`` that waits for a writer forever), a link loop, a folder, a huge file.
Each is one problem line (``file:line: reason``), never a hang, a crash or silence; the
caller then starts with the defaults (SPEC §9). :class:`Problems` collects the
problems of the file's contents the same way.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

#: A hand-written config is a few KB; anything much larger is not one.
MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class ConfigText:
    """What reading ``path`` gave: its text, or the problem that kept it unread (both None:
    there is no file, which is no problem)."""

    text: str | None = None
    problem: str | None = None


def read_config_text(path: Path) -> ConfigText:
    # O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return ConfigText(problem=_open_problem(path, exc))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return ConfigText(problem=f"{path}:1: {_not_regular(info.st_mode)}, not a file")
        if info.st_size > MAX_BYTES:
            return ConfigText(problem=_too_large(path))
        data = _read_at_most(fd, MAX_BYTES + 1)
    except OSError as exc:
        return ConfigText(problem=f"{path}:1: cannot read the file ({exc.strerror or exc})")
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:  # it grew while being read
        return ConfigText(problem=_too_large(path))
    try:
        return ConfigText(text=data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return ConfigText(problem=f"{path}:{line}: cannot read the file (not UTF-8 text)")


def _open_problem(path: Path, exc: OSError) -> str | None:
    if exc.errno == errno.ENOENT:
        if os.path.islink(path):  # a link to nothing is a mistake worth naming
            return f"{path}:1: is a link to {os.readlink(path)}, which does not exist"
        return None  # no config: the defaults, quietly
    if exc.errno == errno.ELOOP:
        return f"{path}:1: is a symbolic link that leads back to itself (a link loop)"
    if exc.errno == errno.EISDIR:
        return f"{path}:1: is a folder, not a file"
    return f"{path}:1: cannot read the file ({exc.strerror or exc})"


def _not_regular(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a folder"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device"
    return "is a special file"


def _too_large(path: Path) -> str:
    return f"{path}:1: is larger than {MAX_BYTES // 1_000_000} MB, too large for a config file"


def _read_at_most(fd: int, limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(65536, limit - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


MAX_PROBLEMS = 20


class Problems:
    """The problems found in one config file, each as ``file:line: reason``."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.found: list[str] = []
        self.more = 0

    def line_of(self, *keys: str) -> int:
        """Best-effort line number of a table (``providers.x``) or a key inside it."""
        table, key = (".".join(keys[:-1]), keys[-1]) if len(keys) > 1 else (keys[0], None)
        names = {table, table.replace('"', "")}
        start = 0
        for number, line in enumerate(self.lines, 1):
            header = re.match(r"\s*\[([^\]]+)\]", line)
            if header and header.group(1).replace('"', "").replace(" ", "") in names:
                start = number
                if key is None:
                    return number
            elif start and key and re.match(rf"\s*{re.escape(key)}\s*=", line):
                return number
            elif start and header:
                if key is None:
                    break
                start = 0
        return start or 1

    def add(self, reason: str, *keys: str) -> None:
        # A generated file may hold thousands of mistakes: the first few say what is
        # wrong (and finding each one's line reads the whole file).
        if len(self.found) < MAX_PROBLEMS:
            self.found.append(f"{self.path}:{self.line_of(*keys)}: {reason}")
        else:
            self.more += 1

    def summary(self) -> list[str]:
        if not self.more:
            return self.found
        return [*self.found, f"{self.path}: and {self.more} more problems like these"]
