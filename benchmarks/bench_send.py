"""The full send path: a ~50 MB recorded-style stream from a local server, through the
provider and the session, into a real SQLite database.

    .venv/bin/python benchmarks/bench_send.py [--mb 50] [--rounds 50]

Prints, per provider format, MB/s and microseconds per delta for the whole path
(parse, listeners, saving the growing reply every second, the final write), and the
time from the server's first body byte to the first delta handed to a session
listener (the UI layer's entry point), next to a bare httpx read of the same reply.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import httpx  # noqa: E402
from bench_parsers import CHAT_PATHS, big_body  # noqa: E402

from ikgui.app.wiring import Providers  # noqa: E402
from ikgui.domain.session.session import Session, SessionEvent  # noqa: E402
from ikgui.domain.settings import ProviderSettings, Settings  # noqa: E402
from ikgui.storage import open_store  # noqa: E402
from tests.support.wire_server import Reply, WireServer  # noqa: E402

CONTENT_TYPES = {
    "openai": "text/event-stream",
    "anthropic": "text/event-stream",
    "ollama": "application/x-ndjson",
}


def session_for(kind: str, server: WireServer, db: Path) -> Session:
    settings = Settings(default_provider="p", default_model="m")
    url = server.url + ("/v1" if kind == "openai" else "")
    settings.providers["p"] = ProviderSettings("p", kind, url)
    return Session(open_store(db), settings, provider_factory=Providers(settings))


def full_path(kind: str, megabytes: float, server: WireServer, folder: Path) -> None:
    body, _ = big_body(kind, megabytes)
    server.route(
        CHAT_PATHS[kind],
        Reply(body=body, chunk_size=64 * 1024, headers=(("content-type", CONTENT_TYPES[kind]),)),
    )
    session = session_for(kind, server, folder / f"{kind}.db")
    seen = 0

    def listen(fact: SessionEvent) -> None:
        nonlocal seen
        if fact.name == "delta_received":
            seen += 1

    session.subscribe(listen)
    start = time.perf_counter()
    reply = asyncio.run(session.send("go"))
    elapsed = time.perf_counter() - start
    assert reply is not None and seen > 0
    session.store.close()  # type: ignore[attr-defined]
    print(
        f"  {kind:9} {len(body) / 1e6 / elapsed:7.1f} MB/s  "
        f"{elapsed / seen * 1e6:6.2f} us/delta  ({seen:,} deltas, reply "
        f"{len(reply.content) / 1e6:.1f} MB saved)"
    )


async def first_delta(kind: str, server: WireServer, folder: Path, rounds: int) -> None:
    body, _ = big_body(kind, 0.01)
    reply = Reply(
        body=body,
        chunk_size=4096,
        first_byte_delay=0.02,
        headers=(("content-type", CONTENT_TYPES[kind]),),
    )
    server.route(CHAT_PATHS[kind], reply)
    session = session_for(kind, server, folder / f"latency-{kind}.db")
    url = server.url + CHAT_PATHS[kind]
    ours, bare = [], []
    got: list[float] = []
    session.subscribe(
        lambda f: (
            got.append(time.perf_counter()) if f.name == "delta_received" and not got else None
        )
    )
    async with httpx.AsyncClient() as client:
        for _ in range(rounds):
            got.clear()
            server.first_byte_times.clear()
            await session.send("go")
            ours.append(got[0] - server.first_byte_times[0])
            server.first_byte_times.clear()
            async with client.stream("POST", url, json={"model": "m"}) as response:
                async for _chunk in response.aiter_raw():
                    bare.append(time.perf_counter() - server.first_byte_times[0])
                    break
    session.store.close()  # type: ignore[attr-defined]
    a, b = statistics.median(ours) * 1e6, statistics.median(bare) * 1e6
    print(f"  {kind:9} session listener {a:7.0f} us   bare httpx {b:7.0f} us   ratio {a / b:4.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    with WireServer() as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"full send path, {args.mb:g} MB stream to the database:")
        for kind in ("openai", "anthropic", "ollama"):
            full_path(kind, args.mb, server, folder)
        print("server's first body byte -> first delta (median):")
        for kind in ("openai", "anthropic", "ollama"):
            asyncio.run(first_delta(kind, server, folder, args.rounds))


if __name__ == "__main__":
    main()
