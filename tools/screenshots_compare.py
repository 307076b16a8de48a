#!/usr/bin/env python3
"""Screenshots of models compared side by side in the real window, offscreen, in light
and dark (issue 25's README pictures).

    .venv/bin/python tools/screenshots_compare.py [OUT_DIR] [--size WxH]
    # default resources/screenshots, 1100x760

A local server (``tests/support/wire_server.py``, speaking OpenAI's streaming format)
serves two providers' models. The toolbar's Compare lists every provider's models
(``compare-picker-<theme>.png``); the next message goes to two of them, whose answers
stream side by side in ``compareView``, one finished with its figures while the other
still streams (``compare-streaming-<theme>.png``), then both finished
(``compare-done-<theme>.png``).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: A 1920×1080 virtual screen (Qt's offscreen default is 800×600: windows would shrink).
SCREEN = ROOT / "tests" / "support" / "screen.json"
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={SCREEN}")
sys.path.insert(0, str(ROOT))

from tests.support.waiting import loop_passes, wait_until  # noqa: E402
from tests.support.wire_server import ReceivedRequest, Reply, WireServer  # noqa: E402
from tools.shots import quiet, save, settled  # noqa: E402

SIZE = (1100, 760)
PATIENCE = 60.0
FIRST = "What is a good name for a bakery that also sells books?"
QUESTION = "Give me three more, shorter ones."
EARLIER = (
    "How about **Crumbs & Chapters**? It pairs the two halves of the shop and is easy to remember."
)
ANSWERS = {
    "gpt-4o-mini": (
        "Here are three shorter names:\n\n1. **Rye & Read**\n2. **Loaf Lines**\n"
        "3. **Proof**: a nod to both bread dough and a printer's proof.\n\n"
        "Rye & Read is the easiest to say aloud."
    ),
    "llama-3.1-8b": (
        "Sure! Three short options:\n\n1. **Knead to Read**\n2. **The Bookery**\n"
        "3. **Page & Crust**\n\nThe Bookery blends the two words into one, which makes it "
        "memorable on a sign, and it leaves room to grow into a café later."
    ),
}
#: How long each model waits between chunks: the second is the slow one.
PAUSES = {"gpt-4o-mini": 0.03, "llama-3.1-8b": 0.25}


def stream(model: str, text: str, pause: float) -> Reply:
    words = text.split(" ")
    pieces = [" ".join(words[i : i + 2]) + " " for i in range(0, len(words), 2)]
    pieces[-1] = pieces[-1].rstrip()
    chunks: list[dict[str, Any]] = [
        {"model": model, "choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces
    ]
    chunks.append({"model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    usage = {"prompt_tokens": 64, "completion_tokens": len(words) + len(words) // 3}
    chunks.append({"model": model, "choices": [], "usage": usage})
    parts = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]
    headers = (("content-type", "text/event-stream"),)
    return Reply(chunks=tuple(parts), headers=headers, pause=pause)


def model(request: ReceivedRequest) -> Reply:
    name = request.json()["model"]
    if name not in ANSWERS:
        return stream(name, EARLIER, 0.0)
    return stream(name, ANSWERS[name], PAUSES[name])


def write_home(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""[defaults]
provider = "openai"
model = "gpt-4o"
agent = "assistant"

[providers.openai]
kind = "openai"
base_url = "{url}/v1"

[providers.lan]
kind = "openai"
base_url = "{url}/v1"

[agents.assistant]
system_prompt = "You are a helpful assistant."

[prices."gpt-4o-mini"]
input = 0.15
output = 0.6
""",
        encoding="utf-8",
    )


async def shoot(home: Path, theme: str, out_dir: Path, size: tuple[int, int]) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPainter, QPixmap
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialog

    from ikgui.app.root import build_window
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    apply_style(application(), theme)
    window = build_window(home, check_timeout=2.0)
    window.resize(*size)
    window.show()
    try:
        await quiet(window)
        window.banner.hide()
        window.prompt.setFocus()
        QTest.keyClicks(window.prompt, FIRST)
        QTest.keyClick(window.prompt, Qt.Key.Key_Return)
        await quiet(window)
        await window.model_lists.ask_all()
        window.toolbar_actions["actionCompare"].trigger()
        dialog = window.findChild(QDialog, "compareDialog")
        models = dialog.models
        for row in range(models.count()):
            item = models.item(row)
            label = item.data(Qt.ItemDataRole.UserRole)
            if label in ("openai/gpt-4o-mini", "lan/llama-3.1-8b"):
                item.setCheckState(Qt.CheckState.Checked)
            elif label == "openai/gpt-4o":
                item.setCheckState(Qt.CheckState.Unchecked)
        await settled(window)
        # The dialog is a window of its own: drawn over the main window's picture.
        picture = window.grab()
        painter = QPainter(picture)
        shot = dialog.grab()
        x = (picture.width() - shot.width()) // 2
        painter.drawPixmap(x, 90, shot)
        painter.end()
        QPixmap(picture).save(str(out_dir / f"compare-picker-{theme}.png"))
        print(f"wrote {out_dir / f'compare-picker-{theme}.png'}")
        dialog.findChild(type(dialog.buttons.buttons()[0]), "compareOk").click()
        await wait_until(lambda: window.session.compare_next is not None, timeout=PATIENCE)
        QTest.keyClicks(window.prompt, QUESTION)
        QTest.keyClick(window.prompt, Qt.Key.Key_Return)
        view = window.pane.compare_view

        def half_way() -> bool:
            answers = [c.answer for c in view.columns]
            return (
                len(answers) == 2
                and answers[0].finished is not None
                and len(answers[1].pieces) > 14
            )

        await wait_until(half_way, timeout=PATIENCE)
        view.flush()
        await settled(window)
        save(window, out_dir / f"compare-streaming-{theme}.png")
        await quiet(window)
        await settled(window)
        save(window, out_dir / f"compare-done-{theme}.png")
    finally:
        await window.shutdown()
        window.close()
        window.deleteLater()
        await loop_passes()


def main() -> None:
    args = sys.argv[1:]
    size = SIZE
    if "--size" in args:
        at = args.index("--size")
        width, height = args[at + 1].lower().split("x")
        size = (int(width), int(height))
        del args[at : at + 2]
    if args and args[0].startswith("-"):
        print(__doc__)
        sys.exit(0 if args[0] in ("-h", "--help") else 2)
    out_dir = Path(args[0]) if args else ROOT / "resources" / "screenshots"
    out_dir.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp, WireServer() as server:
        server.models = ["gpt-4o", "gpt-4o-mini", "llama-3.1-8b"]
        server.route("/v1/chat/completions", model)
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            for theme in ("light", "dark"):
                home = Path(tmp) / theme  # a fresh conversation in each
                write_home(home, server.url)
                loop.run_until_complete(shoot(home, theme, out_dir, size))


if __name__ == "__main__":
    main()
