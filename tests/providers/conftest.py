"""Fixtures of the provider tests: the wire-replay server and the recordings folder."""

from __future__ import annotations

from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.wire_server import WIRE_DIR

__all__ = ["WIRE_DIR", "closed_url", "wire_server", "wire_server_session"]
