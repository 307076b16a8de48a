"""Issue 21 item 7: config.toml that is not what it seems (a link to /dev/zero, a FIFO, a
link loop, 100,000 nested arrays, wrong types) is one problem line with file, line and
reason, and ikgui starts with the defaults; never a hang, MemoryError or RecursionError."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ikgui.config.file import MAX_BYTES
from ikgui.config.loading import load_settings

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files")


def _defaults(path: Path) -> list[str]:
    settings = load_settings(path)
    assert settings.default_provider == "ollama"
    assert settings.providers["ollama"].base_url == "http://localhost:11434"
    return settings.problems


def test_a_link_to_dev_zero_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.symlink_to("/dev/zero")
    assert _defaults(path) == [f"{path}:1: is a device, not a file"]


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    assert _defaults(path) == [f"{path}:1: is a named pipe (FIFO), not a file"]


def test_a_link_loop_and_a_dangling_link_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.symlink_to(tmp_path / "config.toml")
    assert _defaults(path) == [
        f"{path}:1: is a symbolic link that leads back to itself (a link loop)"
    ]
    path.unlink()
    path.symlink_to(tmp_path / "gone.toml")
    assert _defaults(path) == [
        f"{path}:1: is a link to {tmp_path / 'gone.toml'}, which does not exist"
    ]


def test_a_folder_and_a_huge_file_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.mkdir()
    assert _defaults(path) == [f"{path}:1: is a folder, not a file"]
    path.rmdir()
    path.write_text("# " + "x" * MAX_BYTES + "\n", encoding="utf-8")
    assert _defaults(path) == [f"{path}:1: is larger than 1 MB, too large for a config file"]


def test_deeply_nested_arrays_are_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    assert _defaults(path) == [f"{path}:1: values are nested too deeply"]


def test_wrong_types_are_reported_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "[defaults]\nmodel = 5\nagent = [1]\n\n"
        '[agents.coder]\nsystem_prompt = true\nmodel = 1.5\nprovider = "ollama"\n',
        encoding="utf-8",
    )
    settings = load_settings(path)
    assert settings.problems == [
        f"{path}:6: agents.coder.system_prompt must be text in quotes (got True; ignored)",
        f"{path}:7: agents.coder.model must be text in quotes (got 1.5; ignored)",
        f"{path}:2: defaults.model must be text in quotes (got 5; ignored)",
        f"{path}:3: defaults.agent must be text in quotes (got [1]; ignored)",
    ]
    assert settings.default_model is None
    assert settings.agents["coder"].provider == "ollama"


def test_thousands_of_problems_are_summarised(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "".join(f'[agents.a{n}]\nprompt_mode = "yaml"\n' for n in range(5000)), encoding="utf-8"
    )
    problems = load_settings(path).problems
    assert len(problems) == 21
    assert problems[-1] == f"{path}: and 4980 more problems like these"


@pytest.mark.parametrize("kind", ["fifo", "zero", "nested"])
def test_the_command_line_starts_with_defaults(tmp_path: Path, kind: str) -> None:
    """The real ``ikgui conv list``: one warning naming the file, then the listing."""
    home = tmp_path / "home"
    home.mkdir()
    path = home / "config.toml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "ikgui", "conv", "list"],
        env=dict(os.environ, IKGUI_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"Warning: {path}:1: ")
    assert "unexpectedly" not in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.startswith("ID") or "No conversations" in done.stdout
