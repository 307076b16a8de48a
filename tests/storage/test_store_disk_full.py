"""A really full disk: a tiny tmpfs mounted in a user namespace (no root needed).

Writes fail naming the full disk, nothing committed is lost, browsing keeps working
read-only (``conv list/show/search/export``), no empty ``-wal``/``-shm`` files are left
behind, and everything is writable again once space is freed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import ikgui

INNER = textwrap.dedent(
    """
    import contextlib, io, json, os, sys
    from pathlib import Path
    from ikgui.cli.main import main
    from ikgui.domain.errors import StorageError
    from ikgui.storage import open_store

    disk = Path(sys.argv[1])
    home = disk / "home"
    found = {}

    def cli(*args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args), home=home)
        return {"code": code, "out": out.getvalue(), "err": err.getvalue()}

    def files():
        return sorted(os.listdir(home))

    made = cli("run", "/prompt", "kept before the disk filled")
    conv_id = made["err"].strip().splitlines()[-1]
    cli("conv", "title", conv_id, "Quarterly", "numbers")
    found["id"] = conv_id
    found["home"] = str(home)

    # An open store whose disk fills up: the write fails, naming the disk.
    store = open_store(home / "ikgui.db")
    filler = open(disk / "filler", "wb", buffering=0)
    with contextlib.suppress(OSError):
        while True:
            filler.write(b"x" * 4096)
    try:
        for i in range(200):
            store.append_event(conv_id, "user", "y" * 20000)
        found["write"] = "no error"
    except StorageError as exc:
        found["write"] = str(exc)
    found["read_while_full"] = store.get_conversation(conv_id).title
    store.close()
    found["files_after_close"] = files()
    # Closing removed the -wal file and gave its space back: fill that too.
    with contextlib.suppress(OSError):
        while True:
            filler.write(b"x" * 4096)

    # New processes: browsing works read-only, writing says why not.
    for name, args in {
        "list": ("conv", "list"),
        "show": ("conv", "show", conv_id),
        "search": ("conv", "search", "quarterly"),
        "export": ("conv", "export", conv_id),
        "title": ("conv", "title", conv_id, "New"),
    }.items():
        found[name] = cli(*args)
        found[name + "_files"] = files()

    # Space freed: writable again.
    filler.close()
    os.remove(disk / "filler")
    found["freed"] = cli("conv", "title", conv_id, "After")
    found["freed_show"] = cli("conv", "show", conv_id, "--json")
    print(json.dumps(found))
    """
)


def run_on_tiny_disk(tmp_path: Path) -> dict[str, Any]:
    unshare = shutil.which("unshare")
    assert unshare, "util-linux unshare is needed to mount a tiny filesystem"
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "inner.py"
    script.write_text(INNER, encoding="utf-8")
    shell = 'mount -t tmpfs -o size=640k tmpfs "$1" && exec "$2" "$3" "$1"'
    done = subprocess.run(
        [
            *(unshare, "--user", "--map-root-user", "--mount", "sh", "-c", shell, "sh"),
            *(str(disk), sys.executable, str(script)),
        ],
        cwd=str(Path(ikgui.__file__).resolve().parent.parent),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_on_tiny_disk(tmp_path_factory.mktemp("full"))


def test_a_write_on_a_full_disk_names_the_disk(full: dict[str, Any]) -> None:
    assert full["write"].startswith("Could not write to the database ")
    assert full["write"].endswith(": the disk is full: no room left in " + full["home"] + ".")
    assert full["read_while_full"] == "Quarterly numbers"


def test_browsing_works_read_only_while_the_disk_is_full(full: dict[str, Any]) -> None:
    warning = (
        f"Warning: the disk is full: no room left in {full['home']}; "
        "the database is read-only until space is freed.\n"
    )
    for name in ("list", "show", "search", "export"):
        result = full[name]
        assert result["code"] == 0, result["err"]
        assert result["err"] == warning
        assert "Traceback" not in result["err"]
    assert full["id"] in full["list"]["out"]
    assert "Quarterly numbers" in full["show"]["out"]
    assert full["search"]["out"].startswith(full["id"])
    assert json.loads(full["export"]["out"])["conversations"][0]["title"] == "Quarterly numbers"


def test_a_write_while_full_is_one_error_naming_the_disk(full: dict[str, Any]) -> None:
    title = full["title"]
    assert title["code"] == 1
    last = title["err"].splitlines()[-1]
    assert last.startswith("Error: Could not write to the database ")
    assert last.endswith(
        f": the disk is full: no room left in {full['home']}; "
        "the database is read-only until space is freed."
    )


def test_no_side_files_are_left_behind(full: dict[str, Any]) -> None:
    for name in ("files_after_close", "list_files", "show_files", "title_files"):
        assert full[name] == ["ikgui.db"], name


def test_freeing_space_makes_it_writable_again(full: dict[str, Any]) -> None:
    assert full["freed"]["code"] == 0 and full["freed"]["err"] == ""
    assert json.loads(full["freed_show"]["out"])["title"] == "After"
