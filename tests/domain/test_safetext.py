"""The text-safety helpers every layer uses for untrusted text."""

from __future__ import annotations

import pytest

from ikgui.domain.text.safe import BIDI_CONTROLS, one_line, reveal_bidi, terminal_safe, valid_id


def test_bidi_controls_become_visible_markers() -> None:
    assert reveal_bidi("invoice\u202egpj.exe") == "invoice⟨U+202E⟩gpj.exe"
    assert reveal_bidi("\u2066x\u2069") == "⟨U+2066⟩x⟨U+2069⟩"
    assert reveal_bidi("plain — text ✓") == "plain — text ✓"


def test_terminal_safe_escapes_controls_but_keeps_layout() -> None:
    assert terminal_safe("\x1b]0;pwned\x07title") == "\\x1b]0;pwned\\x07title"
    assert terminal_safe("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert terminal_safe("one\ttwo\nthree") == "one\ttwo\nthree"
    assert terminal_safe("c1\x9bcsi\rcr") == "c1\\x9bcsi\\x0dcr"


def test_one_line_escapes_newlines_too() -> None:
    assert one_line("a\nb\tc") == "a\\x0ab\\x09c"


def _escaped(ch: str, keep: str) -> str:
    """What a character becomes, by the rule (controls but ``keep`` as ``\\xNN``, bidi
    controls as ``⟨U+XXXX⟩``, everything else as it is)."""
    code = ord(ch)
    if (code <= 0x1F or 0x7F <= code <= 0x9F) and ch not in keep:
        return f"\\x{code:02x}"
    return f"⟨U+{code:04X}⟩" if ch in BIDI_CONTROLS else ch


def test_every_character_escapes_by_the_rule_fast_paths_included() -> None:
    # one_line returns printable text untouched (str.isprintable), terminal_safe text in
    # which one search finds nothing: neither may skip a character the rule escapes.
    for code in range(0x110000):
        ch = chr(code)
        assert one_line(f"a{ch}b") == f"a{_escaped(ch, '')}b", hex(code)
        assert terminal_safe(f"a{ch}b") == f"a{_escaped(ch, chr(9) + chr(10))}b", hex(code)
    assert one_line("Ünïcode title — ✓ 漢字") == "Ünïcode title — ✓ 漢字"
    assert terminal_safe("rows\nof\ttext\n" * 3) == "rows\nof\ttext\n" * 3


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("chat-a1b2", True),
        ("a", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("../../tmp/escaped", False),
        ("Chat-A1B2", False),
        ("-abc", False),
        ("a\nb", False),
        ("a\x1bb", False),
        ("   ", False),
        ("", False),
        (None, False),
        (12, False),
    ],
)
def test_valid_id_follows_the_spec_alphabet(value: object, ok: bool) -> None:
    assert valid_id(value) is ok
