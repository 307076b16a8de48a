#!/usr/bin/env bash
# Install the built bundle (dist/ikgui) for the current user, like any desktop program:
#   ~/.local/opt/ikgui            the bundle
#   ~/.local/bin/ikgui            a link to it (for the terminal)
#   ~/.local/share/applications   the desktop file, Exec pointing at the bundle
#   ~/.local/share/metainfo       the AppStream metainfo
#   ~/.local/share/icons/hicolor  the icons
# IKGUI_PREFIX=/some/dir installs under that prefix instead of ~/.local.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PREFIX=${IKGUI_PREFIX:-$HOME/.local}
BUNDLE="$ROOT/dist/ikgui"
[ -x "$BUNDLE/ikgui" ] || { echo "build it first: packaging/build.sh" >&2; exit 1; }

mkdir -p "$PREFIX/opt" "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/metainfo"
rm -rf "$PREFIX/opt/ikgui"
cp -a "$BUNDLE" "$PREFIX/opt/ikgui"
ln -sf "$PREFIX/opt/ikgui/ikgui" "$PREFIX/bin/ikgui"
sed -e "s|^Exec=ikgui|Exec=$PREFIX/opt/ikgui/ikgui|" \
    -e "s|^TryExec=ikgui|TryExec=$PREFIX/opt/ikgui/ikgui|" \
    "$HERE/io.github.ikgui.ikgui.desktop" > "$PREFIX/share/applications/io.github.ikgui.ikgui.desktop"
cp "$HERE/io.github.ikgui.ikgui.metainfo.xml" "$PREFIX/share/metainfo/"
if [ -d "$ROOT/packaging/icons/hicolor" ]; then
    mkdir -p "$PREFIX/share/icons"
    cp -a "$ROOT/packaging/icons/hicolor" "$PREFIX/share/icons/"
fi
command -v update-desktop-database >/dev/null && \
    update-desktop-database -q "$PREFIX/share/applications" 2>/dev/null || true
echo "installed ikgui in $PREFIX (run: $PREFIX/bin/ikgui)"
