"""Generate a synthetic ikgui database at the current schema for the storage benchmarks.

The schema comes from the storage layer (``open_store``); rows are bulk-loaded with raw
``sqlite3`` ``executemany`` (peewee inserts are ~20x slower) and the full-text index is
rebuilt in one pass at the end. Usage::

    python benchmarks/make_db.py PATH [--conversations 10000] [--events 1000000] [--seed 1]

Well-known ids: ``chat-bigg`` has exactly 10,000 events; ``coder-f000`` .. ``coder-f049``
form a 50-deep fork chain (200 own events each, every link forking at its parent's last
event before the fork); the leaf is ``coder-f049``.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ikgui.storage import SCHEMA_VERSION, open_store
from ikgui.storage import search as fts
from ikgui.storage.backfill import Runner, backfill

BIG_ID = "chat-bigg"
BIG_EVENTS = 10_000
CHAIN_DEPTH = 50
CHAIN_OWN = 200
CHAIN_IDS = [f"coder-f{i:03d}" for i in range(CHAIN_DEPTH)]
#: Word pairs for the search benchmark: (typical, common, rare).
SEARCH_QUERIES = ("database migration", "the function", "zymurgy quixotic")


def _words(text: str) -> list[str]:
    return text.split()


AGENTS = [("chat", 0.6), ("coder", 0.2), ("writer", 0.1), ("research", 0.1)]
TAGS = "work personal api rust python sql urgent idea draft review bug design docs travel "
TAGS += "finance health music ops infra frontend backend ml data blog email plan todo"
MODELS = [("ollama", "llama3.1:8b"), ("openai", "gpt-4o-mini"), ("anthropic", "claude-sonnet")]
COMMON = _words(
    "the of and to a in is it you that for was on are with as be this have from or one "
    "had by but not what all were we when your can said there use an each which she do "
    "how their if will up other about out many then them these so some would make like "
    "into time has look two more write go see number no way could people my than first"
)
TOPIC = _words(
    "database migration schema index query table column function variable error server "
    "client request response cache memory thread async await stream token model prompt "
    "context branch commit merge test deploy build config parser compiler runtime module "
    "package library interface protocol network socket buffer latency throughput vector "
    "matrix gradient tensor layer embedding budget invoice meeting deadline recipe garden "
    "travel flight hotel museum novel chapter character poem rhythm melody guitar piano"
)
RARE = ["zymurgy", "quixotic", "sesquipedalian", "defenestration", "callipygian", "borborygmus"]
CODE = [
    "```python\ndef {w}(items):\n    return [x for x in items if x.{v}]\n```",
    "```sql\nSELECT {w}, count(*) FROM {v} GROUP BY {w} ORDER BY 2 DESC;\n```",
    "```js\nconst {w} = async ({v}) => {{\n  const r = await fetch({v});\n"
    "  return r.json();\n}};\n```",
    "```rust\nfn {w}({v}: &str) -> Result<usize, Error> {{\n    Ok({v}.len())\n}}\n```",
]


def _pseudo_words(rng: random.Random, n: int) -> list[str]:
    syll = ["ka", "lo", "mi", "ter", "zu", "ran", "bel", "os", "qui", "ve", "dor", "an", "ix"]
    return ["".join(rng.choices(syll, k=rng.randint(2, 4))) for _ in range(n)]


class Text:
    """Pools of paragraphs, code blocks and user lines, drawn from a Zipf-like vocabulary."""

    def __init__(self, rng: random.Random) -> None:
        vocab = COMMON + TOPIC + _pseudo_words(rng, 6000)
        weights = [1.0 / (i + 1) ** 1.05 for i in range(len(vocab))]
        cum = []
        total = 0.0
        for w in weights:
            total += w
            cum.append(total)
        self.rng = rng

        def sentence(lo: int, hi: int) -> str:
            words = rng.choices(vocab, cum_weights=cum, k=rng.randint(lo, hi))
            if rng.random() < 0.002:
                words.insert(rng.randrange(len(words)), rng.choice(RARE))
            return " ".join(words).capitalize() + rng.choice([".", ".", ".", "?", "!"])

        self.paragraphs = [
            " ".join(sentence(6, 18) for _ in range(rng.randint(1, 4))) for _ in range(5000)
        ]
        self.lines = [sentence(3, 14) for _ in range(5000)]
        self.code = [
            rng.choice(CODE).format(w=rng.choice(TOPIC), v=rng.choice(TOPIC)) for _ in range(300)
        ]

    def user(self) -> str:
        r = self.rng.random()
        if r < 0.6:
            return self.rng.choice(self.lines)
        if r < 0.92:
            return self.rng.choice(self.paragraphs)
        return self.rng.choice(self.lines) + "\n\n" + self.rng.choice(self.code)

    def assistant(self) -> str:
        n = self.rng.choice((1, 2, 2, 3, 3, 3, 4, 5, 8))
        parts = [self.rng.choice(self.paragraphs) for _ in range(n)]
        if self.rng.random() < 0.25:
            parts.insert(self.rng.randint(1, n), self.rng.choice(self.code))
        return "\n\n".join(parts)


def _plan_kinds(
    rng: random.Random, n: int, fork_child: bool, fork_parent: bool, no_clear: bool = False
) -> list[str]:
    """A plausible sequence of ``n`` event kinds (no clears in fork-chain links, nor in
    the big conversation, whose whole length is what its replay benchmark measures)."""
    in_chain = fork_child or fork_parent or no_clear
    kinds: list[str] = []
    if fork_child:
        kinds.append("fork")
    elif rng.random() < 0.1:
        kinds.append("system")
    tail = 1 if fork_parent else 0
    live_marks = 0
    while len(kinds) < n - tail:
        r = rng.random()
        if r < 0.02:
            kinds.append("mark")
            live_marks += 1
        elif r < 0.025 and live_marks:
            kinds.append("rewind")  # to the newest mark, which stays live
        elif r < 0.028 and not in_chain:
            kinds.append("clear")
            live_marks = 0
        elif r < 0.045:
            kinds += ["tool_call", "tool_result"]
        elif r < 0.055:
            kinds.append("command")
        elif r < 0.06:
            kinds.append("prompt_edit")
        elif r < 0.063:
            kinds.append("error")
        else:
            kinds += ["user", "assistant"]
    del kinds[n - tail :]
    if fork_parent:
        kinds.append("fork")
    return kinds


def _event_counts(rng: random.Random, count: int, total: int) -> list[int]:
    """``count`` sizes summing to ``total``: mostly short, a few long (log-normal)."""
    raw = [rng.lognormvariate(3.0, 1.3) for _ in range(count)]
    scale = (total - 2 * count) / sum(raw)
    sizes = [2 + int(x * scale) for x in raw]
    sizes = [min(s, 8000) for s in sizes]
    missing = total - sum(sizes)  # rounding and capping; spread over the short ones
    short = [i for i, s in enumerate(sizes) if s < 8000]
    for k in range(missing):
        sizes[short[k % len(short)]] += 1
    return sizes


def generate(path: Path, conversations: int, events: int, seed: int) -> None:
    started = time.perf_counter()
    if path.exists():
        sys.exit(f"{path} already exists; remove it first.")
    special = BIG_EVENTS + CHAIN_DEPTH * CHAIN_OWN
    others = conversations - 1 - CHAIN_DEPTH
    if others < 1 or events - special < 2 * others:
        sys.exit("Too few conversations or events for the fixed shapes.")
    open_store(path).close()  # the schema, exactly as the app creates it
    rng = random.Random(seed)
    text = Text(rng)

    ids: list[str] = [BIG_ID, *CHAIN_IDS]
    taken = set(ids)
    agents = [BIG_ID.split("-")[0]] + ["coder"] * CHAIN_DEPTH
    while len(ids) < conversations:
        agent = rng.choices([a for a, _ in AGENTS], weights=[w for _, w in AGENTS])[0]
        conv_id = f"{agent}-" + "".join(rng.choices("0123456789abcdefghijklmnopqrstuvwxyz", k=4))
        if conv_id not in taken:
            taken.add(conv_id)
            ids.append(conv_id)
            agents.append(agent)
    sizes = [BIG_EVENTS] + [CHAIN_OWN] * CHAIN_DEPTH + _event_counts(rng, others, events - special)
    assert max(sizes) < 1 << 14 and len(sizes) < 1 << 20  # they share one sort key below
    plans = []
    for c, n in enumerate(sizes):
        link = c - 1 if 1 <= c <= CHAIN_DEPTH else None
        child = link is not None and link > 0
        parent = link is not None and link < CHAIN_DEPTH - 1
        plans.append(_plan_kinds(rng, n, fork_child=child, fork_parent=parent, no_clear=c == 0))

    # Times: two years of history, conversations interleaved; the fork chain is sequential
    # (each link starts after its parent's fork event).
    now = time.time()
    start_of = [now - rng.uniform(0, 730 * 86400) for _ in ids]
    keys: list[int] = []  # (ms << 34) | (conversation << 14) | position: sorts by time
    chain_time = now - 200 * 86400
    for c, n in enumerate(sizes):
        t = chain_time if 1 <= c <= CHAIN_DEPTH else start_of[c]
        start_of[c] = t
        for s in range(n):
            t += rng.uniform(5, 600)
            keys.append((int(t * 1000) << 34) | (c << 14) | s)
        if 1 <= c <= CHAIN_DEPTH:
            chain_time = t + 60
    keys.sort()
    id_of = [[0] * n for n in sizes]
    for event_id, key in enumerate(keys, start=1):
        id_of[(key >> 14) & 0xFFFFF][key & 0x3FFF] = event_id
    print(f"planned {len(keys):,} events in {len(ids):,} conversations", flush=True)

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = off")
    conn.execute("PRAGMA synchronous = off")
    conn.execute("PRAGMA foreign_keys = off")
    conn.execute("BEGIN")
    first_user = [""] * len(ids)
    counts = [0] * len(ids)
    usage = [[0, 0, 0.0] for _ in ids]
    marks: list[list[tuple[int, str | None]]] = [[] for _ in ids]
    batch: list[tuple[int, str, str, str, str | None, float]] = []
    sql = "INSERT INTO event (id, conversation_id, kind, content, data, created_at) VALUES "
    sql += "(?, ?, ?, ?, ?, ?)"
    for event_id, key in enumerate(keys, start=1):
        c, s = (key >> 14) & 0xFFFFF, key & 0x3FFF
        kind = plans[c][s]
        content, data = _content(rng, text, c, s, kind, ids, id_of, marks, usage)
        if kind in ("user", "assistant"):
            counts[c] += 1
            if kind == "user" and not first_user[c]:
                first_user[c] = content
        raw = json.dumps(data) if data else None
        batch.append((event_id, ids[c], kind, content, raw, (key >> 34) / 1000))
        if len(batch) >= 50_000:
            conn.executemany(sql, batch)
            batch.clear()
    conn.executemany(sql, batch)
    print(f"events inserted ({time.perf_counter() - started:.1f}s)", flush=True)

    rows: list[tuple[object, ...]] = []
    tag_rows: list[tuple[str, str]] = []
    tag_pool = TAGS.split()
    for c, conv_id in enumerate(ids):
        created = _time_of(keys, id_of[c][0]) - 1
        updated = _time_of(keys, id_of[c][-1])
        parent_id = CHAIN_IDS[c - 2] if 2 <= c <= CHAIN_DEPTH else None
        fork_at = _fork_point(id_of, plans, c - 1) if parent_id else None
        title = " ".join(first_user[c].split())
        title = title[:50] + "..." if len(title) > 50 else title
        ordinary = c > CHAIN_DEPTH
        trashed = now - rng.uniform(0, 30 * 86400) if ordinary and rng.random() < 0.03 else None
        status = "killed" if ordinary and rng.random() < 0.02 else "active"
        provider, model = rng.choice(MODELS)
        tokens_in, tokens_out, cost = usage[c]
        agent_name = None if agents[c] == "chat" else agents[c]
        rows.append(
            (
                conv_id,
                parent_id,
                fork_at,
                agent_name,
                provider,
                model,
                title or None,
                status,
                trashed,
                created,
                updated,
                int(tokens_in),
                int(tokens_out),
                cost,
                counts[c],
            )
        )
        if rng.random() < 0.3:
            tag_rows.extend((conv_id, name) for name in rng.sample(tag_pool, rng.randint(1, 3)))
    conn.executemany(
        "INSERT INTO conversation (id, parent_id, fork_event_id, agent, provider, model, title, "
        "status, trashed_at, created_at, updated_at, tokens_input, tokens_output, cost, "
        "message_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.executemany("INSERT INTO tag (conversation_id, name) VALUES (?, ?)", tag_rows)
    print(f"conversations inserted ({time.perf_counter() - started:.1f}s)", flush=True)

    # The counts the app stores as it appends, computed by the same domain code.
    def many(sql: str, params: Sequence[Sequence[object]]) -> None:
        conn.executemany(sql, params)

    backfill(Runner(lambda sql, params: conn.execute(sql, params).fetchall(), many))
    print(f"counts stored ({time.perf_counter() - started:.1f}s)", flush=True)
    fts.rebuild(conn)
    conn.execute("COMMIT")
    print(f"full-text index built ({time.perf_counter() - started:.1f}s)", flush=True)
    conn.execute("PRAGMA journal_mode = wal")
    conn.close()
    _report(path, ids, sizes, tag_rows, time.perf_counter() - started)


def _time_of(keys: list[int], event_id: int) -> float:
    return (keys[event_id - 1] >> 34) / 1000


def _fork_point(id_of: list[list[int]], plans: list[list[str]], parent: int) -> int:
    """The parent's last event before its own ``fork`` event."""
    kinds = plans[parent]
    last = len(kinds) - 2 if kinds[-1] == "fork" else len(kinds) - 1
    return id_of[parent][last]


