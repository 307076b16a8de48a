"""Files a user attaches (SPEC §13), read from the disk and checked: what each one is
(from its content), whether it may be sent, its hash, and the text search indexes.
Called from worker threads: reading a 20 MB file never holds the window's loop."""

from ikgui.files.reading import checked, read_again, read_file

__all__ = ["checked", "read_again", "read_file"]
