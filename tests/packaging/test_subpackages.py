"""Every package of ikgui is listed in pyproject's setuptools ``packages`` (a sub-package
missing there would be missing from a wheel and from the PyInstaller bundle's metadata)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_every_package_is_listed_for_installs() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "ikgui").rglob("__init__.py")
    }
    assert found - listed == set()
