"""The context pack's relevance gate: how often it closes, for questions memory is and is not about.

    python -m benchmarks.pack_gate [--fixture PATH] [--cache-dir DIR]

Each conversation of the conversation fixture (benchmarks/conversations) is
remembered into its own organisation, as ``benchmarks.conversations`` does,
and asked two sets of questions with ``context_pack`` at the default budget:
its own fixture questions (memory is about them: the gate should never
close, and pack evidence recall must stay what the conversation benchmark
reports), and the off-domain questions below, written for this benchmark
(nothing in a chat between friends is about them: the gate should close).
Prints one JSON object: per set, how many packs the gate closed, mean items
kept, mean items the gate left out, and (fixture set) pack evidence recall.
"""

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from application.commands import ContextRequest
from application.limits import DEFAULT_PACK_BUDGET
from application.retrieval.pipeline import RetrievalMode
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._lme_run import owner_context
from benchmarks._stats import code_version, machine_info, progress
from benchmarks._wiring import make_embedder, make_index, make_store
from benchmarks.conversations._run import ingest
from benchmarks.conversations.generate import FIXTURE
from benchmarks.longmemeval_prefill import CACHE_DIR

__all__ = ["OFF_DOMAIN", "main"]

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


async def _ask(service: Any, org: str, query: str, as_of: Any = None) -> Any:
    return await service.context_pack(
        ContextRequest(org_id=org, query=query, as_of=as_of, token_budget=DEFAULT_PACK_BUDGET),
        owner_context(org),
    )


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    out: dict[str, Any] = {
        "packs": n,
        "gate_closed": sum(r["closed"] for r in rows),
        "mean_items_kept": round(sum(r["items"] for r in rows) / max(n, 1), 2),
        "mean_left_out_by_gate": round(sum(r["below_floor"] for r in rows) / max(n, 1), 2),
    }
    recalls = [r["recall"] for r in rows if "recall" in r]
    if recalls:
        out["pack_evidence_recall"] = round(sum(recalls) / len(recalls), 3)
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
    own: list[dict[str, Any]] = []
    off: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        for conversation in fixture["conversations"]:
            cid = conversation["conversation_id"]
            org = f"gate-{cid}-{uuid.uuid4().hex[:8]}"
            turn_of = await ingest(ingest_service, org, conversation)
            for q in (q for q in fixture["questions"] if q["conversation_id"] == cid):
                asked_at = datetime.fromisoformat(q["asked_at"])
                pack = await _ask(service, org, q["question"], asked_at)
                packed = {
                    turn_of.get((i.source_id, -1 if i.turn_index is None else i.turn_index))
                    for i in pack.items
                }
                hit = sum(e in packed for e in q["evidence"]) / len(q["evidence"])
                own.append({"closed": pack.below_floor > 0, "items": len(pack.items),
                            "below_floor": pack.below_floor, "recall": hit})
            for query in OFF_DOMAIN:
                pack = await _ask(service, org, query)
                off.append({"closed": pack.below_floor > 0, "items": len(pack.items),
                            "below_floor": pack.below_floor, "query": query})
            await ingest_service.drop_organization(org)
            progress(f"{cid}: {time.perf_counter() - started:.0f}s")
    finally:
        await ingest_service.close()
    return {
        "fixture_questions": _summary(own),
        "off_domain_questions": _summary(off),
        # per question: in how many of the conversations the gate closed
        "off_domain_closed": {
            q: sum(r["closed"] for r in off if r["query"] == q) for q in OFF_DOMAIN
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
    fixture = json.loads(args.fixture.read_bytes())
    print(json.dumps(asyncio.run(_run(fixture, args.cache_dir))), file=sys.stdout)


if __name__ == "__main__":
    main()
