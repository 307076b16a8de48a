"""Entry point: ``ikgui`` opens the window; ``ikgui run|conv|c …`` is the command line.

The command line never imports Qt: the window's modules load only when it opens.
"""

from __future__ import annotations

import sys

CLI_WORDS = {"run", "conv", "c", "keys", "-h", "--help", "--version", "--paths"}


def main() -> int:
    argv = sys.argv[1:]
    if argv and argv[0] in CLI_WORDS:
        from ikgui.cli import main as cli_main

        return cli_main(argv)
    # The providers' modules (httpx, httpcore) load faster before PySide6, whose import
    # hook reads the source of every module imported after it; loading them here also
    # keeps that work out of the first send.
    import httpcore  # noqa: F401

    import ikgui.providers  # noqa: F401

    if argv and argv[0] == "--self-test":
        from ikgui.app import self_test

        return self_test()
    from ikgui.app import main as app_main

    return app_main(argv)


if __name__ == "__main__":
    sys.exit(main())
