"""LongMemEval retrieval benchmark through the production remember and search path.

    python -m benchmarks.longmemeval --data PATH --out RESULTS.json \\
        [--limit N] [--types T,...] [--workers N] [--mode bm25,vector,hybrid,ranked]
        [--derived off|on|paired] [--accept auto|all] [--cross-validate TABLE]

For each question: a throwaway organisation; every haystack session is
remembered as one conversation (an episode dated with the session's date,
each turn a chunk with its role); the question is searched, with its date as
``as_of``, once per retrieval mode; the organisation is dropped. Session
rankings are the order in which sessions first appear in the results.
Metrics follow LongMemEval's official session-level semantics (see
``_lme_metrics``). Document vectors come from an on-disk cache under
``benchmarks/out/`` (filled on a miss); query vectors are always computed
live, so the timed search includes the model. Progress goes to stderr; the
last stdout line is one JSON object (the last mode's metrics at top level).

``--cross-validate TABLE`` ranks each question the learned ranker was fitted
on with weights fitted without it (the table ``benchmarks.ranker_fit``
records); questions outside the table use the shipped weights.

``--derived on`` reflects on each haystack with the rules extractor and
promotes candidates (``--accept auto``: the documented auto-accept rule;
``all``: every candidate) before searching, so the ranked mode's derived
signals have records to find (``_lme_derived``); off (the default) searches
raw memory only, as every earlier figure did; ``paired`` runs both arms in
one pass (``ranked`` with the records, ``ranked-raw`` without), so that
their latencies share the machine's load.
"""

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import msgspec

from application.memory.commands import RememberRequest, SearchRequest
from application.memory.service import MemoryService
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.reflection import CandidateStore, GraphStore
from application.retrieval.options import ConversationRecall
from application.retrieval.pipeline import RetrievalMode
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._lme_chats import chat_id
from benchmarks._lme_data import DEFAULT_LME, load_questions, stratified
from benchmarks._lme_derived import (
    ACCEPT_MODES,
    DERIVED_SWITCH,
    RAW_SUFFIX,
    DerivedPhase,
    derived_ingest,
    summarize_derived,
)
from benchmarks._lme_metrics import aggregate
from benchmarks._lme_run import owner_context, run_question
from benchmarks._stats import machine_info
from benchmarks._wiring import make_embedder, make_index
from benchmarks.conversations._options import parse_conversation
from benchmarks.longmemeval_prefill import CACHE_DIR
from benchmarks.ranker_fit import load_folds

__all__ = ["main"]

#: results read per question; sessions are ranked by first appearance in them
SEARCH_LIMIT = 30


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.longmemeval", description=__doc__)
    p.add_argument("--data", type=Path, default=DEFAULT_LME, help="LongMemEval .json or .json.xz")
    p.add_argument("--out", type=Path, required=True, help="per-question rankings (JSON)")
    p.add_argument("--limit", type=int, help="first N questions in stratified type order")
    p.add_argument("--skip", type=int, default=0, help="skip the first N (stratified order)")
    p.add_argument("--types", help="comma-separated question types to keep")
    p.add_argument("--workers", type=int, default=1, help="questions run concurrently")
    p.add_argument(
        "--mode",
        default="ranked",
        help="comma-separated retrieval modes: bm25, vector, hybrid, ranked",
    )
    p.add_argument(
        "--store",
        choices=["surreal", "memory"],
        default="surreal",
        help="SurrealDB embedded mem:// (production store) or the in-memory one",
    )
    p.add_argument("--index", choices=["inprocess", "surreal"], default="inprocess")
    p.add_argument("--no-pack", action="store_true", help="skip the context pack per question")
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=CACHE_DIR,
        help="embedding cache (an empty directory measures a cold run)",
    )
    p.add_argument(
        "--conversation",
        default="on",
        help="conversation-aware retrieval (windows, reply lending, pooled context): "
        "on (the default), off (as before it), or on with NAME=VALUE overrides",
    )
    p.add_argument(
        "--search-limit",
        type=int,
        default=SEARCH_LIMIT,
        help="results read per search; sessions rank by first appearance",
    )
    p.add_argument(
        "--cross-validate",
        type=Path,
        metavar="TABLE",
        help="rank each question of the ranker's training table with weights fitted without it",
    )
    p.add_argument(
        "--derived",
        choices=DERIVED_SWITCH,
        default="off",
        help="reflect and promote each haystack before searching (rules extractor)",
    )
    p.add_argument(
        "--accept",
        choices=ACCEPT_MODES,
        default="auto",
        help="with --derived on: the auto-accept rule, or accept every candidate",
    )
    return p.parse_args(argv)


def _store(kind: str) -> MemoryStore:
    if kind == "memory":
        from adapters.inmemory.memory_store import InMemoryMemoryStore

        return InMemoryMemoryStore()
    from benchmarks._wiring import make_store

    return make_store("mem://")


