"""``ikgui run TEXT`` against a real HTTP server replaying recorded streams (SPEC §8, §9)."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import keyring
import pytest

from tests.cli.conftest import Cli
from tests.support.fixtures import closed_url, wire_server, wire_server_session
from tests.support.memkeyring import MemoryKeyring
from tests.support.waiting import wait_for
from tests.support.wire_server import WIRE_DIR, Reply, WireServer

__all__ = ["closed_url", "wire_server", "wire_server_session"]


def sse(*pieces: str, usage: tuple[int, int] = (5, 7), finish: str = "stop") -> bytes:
    """An OpenAI chat-completions stream carrying ``pieces`` as content deltas."""
    chunks = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    chunks.append(
        {"choices": [], "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}
    )
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return body.encode()


def sse_reply(*pieces: str, **options: object) -> Reply:
    return Reply(body=sse(*pieces), headers=(("content-type", "text/event-stream"),), **options)  # type: ignore[arg-type]


def recorded_text(name: str) -> str:
    text = ""
    for line in (WIRE_DIR / name).read_text().splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices", []):
                text += choice.get("delta", {}).get("content") or ""
    return text


@pytest.fixture
def local(cli: Cli, wire_server: WireServer) -> Iterator[WireServer]:
    """A config whose default provider is the local server (OpenAI kind)."""
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f"""
[defaults]
provider = "local"
model = "mock-gpt"

[providers.local]
kind = "openai"
base_url = "{wire_server.url}/v1"
api_key_env = "IKGUI_TEST_LOCAL_KEY"

[providers.llama]
kind = "ollama"
base_url = "{wire_server.url}"

[providers.claude]
kind = "anthropic"
base_url = "{wire_server.url}"

[agents.painter]
system_prompt = "You draft image prompts."
prompt_mode = "line"

[agents.drafter]
prompt_mode = "json"

