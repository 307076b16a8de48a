"""Test configuration shared by every layer's tests."""

from __future__ import annotations

import os

# GUI tests run without a display; set before anything imports Qt.
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ.pop("IKGUI_HOME", None)
