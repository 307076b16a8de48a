"""The bundle's entry point: the same ``main`` as the ``ikgui`` console script."""

import sys

from ikgui.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
