"""Search latency with ``filters`` vs none, through MemoryService on embedded SurrealDB.

    python -m benchmarks.filters --chunks 10000 [--index inprocess|surreal] [--queries 200]

Fills a fresh surrealkv store with real LongMemEval turns through ``remember``
itself (the real write path; the chunks' vectors are put in the store's
embedding cache first, real MiniLM vectors for the first ``--embed-real`` chunk
texts and perturbed copies for the rest, so the fill never waits on the
model). Each source gets synthetic but plausible facets: a type (40 % email,
30 % conversation, 30 % note), a sender out of 200 people for mail, two labels
out of 20 and a time over 36 months. Then the same real questions are searched
(limit 10) under each filter shape; every query vector is embedded once before
timing, so each arm measures retrieval, policy and re-check, not the model.
Progress goes to stderr; the figures are one JSON object on the last line.
"""

import argparse
import asyncio
import json
import random
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from application.memory.commands import RememberRequest, SearchRequest
from application.memory.filters import FiltersSpec, parse_filters
from application.memory.limits import MAX_CONTENT_CHARS
from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._phases import authorized
from benchmarks._stats import code_version, machine_info, progress, summarize
from benchmarks._vectors import VectorCache, fill_vectors
from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key
from domain.chunking import split_into_chunks
from domain.hashing import content_hash
from domain.models import MetadataValue
from domain.policy import Surface
from domain.scopes import SourceType
from domain.visible_text import has_visible_text

__all__ = ["main"]

OUT_DIR = Path(__file__).resolve().parent / "out"
START = datetime(2022, 1, 1, tzinfo=UTC)
MONTHS = 36
PEOPLE = 200
LABELS = 20
#: filter shapes, from none to a person's typical one ("mail from X in <a year>")
ARMS: dict[str, dict[str, Any] | None] = {
    "none": None,
    "sender": {"participants": {"from": "person7"}},
    "email_one_year": {
        "source_type": ["email"],
        "occurred_at": {"from": "2023-01-01", "to": "2023-12-31"},
    },
    "email_from_sender_in_a_year": {
        "source_type": ["email"],
        "participants": {"from": "person7@example.org"},
        "occurred_at": {"from": "2023-01-01", "to": "2023-12-31"},
    },
    "label": {"metadata": {"labels": "label3"}},
}


def _facets(rng: random.Random) -> tuple[SourceType, dict[str, MetadataValue], datetime]:
    roll = rng.random()
    kind = (
        SourceType.EMAIL
        if roll < 0.4
        else SourceType.CONVERSATION
        if roll < 0.7
        else SourceType.NOTE
    )
    metadata: dict[str, MetadataValue] = {
        "labels": [f"label{n}" for n in rng.sample(range(LABELS), 2)]
    }
    if kind is SourceType.EMAIL:
        person = rng.randrange(PEOPLE)
        metadata["from"] = [f"Person{person} <person{person}@example.org>"]
    when = START + timedelta(seconds=rng.randrange(MONTHS * 30 * 86400))
    return kind, metadata, when