def _content(
    rng: random.Random,
    text: Text,
    c: int,
    s: int,
    kind: str,
    ids: list[str],
    id_of: list[list[int]],
    marks: list[list[tuple[int, str | None]]],
    usage: list[list[float]],
) -> tuple[str, dict[str, object] | None]:
    if kind == "user":
        return text.user(), None
    if kind == "assistant":
        reply = text.assistant()
        inp, out = rng.randint(50, 8000), len(reply) // 4
        cost = round((inp * 0.15 + out * 0.6) / 1e6, 6)
        usage[c][0] += inp
        usage[c][1] += out
        usage[c][2] += cost
        data = {
            "provider": "ollama",
            "model": "llama3.1:8b",
            "usage": {"input": inp, "output": out},
        }
        return reply, {**data, "cost": cost, "finish_reason": "stop"}
    if kind == "system":
        return "You are a helpful assistant. " + rng.choice(text.lines), None
    if kind == "mark":
        label = rng.choice([None, f"step-{s}", f"before {rng.choice(TOPIC)}"])
        marks[c].append((id_of[c][s], label))
        return "", {"label": label}
    if kind == "rewind":
        target, label = marks[c][-1]
        return "", {"target_event_id": target, "target_label": label}
    if kind == "clear":
        marks[c].clear()
        return "", None
    if kind == "tool_call":
        name = rng.choice(["read_file", "search", "run_tests", "http_get"])
        args = {"path": f"src/{rng.choice(TOPIC)}.py"}
        return f"{name}({json.dumps(args)})", {"id": f"call_{s}", "name": name, "arguments": args}
    if kind == "tool_result":
        output = rng.choice(text.paragraphs)
        return output[:120], {
            "tool_call_id": f"call_{s - 1}",
            "name": "tool",
            "output": output,
            "success": True,
        }
    if kind == "prompt_edit":
        prompt = rng.choice(text.lines)
        return f'[user edited prompt to: "{prompt}"]', {"prompt": prompt}
    if kind == "command":
        return "Switched to model: gpt-4o-mini", {
            "input": "/model gpt-4o-mini",
            "ok": True,
            "command": "model",
            "model": "gpt-4o-mini",
        }
    if kind == "error":
        return "Could not connect to http://localhost:11434 (is `ollama serve` running?)", {
            "category": "connect",
            "status": None,
        }
    if kind == "fork":
        if s == 0:
            parent = ids[c - 1]
            return f"Forked from {parent}", {
                "parent_id": parent,
                "fork_event_id": id_of[c - 1][-2],
                "role": "child",
            }
        child = ids[c + 1]
        return f"Forked child {child}", {
            "child_id": child,
            "fork_event_id": id_of[c][s - 1],
            "role": "parent",
        }
    return "", None


def _report(
    path: Path, ids: list[str], sizes: list[int], tags: Sequence[object], took: float
) -> None:
    size = path.stat().st_size
    print(f"\n{path}: schema {SCHEMA_VERSION}, {size / 1e6:,.1f} MB, made in {took:.1f}s")
    print(f"  conversations: {len(ids):,}  events: {sum(sizes):,}  tags: {len(tags):,}")
    short = sum(1 for n in sizes if n <= 20)
    print(
        f"  sizes: {short:,} with <= 20 events, {sum(1 for n in sizes if n > 500):,} with > 500,"
        f" largest {max(sizes):,}"
    )
    print(f"  10,000-event conversation: {BIG_ID}")
    print(f"  50-deep fork chain: root {CHAIN_IDS[0]}, leaf {CHAIN_IDS[-1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.path, args.conversations, args.events, args.seed)


if __name__ == "__main__":
    main()
