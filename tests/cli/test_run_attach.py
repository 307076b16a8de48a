"""``ikgui run --attach FILE`` (``-A``, repeatable; SPEC §13, issue 24 item 6) against a
real HTTP server that records each request and a real SQLite file: the files go with the
message in the provider's form, are stored once by hash, and a file that cannot be sent
refuses the whole message with one line (exit 1, nothing sent, nothing stored)."""

from __future__ import annotations

import base64
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.cli.test_run import local, sse_reply
from tests.support import sample_files
from tests.support.fixtures import wire_server, wire_server_session
from tests.support.wire_server import Reply, WireServer

__all__ = ["local", "wire_server", "wire_server_session"]
CHAT = "/v1/chat/completions"


def files_stored(cli: Cli) -> int:
    with closing(sqlite3.connect(cli.home / "ikgui.db")) as conn:
        return int(conn.execute("SELECT count(*) FROM stored_file").fetchone()[0])


@pytest.fixture
def shot(tmp_path: Path) -> Path:
    path = tmp_path / "shot.png"
    path.write_bytes(sample_files.png(40, 30))
    return path


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "report.pdf"
    path.write_bytes(sample_files.pdf("Revenue rose 12 percent"))
    return path


def test_files_go_with_the_message_and_are_stored_once(
    cli: Cli, local: WireServer, shot: Path, report: Path
) -> None:
    local.route(CHAT, sse_reply("A red ", "square."))
    result = cli.ok("run", "-A", str(shot), "--attach", str(report), "What", "are", "these?")
    assert result.out == "A red square.\n"
    conv = result.err.strip().splitlines()[-1]
    [user] = local.bodies(CHAT)[-1]["messages"]
    image, pdf, ask = user["content"]
    assert ask == {"type": "text", "text": "What are these?"}
    assert base64.b64decode(image["image_url"]["url"].split(",", 1)[1]) == shot.read_bytes()
    assert "Revenue rose 12 percent" in pdf["text"] and 'name="report.pdf"' in pdf["text"]
    # The context names them; the next message sends them again, from the store.
    [context] = [m for m in cli.context(conv) if m["role"] == "user"]
    assert [a["name"] for a in context["attachments"]] == ["shot.png", "report.pdf"]
    shown = cli.ok("conv", "context", conv).out
    assert "(attached: shot.png, image/png, " in shown
    assert "(attached: report.pdf, application/pdf, " in shown
    local.route(CHAT, sse_reply("Yes."))
    cli.ok("run", "-c", conv, "and again?")
    first = local.bodies(CHAT)[-1]["messages"][0]
    assert first["content"][0]["type"] == "image_url"
    # The same file in another conversation is not stored again.
    assert files_stored(cli) == 2
    cli.ok("run", "-A", str(shot), "once more")
    assert files_stored(cli) == 2
    # A file alone is a message; -a stays --agent.
    alone = cli.process("run", "-a", "painter", "-A", str(shot), stdin="")
    assert alone.code == 0, alone.err
    [system, user] = local.bodies(CHAT)[-1]["messages"]
    assert system["content"] == "You draft image prompts."
    assert [part["type"] for part in user["content"]] == ["image_url"]


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("bomb.png", sample_files.png_bomb(50_000), "bomb.png is 50,000 × 50,000 pixels"),
        ("locked.pdf", sample_files.encrypted_pdf(), "locked.pdf is protected by a password"),
        ("latin.txt", "Straße".encode("latin-1"), "latin.txt is not UTF-8 text"),
        ("photo.png", b"<html></html>", "photo.png is named like a PNG image but is not one"),
    ],
)
def test_one_bad_file_refuses_the_whole_message(
    cli: Cli, local: WireServer, shot: Path, tmp_path: Path, name: str, content: bytes, says: str
) -> None:
    bad = tmp_path / name
    bad.write_bytes(content)
    result = cli("run", "-A", str(shot), "-A", str(bad), "look")
    assert result.code == 1 and result.out == ""
    [line] = result.err.strip().splitlines()
    assert line.startswith(f"Error: {says}") and "Traceback" not in result.err
    assert local.requests == []  # nothing sent
    assert cli.ok("conv", "list", "--json").json == []  # nothing stored


def test_missing_too_large_and_with_a_command(cli: Cli, local: WireServer, shot: Path) -> None:
    gone = cli("run", "-A", str(shot.parent / "gone.png"), "look")
    assert (gone.code, gone.err.strip()) == (1, "Error: gone.png was not found")
    (cli.home / "config.toml").write_text(
        (cli.home / "config.toml").read_text() + "\n[limits]\nattachment_mb = 1\n"
    )
    big = shot.parent / "big.txt"
    big.write_bytes(b"a" * (1024 * 1024 + 10))
    result = cli("run", "-A", str(big), "look")
    assert (result.code, result.err.strip()) == (
        1,
        "Error: big.txt is 1.0 MB: files may be at most 1 MB",
    )
    command = cli("run", "-A", str(shot), "/mark", "x")
    assert command.code == 2 and "--attach sends files with a message" in command.err
    assert local.requests == []


def test_a_model_that_cannot_read_images_exits_3(cli: Cli, local: WireServer, shot: Path) -> None:
    said = "image input is not supported - hint: you may need to provide the mmproj"
    local.route(CHAT, Reply.json({"error": {"message": said, "code": 500}}, status=500))
    result = cli("run", "-A", str(shot), "what is it?")
    assert result.code == 3
    errors = [line for line in result.err.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1
    assert 'The model "mock-gpt" at ' in errors[0] and "cannot read images (HTTP 500" in errors[0]
    assert "Choose a model that reads images with /model and retry" in errors[0]
