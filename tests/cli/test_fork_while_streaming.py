"""``ikgui run -c ID /fork`` while another process streams a reply into ID is refused
as the window refuses it (issue 20, item 8): forking then would branch at a reply still
growing. Exit 1, one line, no child; once the reply is done the fork goes through."""

from __future__ import annotations

import signal

from tests.cli.conftest import Cli
from tests.cli.test_run import _start_slow, local, sse_reply
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import WireServer

__all__ = ["local", "wire_server", "wire_server_session"]


def test_fork_while_another_process_streams_is_refused(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("First", " answer"))
    conv = cli.new_id("hello")
    streaming = _start_slow(cli, local, "-c", conv, "count")
    try:
        refused = cli("run", "-c", conv, "/fork")
        assert (refused.code, refused.out) == (1, "")
        assert refused.err.strip() == "Error: Cannot fork while a reply is streaming"
        assert "1 live, 0 closed" in cli.ok("conv", "tree", conv).out
    finally:
        streaming.send_signal(signal.SIGTERM)
        streaming.communicate(timeout=20)
    forked = cli.ok("run", "-c", conv, "/fork")
    child = forked.err.strip().splitlines()[-1]
    assert child != conv and "2 live, 0 closed" in cli.ok("conv", "tree", conv).out
