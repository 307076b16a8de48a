"""Test helpers shared by several test packages (the wire-replay HTTP server)."""
