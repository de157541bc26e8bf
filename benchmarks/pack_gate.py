"""The relevance gate: how often it closes searches and packs, asked by memory's own questions
and by questions it holds nothing about.

    python -m benchmarks.pack_gate [--fixture PATH] [--cache-dir DIR]

Each conversation of the conversation fixture (benchmarks/conversations; or
real chats in the LoCoMo layout, ``--fixture PATH.json.xz``) is remembered
into its own organisation, as ``benchmarks.conversations`` does, and asked
three sets of questions, each with ``search`` (limit 10) and
``context_pack`` at the default budget: its own questions (memory is about
them: the gate should never close, and evidence recall must stay what the
conversation benchmark reports), the off-domain questions below (nothing in
a chat between friends is about them), and nonsense (no word of it is in
memory). Prints one JSON object: per set, how many searches and packs the
gate closed, mean pack items kept and left out, and (own set) search
recall@10 and pack evidence recall.
"""

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from application.memory.commands import ContextRequest, SearchRequest
from application.memory.limits import DEFAULT_PACK_BUDGET
from application.retrieval.pipeline import RetrievalMode
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._lme_run import owner_context
from benchmarks._stats import code_version, machine_info, progress
from benchmarks._wiring import make_embedder, make_index, make_store
from benchmarks.conversations._locomo import is_locomo, load_locomo
from benchmarks.conversations._run import SEARCH_LIMIT, ingest
from benchmarks.conversations.generate import FIXTURE
from benchmarks.longmemeval_prefill import CACHE_DIR

__all__ = ["NONSENSE", "OFF_DOMAIN", "main"]

#: questions no conversation of the fixture is about (none mentions these subjects)
OFF_DOMAIN = (
    "How do I configure the Kubernetes ingress controller for TLS?",
    "Which firmware version does the edge router run?",
    "What is the torque spec for the cylinder head bolts?",
    "Explain the CAP theorem trade-offs for the billing database.",
    "What was the p99 latency of the payments API last sprint?",
    "Which mitochondrial haplogroup did the sequencing report show?",
    "What is the VAT registration number on supplier invoices?",
    "How many replicas does the Kafka topic have?",
    "What did the auditor say about the depreciation schedule?",
    "Which compiler flags fixed the segfault in the parser?",
    "What is the half-life of the isotope used in the assay?",
    "Who signed off the quarterly SOC 2 evidence?",
    "What is the interest rate on the commercial mortgage?",
    "Which GPU driver version broke the CUDA build?",
    "What is the lease term for the warehouse in Rotterdam?",
    "How is the Terraform state file locked?",
)
#: word salad: a person testing whether search admits it knows nothing
NONSENSE = (
    "xylophone quantum banana",
    "purple elephant calculus",
    "zebra carburetor sonnet",
    "asdf qwerty zxcv",
    "lorem ipsum dolor sit amet",
    "glorp fnord blivet",
    "marmalade trombone satellite",
    "flibbertigibbet",
)


async def _ask(service: Any, org: str, query: str, as_of: Any = None) -> tuple[Any, Any]:
    ctx = owner_context(org)
    found = await service.search(
        SearchRequest(org_id=org, query=query, as_of=as_of, limit=SEARCH_LIMIT), ctx
    )
    pack = await service.context_pack(
        ContextRequest(org_id=org, query=query, as_of=as_of, token_budget=DEFAULT_PACK_BUDGET),
        ctx,
    )
    return found, pack


def _turns(turn_of: dict[tuple[str, int], str], hits: Any) -> set[str]:
    found = (turn_of.get((h.source_id, -1 if h.turn_index is None else h.turn_index)) for h in hits)
    return {t for t in found if t is not None}


def _row(found: Any, pack: Any) -> dict[str, Any]:
    return {
        "search_closed": found.reason is not None,
        "closed": pack.reason is not None,
        "items": len(pack.items),
        "below_floor": pack.below_floor,
    }


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    out: dict[str, Any] = {
        "questions": n,
        "search_closed": sum(r["search_closed"] for r in rows),
        "packs_closed": sum(r["closed"] for r in rows),
        "mean_items_kept": round(sum(r["items"] for r in rows) / max(n, 1), 2),
        "mean_left_out_by_gate": round(sum(r["below_floor"] for r in rows) / max(n, 1), 2),
    }
    for key in ("recall@10", "pack_recall"):
        values = [r[key] for r in rows if key in r]
        if values:
            out[key] = round(sum(values) / len(values), 3)
    return out


async def _run(fixture: dict[str, Any], cache_dir: Path) -> dict[str, Any]:
    from datetime import datetime

    from entrypoints.container import make_service

    model = make_embedder()
    cached = CachedEmbedder(model, DiskEmbeddingCache(cache_dir, model.space))
    store = make_store("mem://")
    index = make_index("inprocess", store)
    ingest_service = make_service(store, index, cached, RetrievalMode.RANKED)
    service = make_service(store, index, model, RetrievalMode.RANKED)
    rows: dict[str, list[dict[str, Any]]] = {"own": [], "off": [], "nonsense": []}
    started = time.perf_counter()
    try:
        for conversation in fixture["conversations"]:
            cid = conversation["conversation_id"]
            org = f"gate-{cid}-{uuid.uuid4().hex[:8]}"
            turn_of = await ingest(ingest_service, org, conversation)

            for q in (q for q in fixture["questions"] if q["conversation_id"] == cid):
                found, pack = await _ask(
                    service, org, q["question"], datetime.fromisoformat(q["asked_at"])
                )
                shown, packed = _turns(turn_of, found.results), _turns(turn_of, pack.items)
                evidence = q["evidence"]
                rows["own"].append(
                    {
                        **_row(found, pack),
                        "recall@10": sum(e in shown for e in evidence) / len(evidence),
                        "pack_recall": sum(e in packed for e in evidence) / len(evidence),
                    }
                )
            for name, queries in (("off", OFF_DOMAIN), ("nonsense", NONSENSE)):
                for query in queries:
                    row = _row(*await _ask(service, org, query))
                    rows[name].append({**row, "query": query})
            await ingest_service.drop_organization(org)
            progress(f"{cid}: {time.perf_counter() - started:.0f}s")
    finally:
        await ingest_service.close()
    return {
        "fixture_questions": _summary(rows["own"]),
        "off_domain_questions": _summary(rows["off"]),
        "nonsense_questions": _summary(rows["nonsense"]),
        # per question: in how many of the conversations the gate closed its search
        "search_closed_by_query": {
            q: sum(r["search_closed"] for r in rows["off"] + rows["nonsense"] if r["query"] == q)
            for q in (*OFF_DOMAIN, *NONSENSE)
        },
        "embedder": model.space.model,
        "code": code_version(),
        "machine": machine_info(),
        "wall_s": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.pack_gate")
    p.add_argument("--fixture", type=Path, default=FIXTURE)
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    args = p.parse_args(argv)
    fixture = (
        load_locomo(args.fixture)
        if is_locomo(args.fixture)
        else json.loads(args.fixture.read_bytes())
    )
    print(json.dumps(asyncio.run(_run(fixture, args.cache_dir))), file=sys.stdout)


if __name__ == "__main__":
    main()
