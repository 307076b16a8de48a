#!/usr/bin/env python3
"""Screenshots of a tool call being approved in the real window, offscreen, in light and
dark (issue 23's README pictures).

    .venv/bin/python tools/screenshots_tools.py [OUT_DIR]     # default resources/screenshots

A local model (``tests/support/wire_server.py`` replaying OpenAI's documented
``tool_calls`` stream, ``openai-docs-tool-call-stream.txt``) asks a real
``mcp-server-time`` (installed into ``.venv-mcp/`` on first use, as the tests do) for the
time; the window shows its ``toolCallCard`` (``tool-card-<theme>.png``), then, after
Allow once, the call's result and the answer (``tool-result-<theme>.png``).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: A 1920×1080 virtual screen (Qt's offscreen default is 800×600: windows would shrink).
SCREEN = ROOT / "tests" / "support" / "screen.json"
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={SCREEN}")
sys.path.insert(0, str(ROOT))

from tests.support.mcp_servers import config_table, time_server  # noqa: E402
from tests.support.waiting import loop_passes, wait_until  # noqa: E402
from tests.support.wire_server import (  # noqa: E402
    ReceivedRequest,
    Reply,
    WireServer,
    load_recording,
)
from tools.shots import quiet, save, settled  # noqa: E402

SIZE = (1100, 760)
QUESTION = "What time is it in Lisbon?"
ZONE = "Europe/Lisbon"
#: Starting the server (its first handshake) and a slow machine: generous, not a sleep.
PATIENCE = 90.0
CALL = load_recording("openai-docs-tool-call-stream.txt")
MODEL = "gpt-4o-mini-2024-07-18"


def answer(text: str) -> Reply:
    """``text`` streamed as OpenAI streams a reply, a few words a chunk."""
    words = text.split(" ")
    pieces = [" ".join(words[i : i + 3]) + " " for i in range(0, len(words), 3)]
    pieces[-1] = pieces[-1].rstrip()
    # The recording's model names itself: the answer names the same one.
    chunks: list[dict[str, Any]] = [
        {"model": MODEL, "choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces
    ]
    chunks.append({"model": MODEL, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    usage = {"prompt_tokens": 131, "completion_tokens": 19}
    chunks.append({"model": MODEL, "choices": [], "usage": usage})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return Reply(body=body.encode(), headers=CALL.headers, chunk_size=60)


def said_time(content: Any) -> str:
    """The answer made from the tool's result (or quoting it, if it is not the time)."""
    text = content if isinstance(content, str) else json.dumps(content)
    try:
        moment = datetime.fromisoformat(json.loads(text)["datetime"])
    except (ValueError, KeyError, TypeError):
        return f"The tool said: {text[:80]}"
    offset = moment.isoformat()[-6:] if moment.utcoffset() else "+00:00"
    return f"It is {moment:%H:%M} in Lisbon right now (Western European Time, UTC{offset})."


def model(request: ReceivedRequest) -> Reply:
    """The recorded call (asking for Lisbon's zone rather than the recording's UTC, to
    match the question), then an answer made from the tool's result."""
    last = request.json()["messages"][-1]
    if last.get("role") != "tool":
        body = CALL.body.replace(b'"arguments":"UTC"', f'"arguments":"{ZONE}"'.encode())
        return Reply(body=body, headers=CALL.headers, chunk_size=40)
    return answer(said_time(last.get("content")))


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
system_prompt = "You are a helpful assistant. Use the tools you are offered."

{config_table(time_server())}""",
        encoding="utf-8",
    )


def cards(window: Any) -> list[Any]:
    from ikgui.ui.approvals import ToolCallCard

    found = window.findChildren(ToolCallCard, "toolCallCard")
    return [c for c in found if c.isVisible()]


async def shoot(home: Path, theme: str, out_dir: Path) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from ikgui.app.root import build_window
    from ikgui.domain.events import Kind
    from ikgui.ui.loop import application
    from ikgui.ui.style import apply_style

    apply_style(application(), theme)
    window = build_window(home, check_timeout=2.0)
    window.resize(*SIZE)
    window.show()
    try:
        await quiet(window)
        window.banner.hide()
        window.prompt.setFocus()
        QTest.keyClicks(window.prompt, QUESTION)
        QTest.keyClick(window.prompt, Qt.Key.Key_Return)
        await wait_until(lambda: len(cards(window)) == 1, timeout=PATIENCE)
        [card] = cards(window)
        await settled(window)
        save(window, out_dir / f"tool-card-{theme}.png")
        card.once.click()

        def answered() -> bool:
            last = window.session.state.scrollback[-1]
            return last.kind == Kind.ASSISTANT and not window.session.streaming

        await wait_until(answered, timeout=PATIENCE)
        await quiet(window)
        window.scrollback.scroll_to_bottom()
        await settled(window)
        save(window, out_dir / f"tool-result-{theme}.png")
    finally:
        await window.shutdown()
        window.close()
        window.deleteLater()
        await loop_passes()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1].startswith("-"):
        print(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "screenshots"
    out_dir.mkdir(parents=True, exist_ok=True)
    from ikgui.ui.loop import new_loop

    with tempfile.TemporaryDirectory() as tmp, WireServer() as server:
        server.route("/v1/chat/completions", model)
        loop = new_loop()
        asyncio.set_event_loop(loop)
        with loop:
            for theme in ("light", "dark"):
                home = Path(tmp) / theme  # a fresh conversation in each
                write_home(home, server.url)
                loop.run_until_complete(shoot(home, theme, out_dir))


if __name__ == "__main__":
    main()
