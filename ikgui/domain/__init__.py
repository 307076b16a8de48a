"""The Qt-free heart of ikgui: the event log and its fold, the session and its
operations, commands, the library, and text for people.

Nothing in this package imports PySide6, qasync, peewee, httpx or keyring; the
adapters (``ikgui.storage``, ``ikgui.providers``, ``ikgui.ui``) implement the ports
declared in :mod:`ikgui.domain.ports`.

The public surface is its parts, named in ``__all__``: the vocabulary every layer
shares (:mod:`.events`, :mod:`.errors`, :mod:`.ports`, :mod:`.settings`,
:mod:`.streaming`, :mod:`.tools`, :mod:`.attachments`, :mod:`.folders`) and five
packages, each a subject (:mod:`.state`, :mod:`.session`, :mod:`.commands`,
:mod:`.library`, :mod:`.text`).
Code outside the domain imports from these, never a private (``_``) name
(``tests/test_architecture.py``).
"""

__all__ = [
    "attachments",
    "commands",
    "errors",
    "events",
    "folders",
    "library",
    "ports",
    "session",
    "settings",
    "state",
    "streaming",
    "text",
    "tools",
]
