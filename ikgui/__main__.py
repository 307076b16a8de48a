"""Entry point: ``ikgui`` opens the window; ``ikgui run|conv|c|tools …`` is the command line.

The command line never imports Qt: the window's modules load only when it opens.
"""

from __future__ import annotations

import gc
import sys

CLI_WORDS = {"run", "conv", "c", "keys", "db", "tools", "-h", "--help", "--version", "--paths"}
#: Commands that read or change a few rows and exit (``ikgui conv list``).
SHORT_WORDS = {"conv", "c"}


def main() -> int:
    argv = sys.argv[1:]
    if argv and argv[0] in CLI_WORDS:
        # What a short command loads and reads lives until it exits: the collector's
        # passes would walk it again and again for nothing, and the interpreter's exit
        # once more (~20 ms each for a 10,000-row listing, ~40 with PostgreSQL's
        # driver). A stream (``run``) or a copy (``db copy``) runs long: it collects.
        short = argv[0] in SHORT_WORDS
        if short:
            gc.disable()
        from ikgui.cli.main import main as cli_main

        try:
            return cli_main(argv)
        finally:
            if short:
                gc.freeze()  # the process ends: no last collection of everything at exit
    # Start-up allocates a lot and frees little: the collector's passes meanwhile find
    # nothing to free. The window turns it back on once it is painted (``ikgui.app.root``).
    gc.disable()
    _qt_free_modules_first()
    # The providers' modules (httpx, httpcore) are not needed for the first paint: the
    # window loads them in a thread once it is painted (``ikgui.app.root.after_first_paint``).
    if argv and argv[0] == "--self-test":
        from ikgui.app.root import self_test

        return self_test()
    from ikgui.app.root import main as app_main

    return app_main(argv)


def _qt_free_modules_first() -> None:
    """Import the window's Qt-free modules before PySide6, whose import hook reads the
    source of every module imported after it (~0.2 ms each)."""
    import asyncio  # noqa: F401
    import concurrent.futures  # noqa: F401
    import hashlib  # noqa: F401
    import html.entities  # noqa: F401
    import selectors  # noqa: F401
    import tempfile  # noqa: F401


if __name__ == "__main__":
    sys.exit(main())