async def _fill(
    args: argparse.Namespace, url: str, turns: list[str]
) -> tuple[list[str], dict[str, Any]]:
    """Remember turns until ``--chunks`` chunks; returns the turns used and fill figures."""
    used: list[str] = []
    texts: list[str] = []
    for turn in turns:
        if len(texts) >= args.chunks:
            break
        if not has_visible_text(turn) or len(turn) > MAX_CONTENT_CHARS:
            continue  # remember refuses these
        used.append(turn)
        texts.extend(span.text for span in split_into_chunks(turn))
    embedder = make_embedder()
    vectors = await fill_vectors(
        embedder,
        VectorCache(OUT_DIR / "vectors", embedder.space.model, embedder.space.dimension),
        texts,
        args.embed_real,
        args.sigma,
    )
    store = make_store(url)
    index = make_index(args.index, store)
    services = make_services(store, index, embedder, args.org)
    try:
        await services.open(Surface.API)
        key = await owner_key(services)
        policy = await authorized(services, key)
        cache = {
            content_hash(t): [float(x) for x in vectors.matrix[i]] for i, t in enumerate(texts)
        }
        items = list(cache.items())
        for start in range(0, len(items), 500):
            await store.cache_embeddings(
                args.org, embedder.space.model, dict(items[start : start + 500])
            )
        rng = random.Random(args.seed)
        began = time.perf_counter()
        for start in range(0, len(used), args.fill_concurrency):
            batch = []
            for turn in used[start : start + args.fill_concurrency]:
                kind, metadata, when = _facets(rng)
                batch.append(
                    RememberRequest(
                        org_id=args.org,
                        content=turn,
                        source_type=kind,
                        metadata=metadata,
                        occurred_at=when,
                    )
                )
            await asyncio.gather(*(services.memory.remember(r, policy) for r in batch))
            if start % 2000 < args.fill_concurrency:
                progress(f"  remembered {start + len(batch)}/{len(used)} turns")
        seconds = time.perf_counter() - began
        chunks = await store.count_chunks(args.org)
    finally:
        await services.close()
    return used, {
        "sources": len(used),
        "chunks": chunks,
        "fill_seconds": round(seconds, 1),
        "real_vectors": vectors.real,
        "perturbed_vectors": vectors.perturbed,
    }


async def _measure(args: argparse.Namespace, url: str, questions: list[str]) -> dict[str, Any]:
    embedder = make_embedder()
    store = make_store(url)
    index = make_index(args.index, store)
    services = make_services(store, index, embedder, args.org)
    out: dict[str, Any] = {}
    try:
        await services.open(Surface.API)
        key = await owner_key(services)
        filters = {
            name: parse_filters(
                None if spec is None else msgspec.json.decode(json.dumps(spec), type=FiltersSpec)
            )
            for name, spec in ARMS.items()
        }
        for query in questions:  # every query vector embedded once, before any timing
            await services.memory.search(
                SearchRequest(org_id=args.org, query=query, limit=10),
                await authorized(services, key),
            )
        samples: dict[str, list[float]] = {name: [] for name in ARMS}
        hits: dict[str, int] = dict.fromkeys(ARMS, 0)
        order = list(ARMS)
        for n, query in enumerate(questions):
            order = order[1:] + order[:1]  # rotate, so no arm always runs first
            for name in order:
                request = SearchRequest(
                    org_id=args.org, query=query, limit=10, filters=filters[name]
                )
                policy = await authorized(services, key)
                began = time.perf_counter()
                found = await services.memory.search(request, policy)
                samples[name].append((time.perf_counter() - began) * 1000)
                hits[name] += len(found.results)
            if (n + 1) % 50 == 0:
                progress(f"  searched {n + 1}/{len(questions)} questions x {len(ARMS)} arms")
        for name in ARMS:
            out[name] = {
                **summarize(samples[name]),
                "mean_hits": round(hits[name] / max(len(questions), 1), 2),
                "filters": ARMS[name],
            }
    finally:
        await services.close()
    return out


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    corpus = load_corpus(args.data)
    rng = random.Random(args.seed)
    turns = corpus.turns[:]
    rng.shuffle(turns)
    directory = Path(tempfile.mkdtemp(prefix="tessera-filters-"))
    url = f"surrealkv://{directory / 'db'}"
    try:
        progress(f"filling {args.chunks} chunks ({args.index} index)")
        _, fill = await _fill(args, url, turns)
        progress(f"searching {args.queries} questions under {len(ARMS)} filter shapes")
        arms = await _measure(args, url, corpus.questions[: args.queries])
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {
        "benchmark": "filters",
        "index": args.index,
        "fill": fill,
        "queries": args.queries,
        "arms": arms,
        "machine": machine_info(),
        "code": code_version(),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.filters", description=__doc__)
    p.add_argument("--chunks", type=int, default=10_000)
    p.add_argument("--index", choices=["inprocess", "surreal"], default="inprocess")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--embed-real", type=int, default=500)
    p.add_argument("--sigma", type=float, default=0.02)
    p.add_argument("--fill-concurrency", type=int, default=1)
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument("--org", default="bench")
    p.add_argument("--seed", type=int, default=7)
    print(json.dumps(asyncio.run(_main(p.parse_args(argv)))))


if __name__ == "__main__":
    main()
