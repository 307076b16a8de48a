"""Making untrusted text safe to show: bidirectional controls made visible, terminal
control characters escaped, ids checked against the alphabet of SPEC §2.

Text from models, servers, imports and users can carry characters that change how other
text looks (U+202E reverses what follows, ESC sequences clear a terminal or set its
title). These functions never drop information: what they replace stays readable as a
``⟨U+XXXX⟩`` or ``\\xNN`` marker.
"""

from __future__ import annotations

import re

# Explicit directional formatting characters (embeddings, overrides, isolates) and the
# implicit marks that can disguise a file name or a command.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_BIDI = re.compile("[" + "".join(sorted(BIDI_CONTROLS)) + "]")

# C0 controls but tab and newline, DEL, and the C1 controls (U+0080-U+009F, which some
# terminals read as CSI/OSC introducers).
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINE_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
#: Whatever ``terminal_safe`` changes, found in one pass (most text has none).
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + "".join(sorted(BIDI_CONTROLS)) + "]")

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def reveal_bidi(text: str) -> str:
    """``text`` with every bidirectional control shown as ``⟨U+202E⟩``."""
    if not _BIDI.search(text):
        return text
    return _BIDI.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}"


def terminal_safe(text: str) -> str:
    """``text`` for a terminal: control characters (ESC, BEL, CR, C1…) escaped as
    ``\\x1b``, bidi controls revealed; tabs and newlines kept."""
    if not _TERMINAL_UNSAFE.search(text):
        return text
    return reveal_bidi(_TERMINAL_CONTROLS.sub(_escape, text))


def one_line(text: str) -> str:
    """``text`` for a single-line place (a title, a label, a table cell): every control
    character, newlines included, escaped; bidi controls revealed."""
    if text.isprintable():  # no control (Cc) or format (Cf) character: nothing to do
        return text  # (the fast path of a 10,000-row ``conv list``)
    return reveal_bidi(_LINE_CONTROLS.sub(_escape, text))


def valid_id(value: object) -> bool:
    """Whether ``value`` is a conversation id as SPEC §2 allows from outside."""
    return isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None
