"""The layering rules of ARCHITECTURE.md §1, checked for real."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_core_packages_and_cli_load_no_qt() -> None:
    code = (
        "import sys, ikgui.domain.session, ikgui.domain.command_handlers, ikgui.storage, "
        "ikgui.cli, ikgui.config; "
        "bad = sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('PySide6', 'qasync', 'httpx')); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_domain_loads_no_adapter_libraries() -> None:
    code = (
        "import sys, ikgui.domain.session, ikgui.domain.command_handlers, ikgui.domain.exchange; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'qasync', 'peewee', 'playhouse', 'httpx', 'keyring')); print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_linter_contracts_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower() or "0 broken" in result.stdout.lower()
