"""Conversations as a whole: Trash, restore, clean, rename, tags
(:mod:`.conversations`), listings (:mod:`.listing`), export and import
(:mod:`.exchange`, :mod:`.importing`).
"""