[prices."mock-gpt"]
input = 1.0
output = 2.0
""",
        encoding="utf-8",
    )
    yield wire_server


def test_streams_a_recorded_reply_and_saves_it(cli: Cli, local: WireServer) -> None:
    local.replay("litellm-openai-stream-usage.txt", chunk_size=13)
    expected = recorded_text("litellm-openai-stream-usage.txt")
    result = cli.ok("run", "hello", "there")
    assert result.out == expected + "\n"
    conv = result.err.strip().splitlines()[-1]
    assert local.bodies("/v1/chat/completions")[-1]["messages"] == [
        {"role": "user", "content": "hello there"}
    ]
    assert local.bodies()[-1]["stream"] is True
    shown = cli.ok("conv", "show", conv, "--json").json
    assert shown["title"] == "hello there"
    user, reply = shown["scrollback"]
    assert (user["kind"], user["content"]) == ("user", "hello there")
    assert (reply["kind"], reply["content"]) == ("assistant", expected)
    usage = reply["data"]["usage"]
    assert usage["input"] > 0 and usage["output"] > 0
    assert reply["data"]["cost"] == pytest.approx((usage["input"] + 2 * usage["output"]) / 1e6)
    assert shown["tokens"] == usage and shown["cost"] == reply["data"]["cost"]
    assert reply["data"]["interrupted"] is False and reply["data"]["finish_reason"] == "stop"

    local.route("/v1/chat/completions", sse_reply("Second", " answer"))
    follow = cli.ok("run", "-c", "and more")  # one word after -c and nothing else: text
    assert follow.out == "Second answer\n"
    assert [m["role"] for m in local.bodies()[-1]["messages"]] == ["user", "assistant", "user"]


def test_json_quiet_no_stream_and_no_save(cli: Cli, local: WireServer) -> None:
    local.route("/v1/chat/completions", sse_reply("Hi", "!"))
    data = cli.ok("run", "--json", "hi").json
    assert data["reply"] == "Hi!" and data["usage"] == {"input": 5, "output": 7}
    assert data["cost"] == pytest.approx(19 / 1e6) and data["model"] == "mock-gpt"
    assert data["id"].startswith("chat-")
    quiet = cli.ok("run", "-q", "--no-stream", "hi")
    assert (quiet.out, quiet.err) == ("Hi!\n", "")
    before = cli.ok("conv", "list", "--json").json
    scratch = cli.ok("run", "-c", "--no-save", "again")
    assert scratch.out == "Hi!\n" and scratch.err == ""
    assert cli.ok("conv", "list", "--json").json == before
    # the scratch copy carried the continued conversation's context
    assert [m["content"] for m in local.bodies()[-1]["messages"]] == ["hi", "Hi!", "again"]


def test_provider_and_model_flags(cli: Cli, local: WireServer) -> None:
    local.replay("lightrag-ollama-chat-stream.ndjson")
    result = cli.ok("run", "-p", "llama", "-m", "tiny", "hey")
    assert result.out.strip()
    assert local.requests[-1].path == "/api/chat"
    assert local.bodies()[-1]["model"] == "tiny"
    shown = cli.ok("conv", "show", "-l", "--json").json
    assert (shown["provider"], shown["model"]) == ("llama", "tiny")
    unknown = cli("run", "-p", "nope", "hey")
    assert (unknown.code, unknown.err.strip()) == (1, "Error: Unknown provider 'nope'")


@pytest.mark.parametrize(
    ("provider", "recording", "path", "text"),
    [
        ("llama", "lightrag-ollama-chat-stream.ndjson", "/api/chat", "Hello"),
        ("claude", "llama-server-anthropic-stream.txt", "/v1/messages", "yg, but"),
    ],
)
def test_every_provider_kind_end_to_end(
    cli: Cli, local: WireServer, provider: str, recording: str, path: str, text: str
) -> None:
    local.replay(recording, chunk_size=5, pause=0.0005)
    result = cli.ok("run", "-p", provider, "-m", "tiny", "hi")
    assert result.out.startswith(text)
    assert local.requests[-1].path == path
    reply = cli.ok("conv", "show", "-l", "--json").json["scrollback"][-1]
    assert reply["kind"] == "assistant" and reply["content"] == result.out.rstrip("\n")
    assert reply["data"]["provider"] == provider and reply["data"]["interrupted"] is False

    local.route(path, Reply.error(500, "boom"))
    failed = cli("run", "-c", "again")
    assert failed.code == 3
    shown = cli.ok("conv", "show", "-l", "--json").json["scrollback"]
    assert [i["kind"] for i in shown[-2:]] == ["user", "error"]
    assert shown[-2]["content"] == "again"
    assert shown[-1]["data"]["status"] == 500


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (Reply.error(401, "invalid api key"), "ikgui keys set local"),
        (Reply.error(429, "slow down", retry_after=20), "20 seconds"),
        (Reply.error(404, "model not found"), "mock-gpt"),
        (Reply.error(529, "overloaded"), "overloaded"),
        (Reply.error(500, "boom"), "The server had an internal error (500)"),
        (Reply.html(), "web page"),
    ],
)
def test_failures_are_one_sentence_and_keep_the_message(
    cli: Cli, local: WireServer, reply: Reply, words: str
) -> None:
    local.route("/v1/chat/completions", reply)
    result = cli("run", "keep", "me")
    assert result.code == 3
    errors = [line for line in result.err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and words.lower() in errors[0].lower()
    shown = cli.ok("conv", "show", "-l", "--json").json
    kinds = [(i["kind"], i["content"]) for i in shown["scrollback"]]
    assert kinds[0] == ("user", "keep me")
    assert kinds[-1] == ("error", errors[0].removeprefix("Error: "))
    assert shown["scrollback"][-1]["data"]["category"]


def test_a_cut_stream_keeps_the_partial_reply(cli: Cli, local: WireServer) -> None:
    local.replay("litellm-midstream-backend-killed.txt")
    result = cli("run", "tell", "me", "a", "story")
    assert result.code == 3
    shown = cli.ok("conv", "show", "-l", "--json").json
    _user, reply, error = shown["scrollback"]
    assert reply["kind"] == "assistant" and reply["data"]["interrupted"] is True
    assert reply["content"].endswith("(stopped)") and len(reply["content"]) > 20
    assert result.out.startswith(reply["content"].removesuffix(" (stopped)")[:20])
    assert error["kind"] == "error"


def test_a_provider_no_longer_configured_is_said_in_the_command_line_s_words(
    cli: Cli, local: WireServer
) -> None:
    """The same advice the window words as "Add it in Settings → Providers" (issue 10,
    item 7): here it names config.toml and -p, and the log keeps that sentence."""
    local.route("/v1/chat/completions", sse_reply("hi"))
    cli.ok("run", "hello")
    config = cli.home / "config.toml"
    config.write_text(config.read_text().replace("local", "work"))
    result = cli("run", "-c", "again")
    assert result.code == 3
    said = (
        "The provider 'local' is not configured. "
        "Add [providers.local] to config.toml (or choose another with -p)."
    )
    assert result.err.splitlines()[0] == f"Error: {said}"
    shown = cli.ok("conv", "show", "-l", "--json").json["scrollback"]
    assert (shown[-1]["kind"], shown[-1]["content"]) == ("error", said)
    assert shown[-1]["data"]["advice"] == "configure_provider"


def test_nothing_listening(cli: Cli, closed_url: str) -> None:
    cli.home.mkdir(parents=True)
    (cli.home / "config.toml").write_text(
        f'[providers.ollama]\nkind = "ollama"\nbase_url = "{closed_url}"\n', encoding="utf-8"
    )
    result = cli.process("run", "hello")
    assert result.code == 3
    assert result.err.splitlines()[0] == (
        f"Error: Could not connect to Ollama at {closed_url}. "
        "Is Ollama running? Start it with `ollama serve`."
    )
    shown = cli.process("conv", "show", "-l")
    assert "[You] hello" in shown.out and "[Error] Could not connect" in shown.out


def test_nothing_listening_at_an_openai_compatible_url_names_the_config_file(
    cli: Cli, closed_url: str
) -> None:
    """Issue 20 (wording): the command line names what its user does (config.toml), never
    the window's "in Settings"."""
    cli.home.mkdir(parents=True)
    (cli.home / "config.toml").write_text(
        f'[providers.local]\nkind = "openai"\nbase_url = "{closed_url}/v1"\n', encoding="utf-8"
    )
    result = cli("run", "-p", "local", "-m", "m", "hello")
    assert result.code == 3
    assert result.err.splitlines()[0] == (
        f"Error: Could not connect to {closed_url}/v1. Check that the server is running "
        "and that base_url under [providers.local] in config.toml is right."
    )
    assert "Settings" not in result.err


