"""Optional: the OpenAI and Anthropic providers against a real LiteLLM proxy.

Runs when a ``litellm`` command is found (``.venv/bin/pip install 'litellm[proxy]'``, or
``IKGUI_LITELLM=/path/to/litellm``); otherwise skipped with the reason. The proxy is
started on 127.0.0.1 with ``mock_response`` models, so nothing leaves the machine.
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


def litellm_command() -> str | None:
    explicit = os.environ.get("IKGUI_LITELLM")
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / "litellm"
    return str(beside) if beside.exists() else shutil.which("litellm")


COMMAND = litellm_command()
pytestmark = pytest.mark.skipif(
    COMMAND is None,
    reason="LiteLLM is not installed (pip install 'litellm[proxy]' to run these)",
)
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
    assert COMMAND is not None
    folder = tmp_path_factory.mktemp("litellm")
    config = folder / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    port = free_port()
    log = (folder / "proxy.log").open("w")
    env = dict(os.environ, LITELLM_TELEMETRY="False", LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.Popen(
        [COMMAND, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
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
