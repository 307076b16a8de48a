"""``ikgui run`` against decompression bombs (issue 21 item 3): a reply or a model list
sent as ``Content-Encoding: gzip, gzip`` around 4 GiB of zeros ends with one ``Error:``
line (no MemoryError, no traceback), the text that came first kept; the command runs in a
process whose address space is capped, as a bomb would need far more."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

from tests.cli.conftest import Cli
from tests.cli.test_run import local
from tests.providers.test_endless import delta
from tests.support.bombs import GIB, encoding, nested_gzip
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer

__all__ = ["local", "wire_server", "wire_server_session"]

SSE = (("content-type", "text/event-stream"),)


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 * GIB, 2 * GIB))


def _run(cli: Cli, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ikgui", "run", *args],
        env=dict(os.environ, IKGUI_HOME=str(cli.home)),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_capped,
    )


def test_a_bomb_reply_ends_with_one_error_line(cli: Cli, local: WireServer) -> None:
    body = nested_gzip(delta("Kept") + delta(" text"))
    local.route("/v1/chat/completions", Reply(headers=SSE + encoding(2), source=body))
    done = _run(cli, "hello")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "Kept text\n"
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "(uncompressed)" in errors[0], done.stderr
    assert "Traceback" not in done.stderr and "unexpectedly" not in done.stderr


def test_a_model_list_bomb_on_ollama_without_a_model(cli: Cli, local: WireServer) -> None:
    body = nested_gzip(b'{"models": [')
    headers = (("content-type", "application/json"), *encoding(2))
    local.route("/api/tags", Reply(headers=headers, source=body), method="GET")
    config = cli.home / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8").replace('model = "mock-gpt"\n', "", 1),
        encoding="utf-8",
    )
    done = _run(cli, "-p", "llama", "hello")
    assert done.returncode == 3, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "model list" in errors[0], done.stderr
    assert "Traceback" not in done.stderr and "unexpectedly" not in done.stderr
    # /model reads the list too: it says it could not, in one line, and goes on.
    done = _run(cli, "-p", "llama", "/model")
    assert "Traceback" not in done.stderr and "unexpectedly" not in done.stderr