#: ``ikgui`` with the growing reply saved every 0.1 s instead of every second, so a test
#: waits for a save (a condition) rather than for a second to pass. SIGINT is set as a
#: terminal's foreground job has it: a test runner started in the background (``&``,
#: nohup, CI) has SIGINT ignored, its children inherit that, and ikgui rightly keeps an
#: ignored SIGINT ignored (a background job is stopped with SIGTERM, handled the same).
FAST_SAVES = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "import sys; import ikgui.domain.session.reply as reply; reply.SAVE_INTERVAL = 0.1; "
    "from ikgui.__main__ import main; sys.exit(main())"
)


def saved_reply(database: Path) -> str:
    """The newest reply's text as saved so far ("" before its first save)."""
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as conn:
        row = conn.execute(
            "SELECT content FROM event WHERE kind = 'assistant' ORDER BY id DESC LIMIT 1"
        ).fetchone()
    return row[0] if row else ""


def _start_slow(cli: Cli, local: WireServer, *args: str) -> subprocess.Popen[str]:
    pieces = [f"word{i} " for i in range(200)]
    local.route(
        "/v1/chat/completions",
        Reply(
            chunks=tuple(sse(*pieces).split(b"\n\n")[i] + b"\n\n" for i in range(202)),
            headers=(("content-type", "text/event-stream"),),
            pause=0.05,
        ),
    )
    env = dict(os.environ, IKGUI_HOME=str(cli.home), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-c", FAST_SAVES, "run", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.read(6)  # the first delta reached stdout
    assert first == "word0 "
    # A save of the growing reply holding a few words (one save interval passed).
    wait_for(lambda: saved_reply(cli.home / "ikgui.db").startswith("word0 word1 word2 "))
    return proc


def test_ctrl_c_stops_the_stream_and_keeps_the_partial_reply(cli: Cli, local: WireServer) -> None:
    proc = _start_slow(cli, local, "count")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "(stopped)" in err
    reply = cli.ok("conv", "show", "-l", "--json").json["scrollback"][-1]
    assert reply["data"]["interrupted"] is True
    assert reply["content"].startswith("word0 word1 ") and "word199" not in reply["content"]
    # everything printed was saved, and nothing more
    assert reply["content"] == ("word0 " + out).removesuffix("\n") + " (stopped)"


def test_a_crash_mid_reply_is_marked_interrupted_at_start(cli: Cli, local: WireServer) -> None:
    proc = _start_slow(cli, local, "count")
    proc.kill()
    proc.communicate(timeout=10)
    reply = cli.ok("conv", "show", "-l", "--json").json["scrollback"][-1]
    assert reply["kind"] == "assistant" and reply["data"]["interrupted"] is True
    assert reply["content"].startswith("word0 ")
    assert "streaming" not in reply["data"]


def test_working_prompt_is_extracted_and_sent_back(cli: Cli, local: WireServer) -> None:
    local.route(
        "/v1/chat/completions",
        sse_reply("Here is a draft.\n\n", "Prompt: a tabby cat\n", "- in a wizard hat"),
    )
    result = cli.ok("run", "-a", "painter", "draw", "a", "cat")
    conv = result.err.strip().splitlines()[-1]
    assert conv.startswith("painter-")
    assert cli.ok("conv", "show", conv, "--json").json["working_prompt"] == (
        "a tabby cat in a wizard hat"
    )
    local.route("/v1/chat/completions", sse_reply("Purple it is."))
    cli.ok("run", "-c", conv, "make", "it", "purple")
    messages = local.bodies()[-1]["messages"]
    assert messages[0] == {"role": "system", "content": "You draft image prompts."}
    assert messages[-2] == {"role": "user", "content": "make it purple"}
    assert messages[-1] == {
        "role": "system",
        "content": '[current prompt: "a tabby cat in a wizard hat"]',
    }


def test_json_mode_prints_the_reply_without_its_prompt_block(cli: Cli, local: WireServer) -> None:
    local.route(
        "/v1/chat/completions",
        sse_reply(
            "A cat it is.\n",
            "How about this?\n-",
            "--\n",
            '{"prompt": "a cat',
            ', watercolor", "ready": true}',
        ),
    )
    result = cli.ok("run", "-v", "-a", "drafter", "draw", "a", "cat")
    assert result.out == "A cat it is.\nHow about this?\n"
    assert "Prompt: a cat, watercolor" in result.err
    conv = result.err.strip().splitlines()[-1]
    assert cli.ok("conv", "show", conv, "--json").json["working_prompt"] == "a cat, watercolor"
    data = cli.ok("run", "--json", "-c", conv, "again").json  # the same reply again
    assert (
        data["reply"] == "A cat it is.\nHow about this?" and data["prompt"] == "a cat, watercolor"
    )


def test_json_mode_reply_without_a_valid_block_keeps_the_prompt(
    cli: Cli, local: WireServer
) -> None:
    local.route("/v1/chat/completions", sse_reply("Sure.\n---\n", '{"prompt": "x", oops'))
    result = cli.ok("run", "-v", "-a", "drafter", "hi")
    assert result.out == 'Sure.\n---\n{"prompt": "x", oops\n'  # nothing is hidden
    assert "Warning: Prompt block is not valid JSON" in result.err
    conv = result.err.strip().splitlines()[-1]
    shown = cli.ok("conv", "show", conv, "--json").json
    assert shown["working_prompt"] == ""
    assert shown["scrollback"][-1]["data"]["prompt_warning"].startswith("Prompt block is not")


def test_keys_live_in_the_keyring_and_nowhere_else(
    cli: Cli, local: WireServer, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setattr(sys, "stdin", io.StringIO(secret + "\n"))
    assert cli.ok("keys", "set", "local").out.strip() == (
        "Stored the key for local in the system keyring."
    )
    assert memory_keyring.secrets[("ikgui", "local")] == secret
    assert "stored in the system keyring" in cli.ok("keys", "status", "local").out

    local.route("/v1/chat/completions", Reply.error(401, f"bad key {secret}"))
    failed = cli("run", "hello")
    assert failed.code == 3 and secret not in failed.err
    assert local.requests[-1].headers["authorization"] == f"Bearer {secret}"
    local.route("/v1/chat/completions", sse_reply("ok"))
    conv = cli.ok("run", "-c", "again").err.strip().splitlines()[-1]
    exported = cli.ok("conv", "export", conv).out
    for blob in (exported, (cli.home / "config.toml").read_text()):
        assert secret not in blob
    for path in cli.home.glob("ikgui.db*"):
        assert secret.encode() not in path.read_bytes()

    assert cli.ok("keys", "delete", "local").out.strip() == "Deleted the key for local."
    assert ("ikgui", "local") not in memory_keyring.secrets
    monkeypatch.setenv("IKGUI_TEST_LOCAL_KEY", "from-env")
    cli.ok("run", "-c", "env")
    assert local.requests[-1].headers["authorization"] == "Bearer from-env"
    assert "IKGUI_TEST_LOCAL_KEY" in cli.ok("keys", "status", "local").out


def test_without_a_keyring_backend_keys_are_refused_clearly(
    cli: Cli, local: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        monkeypatch.setattr(sys, "stdin", io.StringIO("sk-x\n"))
        result = cli("keys", "set", "local")
        assert result.code == 1
        assert result.err.startswith("Error: No system keyring is available here")
        assert "api_key_env" in result.err
        assert "this session only" in cli.ok("keys", "status").out
    finally:
        keyring.set_keyring(previous)
