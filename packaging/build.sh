#!/usr/bin/env bash
# Build the one-folder desktop bundle dist/ikgui/ from a fresh clone, then check it.
#
#   packaging/build.sh
#
# Creates its own virtual environment (packaging/.venv-build), installs ikgui (not
# editable) and PyInstaller there, renders the icons, builds, runs the bundle's
# --self-test offscreen, installs it into a throwaway prefix with linux/install.sh and
# runs the installed desktop file's Exec line, and reports the bundle's size.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV="$ROOT/packaging/.venv-build"

# Python, pip, and the system libraries Qt needs (the same set-up as the README).
python3 tools/dev.py setup

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" 2>/dev/null || {
        rm -rf "$VENV"
        python3 -m pip install --user --quiet virtualenv
        python3 -m virtualenv --quiet "$VENV"
    }
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "$ROOT" "pyinstaller>=6.10,<7"

export QT_QPA_PLATFORM=offscreen
"$VENV/bin/python" packaging/make_icons.py packaging/icons
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" packaging/ikgui.spec

echo "== self-test of the bundle"
"$ROOT/dist/ikgui/ikgui" --self-test
"$ROOT/dist/ikgui/ikgui" --version

echo "== installed like a user would, then started from the desktop file's Exec line"
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
IKGUI_PREFIX="$PREFIX" bash packaging/linux/install.sh >/dev/null
DESKTOP="$PREFIX/share/applications/io.github.ikgui.ikgui.desktop"
EXEC=$(sed -n 's/^Exec=//p' "$DESKTOP" | sed 's/ %U$//')
"$EXEC" --self-test
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$DESKTOP"; fi

SIZE=$(du -sm "$ROOT/dist/ikgui" | cut -f1)
echo "== dist/ikgui is ${SIZE} MB"
if [ "$SIZE" -ge 250 ]; then
    echo "the bundle is over 250 MB" >&2
    exit 1
fi
