"""Writes interleaved with searches in one in-process index: caches followed or dropped.

    python -m benchmarks.cache_follow --rows 1000000 --writes 200

Why: a write used to drop every per-filter cache of the organisation's index (the
filter's row mask, the episode leg's group totals and plan), so the search after
it rebuilt them over every row; now a write moves them by the rows it changed
(``adapters/inprocess/cache_follow.py``), at the first lookup after them (so the
write itself only notes its rows, and the search pays the move). This isolates
that trade from the rest
of the service (store, embedder, ranker): one index of ``--rows`` chunks
(LongMemEval turns cut like the chunker, then varied turns:
``benchmarks._snapshot_rows.chunk_texts``) in episodes of three, its episode
postings built, then ``--writes`` rounds of one write (a new one-chunk source,
or one more chunk of an older source, or a source hidden then reopened, in
turn) followed by one search through the index's legs (turn and episode BM25,
episode members, candidate texts) under one reader's filter. Rounds alternate
between the arms, on the same index: **follow** (the product's behaviour) and
**drop** (every cache dropped at the write, as before). The CPU time of the
write and of the search are this thread's (``time.thread_time``), so other
processes' load does not count. No vectors: the vector legs do not read the
followed caches (their admitted bitmap is rebuilt either way). Prints one JSON
object.
"""

import argparse
import asyncio
import json
import random
import time
from pathlib import Path

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._stats import code_version, machine_info, progress, summarize

__all__ = ["main", "run"]

_ARMS = ("follow", "drop")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cache_follow", description=__doc__)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--writes", type=int, default=200, help="write + search rounds (both arms)")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args(argv)


async def _run(args: argparse.Namespace) -> dict[str, object]:
    from adapters.inprocess.index import InProcessIndex, _OrgIndex
    from application.ports.records import CandidateFilter, IndexEntry
    from benchmarks._snapshot_rows import chunk_texts
    from domain.lifecycle import RECALL_CLOSED, RECALL_OPEN
    from domain.query_terms import meaningful_query
    from domain.scopes import LifecycleState, MemoryScope

    code = code_version()
    corpus = load_corpus(args.data)
    texts = chunk_texts(list(corpus.turns), args.rows + args.writes)
    rng = random.Random(args.seed)

    def entry(row: int, source: int, text: str) -> IndexEntry:
        return IndexEntry(
            chunk_id=f"c{row}",
            source_id=f"s{source}",
            text=text,
            vector=None,
            scope=MemoryScope.PRIVATE,
            scope_key=None,
            turn_index=row % 3,
        )

    index = InProcessIndex(ann_policy=None)
    began = time.process_time()
    block = 50_000
    for start in range(0, args.rows, block):
        rows = range(start, min(args.rows, start + block))
        await index.add("o", [entry(r, r // 3, texts[r]) for r in rows])
    org: _OrgIndex = index._orgs["o"]
    org.episodes.sync_below = 1 << 40  # the build in this thread, before timing
    build_s = time.process_time() - began
    progress(f"index of {args.rows} rows in {build_s:.1f} CPU-s")
    where = CandidateFilter()
    questions = [meaningful_query(q) for q in corpus.questions]
    follow = org._follow

    def drop(changed: object) -> None:
        org.cache.invalidate()

    async def search(query: str) -> None:
        await index.lexical("o", query, 50, where)
        found = await index.episode_lexical("o", query, 20, where)
        await index.episode_members("o", [h.item_id for h in found], where)
        await index.candidate_texts("o", org.ids[-200:], where)

    await search(questions[0])  # the postings build and the first caches: not timed
    cpu: dict[str, dict[str, list[float]]] = {a: {"write": [], "search": []} for a in _ARMS}
    row, source = args.rows, args.rows // 3 + 1
    for n in range(args.writes):
        arm = _ARMS[n % 2]
        setattr(org, "_follow", follow if arm == "follow" else drop)  # noqa: B010
        kind = (n // 2) % 3
        began = time.thread_time()
        if kind == 0:  # a new one-chunk source (a remembered turn)
            await index.add("o", [entry(row, source, texts[row])])
            row, source = row + 1, source + 1
        elif kind == 1:  # one more chunk of an older source (a conversation goes on)
            await index.add("o", [entry(row, rng.randrange(args.rows // 3), texts[row])])
            row += 1
        else:  # a source hidden, then open again (a lifecycle change and its undo)
            hidden = f"s{rng.randrange(args.rows // 3)}"
            await index.update("o", hidden, LifecycleState.HIDDEN, RECALL_CLOSED)
            await index.update("o", hidden, LifecycleState.ACTIVE, RECALL_OPEN)
        cpu[arm]["write"].append((time.thread_time() - began) * 1000)
        began = time.thread_time()
        await search(questions[1 + n % (len(questions) - 1)])
        cpu[arm]["search"].append((time.thread_time() - began) * 1000)
    setattr(org, "_follow", follow)  # noqa: B010
    return {
        "rows": args.rows,
        "episodes": len(org.source_ids),
        "writes": args.writes,
        "index_build_cpu_s": round(build_s, 1),
        "cpu_ms": {a: {k: summarize(v) for k, v in cpu[a].items()} for a in _ARMS},
        "machine": machine_info(),
        "code": code,
    }


def run(args: argparse.Namespace) -> dict[str, object]:
    return asyncio.run(_run(args))


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(run(_parse(argv)), separators=(",", ":")))


if __name__ == "__main__":
    main()
