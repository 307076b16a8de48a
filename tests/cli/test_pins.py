"""``ikgui conv pin`` / ``unpin`` on a real database (issue 12, item 2): several refs in
one transaction, ``conv list`` shows the pin (text and JSON), an unknown ref pins nothing."""

from __future__ import annotations

from tests.cli.conftest import Cli


def _pinned(cli: Cli) -> dict[str, bool]:
    return {c["id"]: c["pinned"] for c in cli.ok("conv", "list", "--json").json}


def test_pin_and_unpin_show_in_the_listing(cli: Cli) -> None:
    ids = [cli.new_id("/prompt", f"p{i}") for i in range(3)]
    out = cli.ok("conv", "pin", ids[0], ids[2][-4:]).out.strip()
    assert out == f"Pinned {ids[0]}, {ids[2]}"
    assert _pinned(cli) == {ids[0]: True, ids[1]: False, ids[2]: True}
    lines = {ln.split()[0]: ln for ln in cli.ok("conv", "list").out.splitlines()[1:]}
    assert lines[ids[0]].endswith("[pinned]") and not lines[ids[1]].endswith("[pinned]")
    # A restart (a new process) reads the pins from the database.
    listed = cli.process("conv", "list")
    assert listed.code == 0 and listed.out.count("[pinned]") == 2
    assert cli.ok("conv", "unpin", ids[0]).out.strip() == f"Unpinned {ids[0]}"
    assert _pinned(cli) == {ids[0]: False, ids[1]: False, ids[2]: True}


def test_an_unknown_ref_pins_nothing(cli: Cli) -> None:
    conv = cli.new_id("/prompt", "hello")
    bad = cli("conv", "pin", conv, "chat-zzzz")
    assert bad.code == 1 and bad.err.startswith("Error: ") and "chat-zzzz" in bad.err
    assert _pinned(cli) == {conv: False}
    assert cli("conv", "pin").code == 2  # a ref is required
