"""The names a Markdown export's folder gives attached files (SPEC §13): a name from a
message is untrusted, so it never leads out of the folder, hides itself or overwrites
another file's."""

from __future__ import annotations

from pathlib import Path

from ikgui.domain.attachments import Attachment
from ikgui.domain.library.files import folder_for, names_in_folder, safe_name


def a(name: str, digit: str) -> Attachment:
    return Attachment(digit * 64, name, "text/plain", 1)


def test_a_name_never_leads_out_of_the_folder_or_hides() -> None:
    assert safe_name("../../etc/passwd") == "passwd"
    assert safe_name("..\\..\\boot.ini") == "boot.ini"
    assert safe_name(".bashrc") == "bashrc"
    assert safe_name("..") == "file"
    assert safe_name("a\x00b|c?.txt") == "a_b_c_.txt"
    assert safe_name("x" * 500).startswith("x") and len(safe_name("x" * 500)) == 120


def test_two_files_of_one_name_get_two_names_and_one_file_one() -> None:
    names = names_in_folder([a("notes.md", "1"), a("Notes.md", "2"), a("notes.md", "1")])
    assert names == {"1" * 64: "notes.md", "2" * 64: "Notes-22222222.md"}


def test_the_folder_is_beside_the_export() -> None:
    assert folder_for(Path("/tmp/out/planning.md")) == Path("/tmp/out/planning_files")
