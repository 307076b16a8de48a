#!/usr/bin/env python3
"""Screenshots of attachments in the real window, offscreen, in light and dark (issue 24's
README pictures).

    .venv/bin/python tools/screenshots_attachments.py [OUT_DIR]   # default resources/screenshots

A conversation in a fresh home holds a message that carried a screenshot and a PDF (its
thumbnail and its chip under the text) and the model's answer; two more files wait as
chips above the editor (``attach-<theme>.png``); then the screenshot opens in the viewer
(``attach-viewer-<theme>.png``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: A 1920×1080 virtual screen (Qt's offscreen default is 800×600: windows would shrink).
SCREEN = ROOT / "tests" / "support" / "screen.json"
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={SCREEN}")
sys.path.insert(0, str(ROOT))

from tests.support import sample_files  # noqa: E402
from tests.support.waiting import loop_passes, wait_until  # noqa: E402
from tests.support.wire_server import WireServer  # noqa: E402
from tools.shots import quiet, save, settled  # noqa: E402

SIZE = (1100, 760)
CONV = "conv-attachments"
QUESTION = "Why did sign-ups drop in March? The dashboard and the report are attached."
ANSWER = (
    "The dashboard shows sign-ups falling from **4,120** in February to **2,870** in March "
    "(−30 %), while visits stayed flat — so fewer visitors finished the form.\n\n"
    "The report says why: *the new two-step form shipped on 3 March* (page 2). The drop "
    "starts that week.\n\n"
    "1. Compare the form's completion rate before and after 3 March.\n"
    "2. Put the one-page form back for half of the visitors and measure again."
)


def dashboard(path: Path) -> Path:
    """A small dashboard picture: a title, bars and their months."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    image = QImage(960, 600, QImage.Format.Format_RGB32)
    image.fill(QColor("#f7f8fa"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor("#1f2937"))
    painter.setFont(QFont("Sans", 26, QFont.Weight.Bold))
    painter.drawText(QRectF(40, 24, 880, 50), "Sign-ups per month")
    values = [3650, 3900, 4120, 2870, 2950]
    months = ["Dec", "Jan", "Feb", "Mar", "Apr"]
    painter.setFont(QFont("Sans", 16))
    for i, (value, month) in enumerate(zip(values, months, strict=True)):
        height = value / 4200 * 400
        x = 80 + i * 170
        color = QColor("#ef4444") if month == "Mar" else QColor("#3b82f6")
        painter.fillRect(QRectF(x, 520 - height, 110, height), color)
        painter.drawText(QRectF(x, 530, 110, 30), Qt.AlignmentFlag.AlignCenter, month)
        painter.drawText(
            QRectF(x, 520 - height - 32, 110, 28), Qt.AlignmentFlag.AlignCenter, f"{value:,}"
        )
    painter.end()
    image.save(str(path), "PNG")
    return path


def form_error(path: Path) -> Path:
    """A picture of a form with an error under its field."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen

    image = QImage(720, 440, QImage.Format.Format_RGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor("#111827"))
    painter.setFont(QFont("Sans", 22, QFont.Weight.Bold))
    painter.drawText(QRectF(40, 30, 640, 40), "Step 2 of 2 — Your address")
    painter.setFont(QFont("Sans", 15))
    for i, label in enumerate(("Street", "Postcode")):
        y = 110 + i * 120
        painter.setPen(QColor("#374151"))
        painter.drawText(QRectF(40, y, 300, 28), label)
        painter.setPen(QPen(QColor("#ef4444" if i else "#9ca3af"), 2))
        painter.drawRoundedRect(QRectF(40, y + 34, 640, 44), 6, 6)
    painter.setPen(QColor("#dc2626"))
    painter.drawText(QRectF(40, 320, 640, 28), "Enter a postcode in the format 1234 AB")
    painter.fillRect(QRectF(500, 370, 180, 44), QColor("#2563eb"))
    painter.setPen(QColor("#ffffff"))
    painter.drawText(QRectF(500, 370, 180, 44), 0x84, "Sign up")
    painter.end()
    image.save(str(path), "PNG")
    return path


def seed(home: Path, files: dict[str, Path]) -> None:
    """The conversation: the question with its two files, and the answer."""
    from ikgui.domain.events import Conversation
    from ikgui.files import read_file
    from ikgui.storage import open_store

    stored = [read_file(files["dashboard"]), read_file(files["report"])]
    store = open_store(home / "ikgui.db")
    try:
        with store.transaction():
            store.insert_conversation(
                Conversation(CONV, title="Sign-ups in March", created_at=1.7e9, updated_at=1.7e9)
            )
            data = {"attachments": [f.attachment.data() for f in stored]}
            store.append_event(CONV, "user", QUESTION, data, files=stored)
            store.append_event(CONV, "assistant", ANSWER, {"model": "gpt-4o"})
    finally:
        store.close()


def write_home(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""[defaults]
provider = "local"
model = "gpt-4o"
agent = "assistant"

[providers.local]
kind = "openai"
base_url = "{url}/v1"

[agents.assistant]
system_prompt = "You are a helpful assistant."
""",
        encoding="utf-8",
    )


async def shoot(home: Path, files: dict[str, Path], theme: str, out_dir: Path) -> None:
    from ikgui.app.root import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    apply_style(application(), theme)
    window = build_window(home, check_timeout=2.0)
    window.resize(*SIZE)
    window.show()
    try:
        await quiet(window)
        window.banner.hide()
        await window.attachments.adding([str(files["error"]), str(files["notes"])])
        window.prompt.setPlainText("And this error from the form's log: the same cause?")
        window.scrollback.scroll_to_bottom()
        await settled(window)
        await wait_until(lambda: window.scrollback.files.decodes >= 1, timeout=30)
        await quiet(window)
        await settled(window)
        save(window, out_dir / f"attach-{theme}.png")
        user = next(e for e in window.session.state.scrollback if e.kind == "user")
        sha = user.data["attachments"][0]["sha256"]
        viewer = window.scrollback.open_file(user.id, sha)
        viewer.resize(820, 600)
        await wait_until(lambda: not viewer.image.isNull(), timeout=30)
        await settled(window)
        save(viewer, out_dir / f"attach-viewer-{theme}.png")
        viewer.close()
    finally:
        await window.shutdown()
        window.close()
        window.deleteLater()
        await loop_passes()


def make_files(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "march-report.pdf"
    report.write_bytes(
        sample_files.pdf("Sign-ups in March", "The two-step form shipped on 3 March.")
    )
    error = form_error(folder / "form-error.png")
    notes = folder / "form.log"
    notes.write_text("2026-03-03 09:12 step 2: validation failed (postcode)\n", encoding="utf-8")
    return {
        "dashboard": dashboard(folder / "dashboard.png"),
        "report": report,
        "error": error,
        "notes": notes,
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1].startswith("-"):
        print(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "screenshots"
    out_dir.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp, WireServer() as server:
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            files = make_files(Path(tmp) / "files")  # (drawn with the application's fonts)
            for theme in ("light", "dark"):
                home = Path(tmp) / theme
                write_home(home, server.url)
                seed(home, files)
                loop.run_until_complete(shoot(home, files, theme, out_dir))


if __name__ == "__main__":
    main()
