"""Slash commands (SPEC §5): the registry (:mod:`.registry`), the built-in handlers
(:mod:`.handlers`, :mod:`.browse`) and the same commands run with values only
(:mod:`.direct`).
"""
