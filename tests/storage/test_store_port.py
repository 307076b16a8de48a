"""Both stores offer every method of the domain's Store port, with the same parameters:
``SqliteStore`` and the tests' ``MemoryStore`` (``tests/support/memstore.py``)."""

from __future__ import annotations

import inspect

import pytest

from ikgui.domain.ports import Store
from ikgui.storage import SqliteStore
from tests.support.memstore import MemoryStore

PORT_METHODS = sorted(
    name for name, member in vars(Store).items() if callable(member) and not name.startswith("_")
)


def test_the_port_has_methods() -> None:
    assert "append_event" in PORT_METHODS and "search" in PORT_METHODS


@pytest.mark.parametrize("implementation", [SqliteStore, MemoryStore])
@pytest.mark.parametrize("name", PORT_METHODS)
def test_method_matches_the_port(name: str, implementation: type) -> None:
    port = inspect.signature(getattr(Store, name))
    mine = inspect.signature(getattr(implementation, name))
    assert list(mine.parameters) == list(port.parameters)
    for param_name, param in port.parameters.items():
        other = mine.parameters[param_name]
        assert other.kind == param.kind, param_name
        assert other.default == param.default, param_name
