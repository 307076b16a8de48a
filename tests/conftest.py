"""Test configuration shared by every layer's tests."""

from __future__ import annotations

import os

# GUI tests run without a display; set before anything imports Qt. The virtual screen is
# 1920×1080 (Qt's offscreen default, 800×600, would start every window in its compact
# layout); tests of small windows size them themselves.
_SCREEN = os.path.join(os.path.dirname(__file__), "support", "screen.json")
os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"
os.environ.pop("IKGUI_HOME", None)
