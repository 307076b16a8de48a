"""Where ikgui keeps its files: the platform's user directories, or ``IKGUI_HOME``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Paths:
    data_dir: Path
    config_dir: Path

    @property
    def database(self) -> Path:
        return self.data_dir / "ikgui.db"

    @property
    def config(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def exports(self) -> Path:
        return self.data_dir / "exports"


def resolve(home: Path | None = None) -> Paths:
    """``home`` (or ``$IKGUI_HOME``) holds everything; otherwise the platform's dirs."""
    if home is None and os.environ.get("IKGUI_HOME"):
        home = Path(os.environ["IKGUI_HOME"]).expanduser()
    if home is not None:
        return Paths(home, home)
    import platformdirs

    return Paths(
        Path(platformdirs.user_data_dir("ikgui", appauthor=False)),
        Path(platformdirs.user_config_dir("ikgui", appauthor=False)),
    )
