"""Each part of ikgui is used through its public surface (issue 22 item 6): the
adapters' packages through their ``__all__`` only, the domain through its parts and
never a private name."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ikgui"
#: Adapters whose package is their whole public surface.
ADAPTERS = ("ikgui.storage", "ikgui.providers", "ikgui.tools", "ikgui.files")


def _imports(root: Path = ROOT) -> list[tuple[str, str, list[str]]]:
    """Every import in ikgui/: (importing file, module imported, names taken)."""
    found: list[tuple[str, str, list[str]]] = []
    for path in sorted((root / "ikgui").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((where, node.module, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                found.extend((where, alias.name, []) for alias in node.names)
    return found


def _inside(where: str, package: str) -> bool:
    return where.startswith(package.replace(".", "/") + "/")


@pytest.mark.parametrize("package", [*ADAPTERS, "ikgui.domain"])
def test_every_name_in_all_exists(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert hasattr(module, name) or importlib.util.find_spec(f"{package}.{name}"), name


def _adapter_reaches(package: str, root: Path = ROOT) -> list[str]:
    public = set(importlib.import_module(package).__all__)
    wrong = []
    for where, module, names in _imports(root):
        if _inside(where, package) or not (module == package or module.startswith(package + ".")):
            continue
        if module != package:
            wrong.append(f"{where}: {module}")
        wrong.extend(f"{where}: {package}.{n}" for n in names if n not in public)
    return wrong


def _domain_reaches(root: Path = ROOT) -> list[str]:
    import ikgui.domain

    parts = set(ikgui.domain.__all__)
    wrong = []
    for where, module, names in _imports(root):
        if _inside(where, "ikgui.domain") or not module.startswith("ikgui.domain"):
            continue
        path = module.split(".")
        if len(path) < 3 or path[2] not in parts:
            wrong.extend(f"{where}: {module}.{n}" for n in names if n not in parts)
        wrong.extend(f"{where}: {module}.{n}" for n in names if n.startswith("_"))
    return wrong


@pytest.mark.parametrize("package", ADAPTERS)
def test_adapters_are_used_through_their_package_only(package: str) -> None:
    assert _adapter_reaches(package) == []


def test_the_domain_is_used_through_its_parts_and_no_private_name() -> None:
    assert _domain_reaches() == []


def test_the_checks_see_a_reach_past_the_surface(tmp_path: Path) -> None:
    (tmp_path / "ikgui" / "ui").mkdir(parents=True)
    (tmp_path / "ikgui" / "ui" / "reach.py").write_text(
        "from ikgui.storage.copy import copy_history\n"
        "from ikgui.storage import _PG_SCHEMES\n"
        "from ikgui.domain.state.replay import _private\n"
        "from ikgui.domain import nowhere\n",
        encoding="utf-8",
    )
    assert _adapter_reaches("ikgui.storage", tmp_path) == [
        "ikgui/ui/reach.py: ikgui.storage.copy",
        "ikgui/ui/reach.py: ikgui.storage._PG_SCHEMES",
    ]
    assert _domain_reaches(tmp_path) == [
        "ikgui/ui/reach.py: ikgui.domain.state.replay._private",
        "ikgui/ui/reach.py: ikgui.domain.nowhere",
    ]
