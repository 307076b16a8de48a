"""Drive the real ``ikgui`` command line against a real database in a temp home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ikgui.cli.main import main


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


class Cli:
    """``cli("run", "/mark x")`` runs ``ikgui run /mark x`` in-process;
    ``cli.process(...)`` runs it as a new process (a restart)."""

    def __init__(self, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.home = home
        self.capsys = capsys

    def __call__(self, *args: str) -> Result:
        self.capsys.readouterr()
        try:
            code = main(list(args), home=self.home)
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def ok(self, *args: str) -> Result:
        result = self(*args)
        assert result.code == 0, f"ikgui {' '.join(args)} -> {result.code}: {result.err}"
        return result

    def new_id(self, *run_args: str) -> str:
        """Run ``ikgui run ARGS`` and return the conversation id it reports on stderr."""
        return self.ok("run", *run_args).err.strip().splitlines()[-1]

    def process(self, *args: str, stdin: str | None = None) -> Result:
        env = dict(os.environ, IKGUI_HOME=str(self.home))
        done = subprocess.run(
            [sys.executable, "-m", "ikgui", *args],
            env=env,
            capture_output=True,
            text=True,
            input=stdin,
            timeout=60,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def context(self, ref: str) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.ok("conv", "context", ref, "--json").json["messages"]
        return messages

    def notices(self, ref: str) -> list[str]:
        """The context as its message contents (``role: content``)."""
        return [f"{m['role']}: {m['content']}" for m in self.context(ref)]


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "home", capsys)


def edit(prompt: str) -> str:
    return f'system: [user edited prompt to: "{prompt}"]'


def current(prompt: str) -> str:
    return f'system: [current prompt: "{prompt}"]'
