#!/usr/bin/env python3
"""Screenshots of alternatives in place (issue 25's README pictures), in the real window,
offscreen, in light and dark.

    .venv/bin/python tools/screenshots_alts.py [OUT_DIR] [--size=WxH]
    # default resources/screenshots, 1100x760

A local model (``tests/support/wire_server.py`` streaming as OpenAI does) answers a
question three times (a reply and two Retries); the window shows the second answer
chosen with its ``‹ 2/3 ›`` switcher focused (``alts-retry-<theme>.png``). Then the
question is edited and resent: the edited version shows ``‹ 2/2 ›`` and the sidebar has
no new row (``alts-edit-<theme>.png``).
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

PATIENCE = 60.0
QUESTION = "Suggest a name for a small bakery by the sea."
EDITED = "Suggest a name for a small bakery in the mountains."
ANSWERS = [
    "**Salt & Crumb**: the sea air in the name, the bread in the crumb.",
    "**Tide & Loaf**: a name that rises and falls with the morning baking.",
    "**The Harbour Oven**: plain, warm and easy to remember.",
    "**Summit Sourdough**: high up, slow risen, worth the climb.",
]


def streamed(text: str) -> Reply:
    """``text`` streamed as OpenAI streams a reply, a few words a chunk."""
    words = text.split(" ")
    pieces = [" ".join(words[i : i + 3]) + " " for i in range(0, len(words), 3)]
    pieces[-1] = pieces[-1].rstrip()
    chunks: list[dict[str, Any]] = [
        {"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces
    ]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 42, "completion_tokens": 17}})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return Reply(body=body.encode(), headers=(("content-type", "text/event-stream"),))


class Model:
    """Each request gets the next answer."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, request: ReceivedRequest) -> Reply:
        text = ANSWERS[min(self.count, len(ANSWERS) - 1)]
        self.count += 1
        return streamed(text)


def write_home(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"""[defaults]
provider = "local"
model = "gpt-4o-mini"
agent = "assistant"

[providers.local]
kind = "openai"
base_url = "{url}/v1"

[agents.assistant]
system_prompt = "You are a helpful assistant."
""",
        encoding="utf-8",
    )


def switchers(window: Any) -> list[Any]:
    from ikgui.ui.transcript.switcher import AlternativeSwitcher

    found = window.scrollback.viewport().findChildren(AlternativeSwitcher, "alternativeSwitcher")
    return [s for s in found if s.isVisible()]


async def shoot(home: Path, theme: str, out_dir: Path, size: tuple[int, int]) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

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
        QTest.keyClicks(window.prompt, QUESTION)
        QTest.keyClick(window.prompt, Qt.Key.Key_Return)
        await quiet(window)
        for _ in range(2):
            window.scrollback.retry_requested.emit(window.session.state.context[-1].id)
            await quiet(window)
        await wait_until(lambda: len(switchers(window)) == 1, timeout=PATIENCE)
        switchers(window)[0].previous.click()
        await wait_until(
            lambda: [s.accessibleName() for s in switchers(window)] == ["Alternative 2 of 3"],
            timeout=PATIENCE,
        )
        switchers(window)[0].setFocus()
        await settled(window)
        save(window, out_dir / f"alts-retry-{theme}.png")

        message = window.session.state.context[0]
        window.scrollback.edit_resend_requested.emit(message.id, EDITED)
        await quiet(window)
        await wait_until(
            lambda: [s.accessibleName() for s in switchers(window)] == ["Alternative 2 of 2"],
            timeout=PATIENCE,
        )
        window.scrollback.scroll_to_bottom()
        await settled(window)
        save(window, out_dir / f"alts-edit-{theme}.png")
    finally:
        await window.shutdown()
        window.close()
        window.deleteLater()
        await loop_passes()


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--size")]
    sizes = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--size=")]
    if args and args[0].startswith("-"):
        print(__doc__)
        sys.exit(0 if args[0] in ("-h", "--help") else 2)
    width, height = (int(n) for n in (sizes[0] if sizes else "1100x760").split("x"))
    out_dir = Path(args[0]) if args else ROOT / "resources" / "screenshots"
    out_dir.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp, WireServer() as server:
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            for theme in ("light", "dark"):
                server.route("/v1/chat/completions", Model())
                home = Path(tmp) / theme  # a fresh conversation in each
                write_home(home, server.url)
                loop.run_until_complete(shoot(home, theme, out_dir, (width, height)))


if __name__ == "__main__":
    main()
