"""Conversation ids, refs and automatic titles (SPEC §2)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable

from ikgui.domain.errors import AmbiguousRefError, NotFoundError, UserError
from ikgui.domain.folders import SEPARATOR
from ikgui.domain.ports import Store
from ikgui.domain.text.plainline import plain_line
from ikgui.domain.text.safe import one_line

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
REF_LENGTH = 4
MAX_TRIES = 10
TITLE_LENGTH = 50
#: What a ref may be: a suffix of an id of SPEC §2 (``[a-z0-9][a-z0-9_-]{0,63}``).
_REF = re.compile(r"[a-z0-9_-]{1,64}")
#: The longest id prefix that leaves room for ``-`` and the ref within 64 characters.
PREFIX_LENGTH = 64 - REF_LENGTH - 1
SHOWN_LENGTH = 60


def shown(text: str, limit: int = SHOWN_LENGTH) -> str:
    """Untrusted ``text`` (an id from a file, a ref) for one line of output: controls
    escaped, bidi controls revealed, cut to ``limit`` characters."""
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    return one_line(cut)


def id_prefix(agent: str | None) -> str:
    prefix = re.sub(r"[^a-z0-9]", "", (agent or "").lower())
    return prefix[:PREFIX_LENGTH] or "chat"


def new_id(
    agent: str | None,
    exists: Callable[[str], bool],
    rng: random.Random | None = None,
) -> str:
    """A fresh ``{prefix}-{ref}`` id, regenerated on collision (10 tries)."""
    pick = rng or random.SystemRandom()
    prefix = id_prefix(agent)
    for _ in range(MAX_TRIES):
        candidate = f"{prefix}-{''.join(pick.choice(ALPHABET) for _ in range(REF_LENGTH))}"
        if not exists(candidate):
            return candidate
    raise UserError("Failed to generate unique conversation ID")


def resolve_ref(store: Store, ref: str) -> str:
    """The id ``ref`` names: the exact id, or the one id it is a suffix of.

    A ref that cannot be (part of) an id is simply not found, shown printable.
    """
    given = ref
    ref = ref.strip().lower()
    if not _REF.fullmatch(ref):
        raise NotFoundError(f"Conversation not found: {shown(given.strip())}")
    matches = store.find_by_suffix(ref)
    if ref in matches:
        return ref
    if not matches:
        raise NotFoundError(f"Conversation not found: {ref}")
    if len(matches) > 1:
        raise AmbiguousRefError("Multiple matches: " + ", ".join(sorted(matches)))
    return matches[0]


def auto_title(text: str) -> str:
    """The first user message as words (its Markdown taken off, whitespace collapsed,
    :func:`~ikgui.domain.text.plainline.plain_line`), cut to 50 characters plus ``...``."""
    return plain_line(text, TITLE_LENGTH, "...")


def normalize_tags(tags: Iterable[str]) -> list[str]:
    """Tags in their stored form, blanks dropped, without duplicates, sorted; raises on
    a bad one (the one rule for tags: the domain, the store and imports use it)."""
    return sorted({normalize_tag(t) for t in tags if t.strip()})


#: The longest tag (or part of a nested tag), in characters.
TAG_LENGTH = 32
#: The most parts a nested tag (a folder path, SPEC §15) may have.
TAG_DEPTH = 8
_TAG = re.compile(rf"^[\w][\w.+-]{{0,{TAG_LENGTH - 1}}}$")


def normalize_tag(tag: str) -> str:
    """A tag in its stored form (lowercase, no leading ``#``); raises on bad input. A
    tag may nest with ``/`` (SPEC §15): each part is a valid tag, none is empty."""
    cleaned = tag.strip().lstrip("#").lower()
    parts = cleaned.split(SEPARATOR)
    if len(parts) > TAG_DEPTH or not all(_TAG.match(part) for part in parts):
        raise UserError(
            f"Invalid tag '{shown(tag)}': use up to {TAG_LENGTH} letters, digits, '-', '_', "
            f"'.' or '+', nested with '/' (work/acme) up to {TAG_DEPTH} deep"
        )
    return cleaned
