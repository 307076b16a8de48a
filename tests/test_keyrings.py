"""The test keyrings are chosen, never discovered: once a test module imports the hanging
keyring, keyring's discovery (a process's first ``keyring.get_keyring()``) would chain a
copy of it that nobody releases, and every later window's key lookup would wait out the
key store's limit (the model lists' checks time out first)."""

from __future__ import annotations

import keyring.backend

from tests.support.hangkeyring import HangingKeyring
from tests.support.memkeyring import MemoryKeyring


def test_discovery_never_picks_a_test_keyring() -> None:
    viable = set(keyring.backend.KeyringBackend.get_viable_backends())
    assert HangingKeyring not in viable
    assert MemoryKeyring not in viable


def test_a_test_keyring_can_still_be_named() -> None:
    """What a child process does with ``PYTHON_KEYRING_BACKEND``."""
    from keyring.core import load_keyring

    assert isinstance(load_keyring("tests.support.hangkeyring.HangingKeyring"), HangingKeyring)
    assert isinstance(load_keyring("tests.support.memkeyring.MemoryKeyring"), MemoryKeyring)
