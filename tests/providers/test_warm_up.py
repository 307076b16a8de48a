"""The first reply of a process loads nothing on the event loop: what httpx loads on first
use is loaded by the warm-up the window runs in a thread after its first paint."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
import keyring
from ikgui.app.root import warm_up
from ikgui.local.keys import KeyStore
from ikgui.providers.http import tls_context
from tests.support.memkeyring import MemoryKeyring
keyring.set_keyring(MemoryKeyring())

LAZY = ("httpcore", "h11", "anyio._backends._asyncio")
before = [name for name in LAZY if name in sys.modules]
warm_up(KeyStore())
after = [name for name in LAZY if name in sys.modules]
print(before, after, tls_context.cache_info().currsize)
"""


def test_the_warm_up_loads_what_the_first_request_would() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == ("[] ['httpcore', 'h11', 'anyio._backends._asyncio'] 1")
