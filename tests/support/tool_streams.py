"""Model replies that ask for tools, in each provider's documented wire form (SPEC §12),
for the wire server to stream: OpenAI's ``tool_calls`` deltas, Anthropic's ``tool_use``
blocks with ``input_json_delta`` pieces, Ollama's whole ``message.tool_calls``.

A :class:`Model` answers each request with the next of its replies, so a test can play
a model that asks for a tool, reads the result and answers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tests.support.wire_server import CONTENT_TYPES, ReceivedRequest, Reply

#: One call a reply asks for: (id, name the model saw, arguments as a JSON text — cut
#: into pieces as the stream sends them, and possibly not JSON at all).
Call = tuple[str, str, str]


#: What every chunk of an OpenAI stream carries beside its choices.
_CHUNK = {"id": "chatcmpl-tools", "object": "chat.completion.chunk", "created": 1764201600}


def _sse(chunks: Sequence[Any], done: bool = True, model: str = "mock-gpt") -> bytes:
    chunks = [{**_CHUNK, "model": model, **chunk} for chunk in chunks]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def openai_calls(*calls: Call, text: str = "") -> bytes:
    """An OpenAI chat-completions stream: optional text, then each call's id and name in
    its first delta and its arguments in pieces, by index; ``finish_reason: tool_calls``."""
    chunks: list[Any] = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    if text:
        chunks.append({"choices": [{"index": 0, "delta": {"content": text}}]})
    for index, (call_id, name, arguments) in enumerate(calls):
        first = {"index": index, "id": call_id, "type": "function"}
        first["function"] = {"name": name, "arguments": ""}
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [first]}}]})
        for piece in _pieces(arguments):
            delta = {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            chunks.append({"choices": [{"index": 0, "delta": delta}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 9}})
    return _sse(chunks)


def openai_text(text: str) -> bytes:
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in _pieces(text, 5)
    ]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 4}})
    return _sse(chunks)


def _event(name: str, value: Any) -> str:
    return f"event: {name}\ndata: {json.dumps(value)}\n\n"


def anthropic_calls(*calls: Call, text: str = "") -> bytes:
    """An Anthropic Messages stream: optional text block, then one ``tool_use`` block per
    call whose input arrives as ``input_json_delta`` pieces; ``stop_reason: tool_use``."""
    message = {
        "id": "msg_tools",
        "type": "message",
        "role": "assistant",
        "model": "tiny",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 20, "output_tokens": 1},
    }
    out = [_event("message_start", {"type": "message_start", "message": message})]
    index = 0
    if text:
        block = {"type": "text", "text": ""}
        out.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            )
        )
        delta = {"type": "text_delta", "text": text}
        out.append(
            _event(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            )
        )
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for call_id, name, arguments in calls:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        out.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        )
        for piece in _pieces(arguments):
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append(
                _event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    out.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
        )
    )
    out.append(_event("message_stop", {"type": "message_stop"}))
    return "".join(out).encode()


def anthropic_text(text: str) -> bytes:
    message = {
        "id": "msg_text",
        "type": "message",
        "role": "assistant",
        "model": "tiny",
        "content": [],
        "usage": {"input_tokens": 30, "output_tokens": 1},
    }
    block = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": text}
    return "".join(
        [
            _event("message_start", {"type": "message_start", "message": message}),
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
            _event(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            ),
            _event("content_block_stop", {"type": "content_block_stop", "index": 0}),
            _event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": 4},
                },
            ),
            _event("message_stop", {"type": "message_stop"}),
        ]
    ).encode()


def ollama_calls(*calls: Call, text: str = "") -> bytes:
    """An Ollama ``/api/chat`` stream: the calls whole in one line's
    ``message.tool_calls`` (arguments as objects), then the ``done`` line."""
    wire_calls = []
    for _call_id, name, arguments in calls:
        wire_calls.append({"function": {"name": name, "arguments": json.loads(arguments)}})
    lines = []
    if text:
        lines.append(
            {"model": "tiny", "message": {"role": "assistant", "content": text}, "done": False}
        )
    lines.append(
        {
            "model": "tiny",
            "message": {"role": "assistant", "content": "", "tool_calls": wire_calls},
            "done": False,
        }
    )
    lines.append(
        {
            "model": "tiny",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 20,
            "eval_count": 9,
        }
    )
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def ollama_text(text: str) -> bytes:
    lines = [
        {"model": "tiny", "message": {"role": "assistant", "content": text}, "done": False},
        {
            "model": "tiny",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 30,
            "eval_count": 4,
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


class Model:
    """Answers each request with the next reply (the last one again when they run out),
    and keeps every request's body."""

    def __init__(self, kind: str, *bodies: bytes) -> None:
        self.kind = kind
        self.bodies = list(bodies)
        self.seen: list[Any] = []

    def __call__(self, request: ReceivedRequest) -> Reply:
        self.seen.append(request.json())
        body = self.bodies[min(len(self.seen), len(self.bodies)) - 1]
        headers = (("content-type", CONTENT_TYPES[self.kind]),)
        return Reply(body=body, headers=headers, chunk_size=11)
