"""Attached files on the wire (SPEC §13, issue 24 item 4), against the real local wire
server, which records each request: images as OpenAI ``image_url`` data URLs, Anthropic
``image`` blocks and Ollama ``images``; PDFs as Anthropic ``document`` blocks and as
their text elsewhere; text files as a text part naming the file. A model that refuses a
file's type gives one plain error naming the model and the type."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest

from ikgui.domain.attachments import Attachment, StoredFile
from ikgui.domain.streaming import ChatRequest
from ikgui.files import checked
from tests.providers.test_clients import CHAT_PATHS, KINDS, collect, provider, stream_reply, text
from tests.support import sample_files
from tests.support.wire_server import Reply, WireServer

pytestmark = pytest.mark.asyncio

SHOT = checked("shot.png", sample_files.png(32, 16))
REPORT = checked("report.pdf", sample_files.pdf("Revenue rose 12 percent"))
NOTES = checked("notes.md", b"# Plan\n- ship it\n")
GONE = Attachment(hashlib.sha256(b"gone").hexdigest(), "old.csv", "text/csv", 4)
ASK = "What do these say?"


def request(*files: StoredFile | Attachment) -> ChatRequest:
    return ChatRequest(
        "vision-1",
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": ASK, "files": list(files), "attachments": []},
        ],
    )


def b64(file: StoredFile) -> str:
    return base64.b64encode(file.content).decode()


def notes_text() -> str:
    return '<file name="notes.md" type="text/markdown">\n# Plan\n- ship it\n\n</file>'


def report_text() -> str:
    return '<file name="report.pdf" type="application/pdf">\nRevenue rose 12 percent\n</file>'


async def sent(server: WireServer, kind: str, *files: StoredFile | Attachment) -> Any:
    server.route(CHAT_PATHS[kind], stream_reply(kind))
    items, error = await collect(provider(kind, server.url), request(*files))
    assert error is None and text(items)
    return server.requests[-1].json()


async def test_openai_content_parts(wire_server: WireServer) -> None:
    body = await sent(wire_server, "openai", SHOT, REPORT, NOTES, GONE)
    system, user = body["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    assert user == {
        "role": "user",
        "content": [
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(SHOT)}"}},
            {"type": "text", "text": report_text()},
            {"type": "text", "text": notes_text()},
            {"type": "text", "text": '<file name="old.csv">(this file is no longer stored)</file>'},
            {"type": "text", "text": ASK},
        ],
    }
    # Byte for byte: the image the model receives is the file that was attached.
    url = user["content"][0]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == SHOT.content


async def test_anthropic_image_and_document_blocks(wire_server: WireServer) -> None:
    body = await sent(wire_server, "anthropic", SHOT, REPORT, NOTES)
    assert body["system"] == "Be brief."
    [user] = body["messages"]
    assert user == {
        "role": "user",
        "content": [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": b64(SHOT)},
            },
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": b64(REPORT)},
                "title": "report.pdf",
            },
            {"type": "text", "text": notes_text()},
            {"type": "text", "text": ASK},
        ],
    }


async def test_ollama_images_and_text(wire_server: WireServer) -> None:
    body = await sent(wire_server, "ollama", SHOT, REPORT, NOTES)
    system, user = body["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    assert user == {
        "role": "user",
        "content": f"{report_text()}\n\n{notes_text()}\n\n{ASK}",
        "images": [b64(SHOT)],
    }


@pytest.mark.parametrize("kind", KINDS)
async def test_a_request_without_files_is_unchanged(wire_server: WireServer, kind: str) -> None:
    body = await sent(wire_server, kind)
    assert json.dumps(body).count("files") == 0 and "attachments" not in json.dumps(body)


# What real servers answer when the model cannot read a file's type.
REFUSALS = [
    (
        "openai",
        400,
        {
            "error": {
                "message": "Invalid content type. image_url is only supported by certain models.",
                "type": "invalid_request_error",
            }
        },
        "images",
    ),
    (
        "openai",  # llama.cpp's llama-server started without a projector
        500,
        {
            "error": {
                "code": 500,
                "message": "image input is not supported - hint: if this is unexpected, "
                "you may need to provide the mmproj",
                "type": "server_error",
            }
        },
        "images",
    ),
    (
        "anthropic",
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "This model does not support PDF input.",
            },
        },
        "PDF documents",
    ),
    (
        "ollama",
        500,
        {
            "error": "Failed to create new sequence: failed to process inputs: this model "
            "is missing data required for image input"
        },
        "images",
    ),
]


@pytest.mark.parametrize(("kind", "status", "body", "kind_name"), REFUSALS)
async def test_a_model_that_refuses_a_type_says_which(
    wire_server: WireServer, kind: str, status: int, body: dict[str, Any], kind_name: str
) -> None:
    wire_server.route(CHAT_PATHS[kind], Reply.json(body, status=status))
    _, error = await collect(provider(kind, wire_server.url), request(SHOT, REPORT))
    assert error is not None
    assert error.what.startswith(f'The model "vision-1" at {wire_server.url}')
    assert f"cannot read {kind_name} (HTTP {status}: " in error.what
    assert "\n" not in error.message and error.category == "bad_request"
    assert error.advice is not None and error.advice.key == "file_type"
    assert f"Choose a model that reads {kind_name} with /model and retry" in error.message


async def test_other_refusals_are_not_taken_for_a_files_type(wire_server: WireServer) -> None:
    overflow = {"error": {"message": "the request exceeds the available context size"}}
    wire_server.route(CHAT_PATHS["openai"], Reply.json(overflow, status=400))
    _, error = await collect(provider("openai", wire_server.url), request(SHOT))
    assert error is not None and error.advice is not None and error.advice.key == "shorten"
    # Without files, a refusal that speaks of images is the server's own words.
    refusal = REFUSALS[0][2]
    wire_server.route(CHAT_PATHS["openai"], Reply.json(refusal, status=400))
    _, error = await collect(provider("openai", wire_server.url), request())
    assert error is not None and (error.advice is None or error.advice.key != "file_type")


async def test_a_large_image_is_encoded_off_the_loop_and_arrives_whole(
    wire_server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from ikgui.providers import HTTPProvider

    big = checked("big.png", sample_files.noisy_png(5_000_000))
    threads: list[bool] = []
    real = HTTPProvider.encoded

    def encoded(self: HTTPProvider, req: ChatRequest) -> bytes:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(self, req)

    monkeypatch.setattr(HTTPProvider, "encoded", encoded)
    body = await sent(wire_server, "ollama", big)
    assert threads == [False]  # encoded in a worker thread, once
    assert base64.b64decode(body["messages"][1]["images"][0]) == big.content


async def test_the_body_says_its_length_before_it_encodes_the_files() -> None:
    from ikgui.domain.settings import ProviderSettings
    from ikgui.providers import make_provider

    for size in (0, 1, 2, 3, 4, 786_431, 786_432, 786_433, 2_000_001):
        file = StoredFile(SHOT.attachment, bytes(range(256)) * (size // 256) + b"x" * (size % 256))
        prov = make_provider(ProviderSettings("p", "anthropic", "http://127.0.0.1:9"))
        body = prov.encoded(request(file))
        whole = body.whole()
        assert body.length == len(whole)
        sent = json.loads(whole)["messages"][0]["content"][0]["source"]["data"]
        assert base64.b64decode(sent) == file.content
