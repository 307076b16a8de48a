"""Pytest fixtures for :class:`~tests.support.wire_server.WireServer`.

Import them into a ``conftest.py`` to use them in another test package::

    from tests.support.fixtures import closed_url, wire_server, wire_server_session  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.wire_server import WireServer


@pytest.fixture(scope="session")
def wire_server_session() -> Iterator[WireServer]:
    """One server for the whole run (started lazily, stopped at the end)."""
    with WireServer() as server:
        yield server


@pytest.fixture
def wire_server(wire_server_session: WireServer) -> Iterator[WireServer]:
    """The shared server with no routes, no recorded requests and no hung handlers."""
    wire_server_session.reset()
    yield wire_server_session
    wire_server_session.reset()


@pytest.fixture
def closed_url() -> str:
    """A URL on 127.0.0.1 where connections are refused."""
    return WireServer.closed_url()
