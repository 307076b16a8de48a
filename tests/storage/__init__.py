"""Tests of the SQLite storage adapter (real files, no mocks)."""
