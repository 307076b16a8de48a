"""The OpenAI and Anthropic providers against a real LiteLLM proxy.

The proxy comes from ``IKGUI_LITELLM=/path/to/litellm``, a ``litellm`` command beside
this Python or on PATH, or else the tests install it themselves (once) into
``.venv-litellm/`` at the repository's root: a separate virtual environment, so its
many dependencies never mix with ikgui's. It is started on 127.0.0.1 with
``mock_response`` models, so nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ikgui.domain.errors import ProviderError
from ikgui.domain.settings import ProviderSettings
from ikgui.domain.streaming import ChatRequest, StreamEnd, TextDelta
from ikgui.providers import make_provider

#: The LiteLLM release these tests were last run against.
LITELLM = "litellm[proxy]==1.106.2"
OWN_VENV = Path(__file__).resolve().parents[2] / ".venv-litellm"


def litellm_command() -> str | None:
    explicit = os.environ.get("IKGUI_LITELLM")
    if explicit:
        return explicit
    for candidate in (Path(sys.executable).parent / "litellm", OWN_VENV / "bin" / "litellm"):
        if candidate.exists():
            return str(candidate)
    return shutil.which("litellm")


def install_litellm() -> str:
    """Install LiteLLM into its own virtual environment; the path of its command."""
    subprocess.run([sys.executable, "-m", "venv", str(OWN_VENV)], check=True)
    pip = [str(OWN_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    result = subprocess.run([*pip, LITELLM], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(f"could not install {LITELLM}: {result.stderr[-2000:]}")
    return str(OWN_VENV / "bin" / "litellm")


MOCK_TEXT = "Hello from the LiteLLM mock, streamed in pieces."
CONFIG = f"""
model_list:
  - model_name: mock-gpt
    litellm_params:
      model: openai/mock-gpt
      api_key: sk-unused
      mock_response: "{MOCK_TEXT}"
  - model_name: mock-claude
    litellm_params:
      model: anthropic/mock-claude
      api_key: sk-unused
      mock_response: "{MOCK_TEXT}"
general_settings:
  master_key: sk-ikgui-test
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    command = litellm_command() or install_litellm()
    folder = tmp_path_factory.mktemp("litellm")
    config = folder / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    port = free_port()
    log = (folder / "proxy.log").open("w")
    env = dict(os.environ, LITELLM_TELEMETRY="False", LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.Popen(
        [command, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"LiteLLM exited: {(folder / 'proxy.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/health/liveliness", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("LiteLLM did not start within 120 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


async def collect(kind: str, url: str, model: str, key: str = "sk-ikgui-test") -> list[object]:
    provider = make_provider(ProviderSettings("litellm", kind, url), key)
    request = ChatRequest(
        model, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    )
    try:
        return [item async for item in provider.stream(request)]
    finally:
        await provider.aclose()


@pytest.mark.parametrize(
    ("kind", "path", "model"),
    [
        ("openai", "/v1", "mock-gpt"),
        ("anthropic", "", "mock-claude"),
    ],
)
def test_streams_from_litellm(proxy: str, kind: str, path: str, model: str) -> None:
    items = asyncio.run(collect(kind, proxy + path, model))
    text = "".join(i.text for i in items if isinstance(i, TextDelta))
    assert text == MOCK_TEXT
    assert isinstance(items[-1], StreamEnd)


def test_a_rejected_key_is_explained(proxy: str) -> None:
    with pytest.raises(ProviderError) as caught:
        asyncio.run(collect("openai", proxy + "/v1", "mock-gpt", key="sk-wrong"))
    # Without a database LiteLLM answers a wrong key with 400 "No connected db."
    assert caught.value.category in ("auth", "bad_request")
    assert caught.value.status in (400, 401)
    assert "sk-wrong" not in caught.value.message and proxy in caught.value.message