def _service(
    store: MemoryStore,
    index: RetrievalIndex,
    embedder: Embedder,
    mode: RetrievalMode,
    conversation: ConversationRecall | None = None,
    derived_stores: tuple[CandidateStore, GraphStore] | None = None,
) -> MemoryService:
    from entrypoints.container import make_service

    return make_service(
        store,
        index,
        embedder,
        retrieval_mode=mode,
        conversation=conversation,
        derived_stores=derived_stores,
    )


class _Progress:
    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.started = time.perf_counter()

    def step(self, note: str) -> None:
        self.done += 1
        elapsed = time.perf_counter() - self.started
        eta = elapsed / self.done * (self.total - self.done)
        filled = int(30 * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (30 - filled)
        print(
            f"\r[{bar}] {self.done}/{self.total} {elapsed:.0f}s eta {eta:.0f}s {note}",
            end="" if self.done < self.total else "\n",
            file=sys.stderr,
            flush=True,
        )


async def _warm_up(searchers: dict[str, MemoryService]) -> None:
    """Load the model and tokenizers before anything is timed (the first call pays for it)."""
    org = f"lme-warmup-{uuid.uuid4().hex[:8]}"
    service = next(iter(searchers.values()))
    await service.remember(RememberRequest(org_id=org, content="warm up"), owner_context(org))
    for searcher in searchers.values():
        await searcher.search(
            SearchRequest(org_id=org, query="warming up the model"), owner_context(org)
        )
    await service.drop_organization(org)


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    modes = [RetrievalMode(m.strip()) for m in args.mode.split(",") if m.strip()]
    items = stratified(load_questions(args.data))
    if args.types:
        wanted = {t.strip() for t in args.types.split(",")}
        items = [i for i in items if i["question_type"] in wanted]
    items = items[args.skip :][: args.limit]
    model = make_embedder()
    cached = CachedEmbedder(model, DiskEmbeddingCache(args.cache_dir, model.space))
    before = len(cached._cache)
    store = _store(args.store)
    index = make_index(args.index, store)
    phase: DerivedPhase | None = None
    stores: tuple[CandidateStore, GraphStore] | None = None
    searchers: dict[str, MemoryService] = {}
    options = parse_conversation(args.conversation)
    if args.derived == "off":
        ingest = _service(store, index, cached, RetrievalMode.RANKED, options)
    else:
        ingest, phase = derived_ingest(store, index, cached, args.accept)
        stores = phase.stores

    def searchers_for(conversation: ConversationRecall) -> dict[str, MemoryService]:
        out: dict[str, MemoryService] = {}
        if args.derived == "paired":  # its own (empty) derived stores: raw memory only
            out = {
                m.value + RAW_SUFFIX: _service(store, index, model, m, conversation) for m in modes
            }
        return out | {
            m.value: _service(store, index, model, m, conversation, stores) for m in modes
        }

    searchers = searchers_for(options)
    folds = load_folds(args.cross_validate) if args.cross_validate else None
    await _warm_up(searchers)
    progress = _Progress(len(items))
    gate = asyncio.Semaphore(max(args.workers, 1))
    started = time.perf_counter()

    async def one(item: dict[str, Any]) -> dict[str, Any]:
        async with gate:
            asking = searchers
            group = f"{args.data.name}:{chat_id(item)}"
            if folds is not None and group in folds:
                fold = folds.model_without(group)
                asking = searchers_for(msgspec.structs.replace(options, model=fold))
            record = await run_question(
                item,
                ingest,
                asking,
                cached,
                not args.no_pack,
                args.search_limit,
                phase,
                rotate=args.derived == "paired",
            )
            hit = record["modes"][modes[-1].value]["metrics"]["recall_all@5"]
            progress.step(f"{item['question_type'][:22]:22} all@5={hit:.0f}")
            return record

    try:
        records = await asyncio.gather(*(one(item) for item in items))
    finally:
        await ingest.close()
    wall = time.perf_counter() - started
    summary: dict[str, Any] = {
        "data": str(args.data),
        "questions": len(records),
        "store": args.store,
        "index": args.index,
        "conversation": args.conversation,
        "cross_validated": folds is not None,
        "derived": args.derived if phase is None else f"{args.derived} ({args.accept})",
        "workers": args.workers,
        "wall_s": round(wall, 1),
        "ingest_s": round(sum(r["ingest_s"] for r in records), 1),
        "embedded_new": cached.model_texts,
        "cache_size_before": before,
        "machine": machine_info(),
        "modes": {name: aggregate(records, name) for name in searchers},
    }
    if phase is not None:
        summary["derived_stats"] = summarize_derived(records)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "questions": records}, indent=1))
    return summary


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    summary = asyncio.run(_run(args))
    last = list(summary["modes"])[-1]
    flat = {k: v for k, v in summary["modes"][last].items() if k != "by_type"}
    print(
        json.dumps(
            {
                "mode": last,
                **flat,
                "wall_s": summary["wall_s"],
                "questions": summary["questions"],
                "modes": summary["modes"],
            }
        )
    )


if __name__ == "__main__":
    main()
