"""The layering rules of ARCHITECTURE.md §1, checked for real."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_core_packages_and_cli_load_no_qt() -> None:
    code = (
        "import sys, ikgui.domain.session.session, ikgui.domain.commands.handlers, ikgui.storage, "
        "ikgui.cli.main, ikgui.cli.run, ikgui.cli.view, ikgui.cli.output, ikgui.config.loading, "
        "ikgui.app.wiring, ikgui.local.keys, ikgui.local.paths, ikgui.local.recovery, "
        "ikgui.cli.tools, ikgui.tools; "
        "bad = sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('PySide6', 'shiboken6', 'qasync', 'httpx', 'keyring', 'mcp')); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_domain_loads_no_adapter_libraries() -> None:
    code = (
        "import sys, ikgui.domain.session.session, ikgui.domain.commands.handlers, "
        "ikgui.domain.library.exchange; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'qasync', 'peewee', 'playhouse', 'httpx', 'keyring', 'mcp')); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_linter_contracts_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower() or "0 broken" in result.stdout.lower()


# -- contracts that catch what they promise ------------------------------------------
#: A line added to a module of a copy of the package, and the contract that must break.
VIOLATIONS = [
    ("cli/view.py", "import PySide6", "never load Qt"),
    ("cli/run.py", "import ikgui.ui", "never load Qt"),
    ("cli/view.py", "import peewee", "The command line reads no database rows"),
    ("ui/bridge.py", "import qasync", "Only ikgui.ui.loop imports qasync"),
    ("ui/bridge.py", "import ikgui.cli.output", "The window and the command line"),
    ("ui/bridge.py", "import ikgui.app.root", "Nothing imports the composition root"),
    ("config/loading.py", "import ikgui.app.wiring", "Layers"),
    ("local/keys.py", "import ikgui.config.target", "Layers"),
    ("local/paths.py", "import ikgui.storage", "Layers"),
    ("app/wiring.py", "import ikgui.ui", "Layers"),
    ("storage/__init__.py", "import ikgui.app.wiring", "Layers"),
    ("domain/state/ids.py", "import tomlkit", "The domain is pure Python"),
    ("domain/text/safe.py", "import ikgui.domain.state.replay", "The domain: commands"),
    ("tools/host.py", "import ikgui.storage", "ikgui.tools is an adapter"),
    ("tools/host.py", "import PySide6", "ikgui.tools is an adapter"),
    ("cli/tools.py", "import mcp", "Only ikgui.tools imports the mcp SDK"),
    ("domain/tools.py", "import ikgui.tools", "Layers"),
    ("providers/__init__.py", "import ikgui.tools", "Adapters are independent"),
    ("domain/state/replay.py", "import ikgui.domain.session.session", "The domain: commands"),
]


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package and its pyproject.toml, for lint-imports to check."""
    root = tmp_path_factory.mktemp("copy")
    shutil.copytree(ROOT / "ikgui", root / "ikgui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    lint = Path(sys.executable).parent / "lint-imports"
    return subprocess.run(
        [str(lint), "--no-cache"], cwd=root, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize(("module", "line", "contract"), VIOLATIONS)
def test_import_linter_contracts_catch_a_violation(
    package_copy: Path, module: str, line: str, contract: str
) -> None:
    path = package_copy / "ikgui" / module
    before = path.read_text(encoding="utf-8") if path.exists() else None
    try:
        path.write_text((before or "") + "\n" + line + "\n", encoding="utf-8")
        result = _lint(package_copy)
    finally:
        if before is None:
            path.unlink()
        else:
            path.write_text(before, encoding="utf-8")
    assert result.returncode != 0, result.stdout
    broken = [ln for ln in result.stdout.splitlines() if "BROKEN" in ln]
    assert broken, result.stdout
    # A long contract name wraps onto two lines: look at the contracts' summary as one text.
    summary = " ".join(result.stdout.split("Broken contracts")[0].split())
    assert any(contract in part for part in summary.split("BROKEN")[:-1]), result.stdout


#: The top level of the package: what each part is, so that a new one must be placed (in
#: the layers contract of pyproject.toml, and here).
TOP_LEVEL = {
    "__init__.py",
    "__main__.py",
    "py.typed",
    "app",
    "cli",
    "config",
    "local",
    "domain",
    "storage",
    "providers",
    "tools",
    "files",
    "ui",
}


def test_the_top_level_shows_the_plan() -> None:
    found = {p.name for p in (ROOT / "ikgui").iterdir() if p.name != "__pycache__"}
    assert found == TOP_LEVEL
    layers = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for name in TOP_LEVEL - {"__init__.py", "py.typed"}:
        assert f'"ikgui.{name.removesuffix(".py")}' in layers, name


def test_the_unchanged_copy_keeps_every_contract(package_copy: Path) -> None:
    result = _lint(package_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


# -- sizes ----------------------------------------------------------------------------
# A module holds one concept however long that takes (split where a concept ends, never
# to meet a line count), so modules have no size limit; a function over 60 lines is
# doing more than one thing.
MAX_FUNCTION_LINES = 60
#: Functions allowed over the limit for now (empty: none is). An entry names the end of a
#: path; an entry that is no longer over fails the test below.
FUNCTIONS_OVER: set[str] = set()


def _allowed(name: str, allow_list: set[str]) -> bool:
    return any(name == f"ikgui/{entry}" or name.endswith(f"/{entry}") for entry in allow_list)


def _sources() -> list[Path]:
    return sorted((ROOT / "ikgui").rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def function_lengths() -> dict[str, int]:
    """The lines of every function in ikgui/ (decorators included), by ``path::qualname``."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str, path: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    lengths[f"{path}::{name}"] = (child.end_lineno or child.lineno) - first + 1
                visit(child, name + ".", path)
            else:
                visit(child, prefix, path)

    for path in _sources():
        visit(ast.parse(path.read_text(encoding="utf-8")), "", _name(path))
    return lengths


def test_no_function_over_60_lines() -> None:
    over = {name: n for name, n in function_lengths().items() if n > MAX_FUNCTION_LINES}
    unlisted = {name: n for name, n in over.items() if not _allowed(name, FUNCTIONS_OVER)}
    assert unlisted == {}, f"functions over {MAX_FUNCTION_LINES} lines: {unlisted}"


def test_the_allow_lists_only_name_what_is_still_over() -> None:
    functions = [f for f, n in function_lengths().items() if n > MAX_FUNCTION_LINES]
    stale = {e for e in FUNCTIONS_OVER if not any(_allowed(f, {e}) for f in functions)}
    assert stale == set(), f"no longer over the limit, remove from the allow-list: {stale}"
