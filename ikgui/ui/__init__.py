"""The PySide6 window (the next issue); the only layer that imports Qt and qasync."""
