"""A composed window (issue 22 item 3), checked on the source: no module but the
window's own (``ui/window/main_window.py``) and the wiring module
(``ui/window/assembly.py``) imports ``MainWindow`` — a ``TYPE_CHECKING`` import counts.
Controllers get narrow collaborators instead. The modules that still take the window
are named below with what remains; an entry that no longer imports it fails, so the
list only shrinks."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "ikgui"
WINDOW = "ikgui.ui.window.main_window"
ALLOWED = frozenset({"ui/window/main_window.py", "ui/window/assembly.py"})

#: Modules that still take the whole window, and why they are not narrowed yet.
IMPORTERS_LEFT: dict[str, str] = {}


def imports_window(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == WINDOW:
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "ikgui.ui.window"
            and any(alias.name == "main_window" for alias in node.names)
        ):
            return True
        if isinstance(node, ast.Import) and any(a.name == WINDOW for a in node.names):
            return True
    return False


def importers() -> set[str]:
    found = set()
    for path in ROOT.rglob("*.py"):
        if imports_window(ast.parse(path.read_text(encoding="utf-8"))):
            found.add(path.relative_to(ROOT).as_posix())
    return found


def test_only_the_window_and_the_wiring_import_main_window() -> None:
    extra = importers() - ALLOWED - set(IMPORTERS_LEFT)
    assert not extra, f"these modules take the whole window: give them narrow parts: {extra}"


def test_the_list_of_modules_left_only_shrinks() -> None:
    stale = set(IMPORTERS_LEFT) - importers()
    assert not stale, f"no longer import MainWindow: drop them from IMPORTERS_LEFT: {stale}"


def test_the_composition_root_builds_the_window_through_the_wiring() -> None:
    found = importers()
    for module in (
        "app/root.py",
        "ui/closed_strip.py",
        "ui/unsaved.py",
        "ui/prompt/panel_controller.py",
    ):
        assert module not in found
    root = (ROOT / "app/root.py").read_text(encoding="utf-8")
    assert "ikgui.ui.window.assembly" in root
