"""``ikgui run --attach`` on a full disk (issue 24 item 7): the message and its file wait
in memory, the file is sent all the same, and what cannot be saved goes to a recovery
file that names the file. The full disk is real: a 400 KiB tmpfs in a user+mount
namespace holds ``IKGUI_HOME`` (as in tests/cli/test_durable.py)."""

from __future__ import annotations

import base64
import os
import shlex
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Cli
from tests.cli.test_durable import spare_tmp
from tests.cli.test_run import local, sse_reply
from tests.support import sample_files
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer

__all__ = ["local", "spare_tmp", "wire_server", "wire_server_session"]


def test_a_file_sent_while_the_disk_is_full(
    cli: Cli, local: WireServer, spare_tmp: Path, tmp_path: Path
) -> None:
    local.route("/v1/chat/completions", sse_reply("hi"))
    conv = cli.new_id("hello")
    image = tmp_path / "shot.png"
    image.write_bytes(sample_files.noisy_png(600_000))  # more than the disk has left
    local.route("/v1/chat/completions", sse_reply("A grid ", "of noise."))
    staged = cli.home.parent / "staged"
    subprocess.run(["cp", "-a", str(cli.home), str(staged)], check=True)
    home = shlex.quote(str(cli.home))
    script = (
        f"mount -t tmpfs -o size=400k tmpfs {home} && cp -a {shlex.quote(str(staged))}/. {home} "
        f"&& {shlex.quote(sys.executable)} -m ikgui run -c {conv} -A {shlex.quote(str(image))} "
        "'what is it?'"
    )
    env = dict(os.environ, IKGUI_HOME=str(cli.home), TMPDIR=str(spare_tmp))
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout == "A grid of noise.\n", done.stderr
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    user = local.bodies("/v1/chat/completions")[-1]["messages"][-1]
    url = user["content"][0]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == image.read_bytes()
    error = next(line for line in done.stderr.splitlines() if line.startswith("Error: "))
    assert "the disk is full" in error and "its text is in " in error
    saved = Path(error.split("its text is in ", 1)[1]).read_text(encoding="utf-8")
    assert "what is it?" in saved and "(attached: shot.png, image/png, " in saved
