"""Packaging: the desktop file and metainfo validate, icons render at every size, and
the wheel and sdist carry the resources."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from PySide6.QtGui import QImageReader

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / "io.github.ikgui.ikgui.desktop"
METAINFO = LINUX / "io.github.ikgui.ikgui.metainfo.xml"


@pytest.mark.skipif(
    not shutil.which("desktop-file-validate"),
    reason="desktop-file-validate is not installed (Debian: desktop-file-utils)",
)
def test_desktop_file_validates() -> None:
    result = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in (result.stdout + result.stderr).lower()


@pytest.mark.skipif(
    not shutil.which("appstreamcli"), reason="appstreamcli is not installed (Debian: appstream)"
)
def test_metainfo_validates() -> None:
    result = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(METAINFO)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_desktop_file_and_metainfo_agree() -> None:
    desktop = dict(line.split("=", 1) for line in DESKTOP.read_text().splitlines() if "=" in line)
    assert desktop["Exec"].split()[0] == "ikgui" and desktop["Icon"] == "ikgui"
    meta = METAINFO.read_text()
    assert f'<launchable type="desktop-id">{DESKTOP.name}</launchable>' in meta
    assert "resources/screenshots/window-light.png" in meta
    assert (ROOT / "resources" / "screenshots" / "window-light.png").exists()


def test_icons_render_at_every_size(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "make_icons.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        reader = QImageReader(str(tmp_path / "hicolor" / f"{size}x{size}" / "apps" / "ikgui.png"))
        image = reader.read()
        assert (image.width(), image.height()) == (size, size)
        assert image.pixelColor(size // 2, size // 2).alpha() > 0  # not blank
    ico = (tmp_path / "ikgui.ico").read_bytes()
    assert ico[:4] == b"\x00\x00\x01\x00" and int.from_bytes(ico[4:6], "little") == 7
    icns = (tmp_path / "ikgui.icns").read_bytes()
    assert icns[:4] == b"icns" and int.from_bytes(icns[4:8], "big") == len(icns)


def test_bundle_spec_leaves_out_what_ikgui_does_not_use() -> None:
    spec = (ROOT / "packaging" / "ikgui.spec").read_text()
    assert '"PySide6.QtWebEngineCore"' in spec and "excludes=EXCLUDED" in spec
    assert '(str(ROOT / "resources"), "ikgui/resources")' in spec


@pytest.mark.skipif(not shutil.which("git"), reason="git is needed to copy the tree")
def test_sdist_and_wheel_carry_the_resources(tmp_path: Path) -> None:
    pytest.importorskip("build")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    wheel = next(tmp_path.glob("ikgui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "ikgui/resources/icons/ikgui.svg" in names
    assert "ikgui/resources/style/base.qss" in names
    assert "ikgui/resources/screenshots/window-light.png" in names
    assert "ikgui/py.typed" in names
