"""Conversation-fixture retrieval benchmark through the production remember and search path.

    python -m benchmarks.conversations [--mode bm25,vector,hybrid,ranked] [--out PATH]
        [--rerank none|llm|cross-encoder] [--rerank-model-dir DIR] [--rerank-top-n N]
        [--conversation on|off|NAME=VALUE,...] [--fixture PATH]

``--fixture`` takes the generated fixture (JSON) or real chats in the LoCoMo
layout (``.json.xz``, e.g. REALTALK's development split; ``_locomo``).

Loads ``fixture.json`` (see ``generate.py``) into the embedded SurrealDB
(``mem://``) with the offline MiniLM embedder and the in-process index, one
organisation per conversation, then asks every question once per retrieval
mode: turn-level evidence recall@5 and @10, ndcg@10, and the share of
evidence turns in the context pack at the default token budget, overall and
per pattern. Document vectors come from an on-disk cache under
``benchmarks/out/`` (filled on a miss); query vectors are computed live.
Prints a Markdown table; the per-question rankings go to ``--out``.
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

from application.memory.service import MemoryService
from application.retrieval.options import ConversationRecall
from application.retrieval.pipeline import RetrievalMode
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._stats import code_version, machine_info
from benchmarks._wiring import make_embedder, make_index, make_store
from benchmarks.conversations._cache import CACHE_DIR
from benchmarks.conversations._locomo import is_locomo, load_locomo
from benchmarks.conversations._metrics import aggregate
from benchmarks.conversations._options import parse_conversation
from benchmarks.conversations._rerank import RERANK_CHOICES, build_reranker, mode_label
from benchmarks.conversations._run import ingest, run_questions, shown_turns
from benchmarks.conversations.generate import FIXTURE
from benchmarks.ranker_fit import load_folds

__all__ = ["CACHE_DIR", "main", "table"]

_COLUMNS = (
    "recall@5",
    "recall@10",
    "ndcg@10",
    "pack_recall",
    "pack_attributed",
    "reply_with_question",
    "rendered_over_budget",
)


def _cell(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    return "—" if value is None else f"{value:.3f}"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.conversations", description=__doc__)
    p.add_argument("--fixture", type=Path, default=FIXTURE)
    p.add_argument("--out", type=Path, default=Path("benchmarks/out/conversations.json"))
    p.add_argument("--mode", default="bm25,vector,hybrid,ranked")
    p.add_argument("--index", choices=["inprocess", "surreal"], default="inprocess")
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    p.add_argument(
        "--no-speakers", action="store_true", help="remember turns with roles only (no names)"
    )
    p.add_argument(
        "--rerank",
        choices=RERANK_CHOICES,
        default="none",
        help="rerank the ranked mode (llm: needs TESSERA_LLM; cross-encoder: a model dir)",
    )
    p.add_argument("--rerank-model-dir", type=Path, default=None)
    p.add_argument("--rerank-top-n", type=int, default=20)
    p.add_argument("--budget", type=int, default=None, help="context pack token budget")
    p.add_argument(
        "--cross-validate",
        type=Path,
        default=None,
        metavar="TABLE",
        help="rank each chat with weights fitted on the others' candidates in TABLE "
        "(written by python -m benchmarks.ranker_fit for the same --fixture)",
    )
    p.add_argument(
        "--conversation",
        default="on",
        help="conversation-aware retrieval: on, off, or on with NAME=VALUE overrides",
    )
    return p.parse_args(argv)


def table(modes: dict[str, dict[str, Any]]) -> str:
    """Markdown: one row per mode, then one block per pattern."""
    head = "| mode | " + " | ".join(_COLUMNS) + " | n |\n|---|" + "---|" * (len(_COLUMNS) + 1)
    lines = [head]
    for mode, m in modes.items():
        lines.append(f"| {mode} | " + " | ".join(_cell(m, c) for c in _COLUMNS)
                     + f" | {m['questions']} |")
    patterns = sorted({p for m in modes.values() for p in m["by_pattern"]})
    lines.append("\n| pattern | mode | " + " | ".join(_COLUMNS) + " | n |\n|---|---|"
                 + "---|" * (len(_COLUMNS) + 1))
    for pattern in patterns:
        for mode, m in modes.items():
            row = m["by_pattern"][pattern]
            lines.append(f"| {pattern} | {mode} | " + " | ".join(_cell(row, c) for c in _COLUMNS)
                         + f" | {row['questions']} |")
    return "\n".join(lines)


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from entrypoints.container import make_service

    fixture = (
        load_locomo(args.fixture)
        if is_locomo(args.fixture)
        else json.loads(args.fixture.read_text(encoding="utf-8"))
    )
    modes = [RetrievalMode(m.strip()) for m in args.mode.split(",") if m.strip()]
    model = make_embedder()
    cached = CachedEmbedder(model, DiskEmbeddingCache(args.cache_dir, model.space))
    store = make_store("mem://")
    index = make_index(args.index, store)
    ingest_service = make_service(store, index, cached, RetrievalMode.RANKED)
    reranker = build_reranker(args.rerank, args.rerank_model_dir, args.rerank_top_n)
    options = conversation = parse_conversation(args.conversation)

    def searchers_for(options: ConversationRecall) -> dict[str, MemoryService]:
        return {
            mode_label(m, args.rerank): make_service(
                store,
                index,
                model,
                m,
                reranker=reranker,
                rerank_top_n=args.rerank_top_n,
                conversation=options,
            )
            for m in modes
        }

    searchers = searchers_for(conversation)
    folds = load_folds(args.cross_validate) if args.cross_validate else None
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        for conversation in fixture["conversations"]:
            cid = conversation["conversation_id"]
            org = f"conv-{cid}-{uuid.uuid4().hex[:8]}"
            turn_of = await ingest(ingest_service, org, conversation, not args.no_speakers)
            asked = [q for q in fixture["questions"] if q["conversation_id"] == cid]
            shown = shown_turns(conversation)
            if folds is not None:
                fold = folds.model_without(f"{args.fixture.name}:{cid}")
                searchers = searchers_for(msgspec.structs.replace(options, model=fold))
            records.extend(
                await run_questions(org, asked, turn_of, searchers, shown, args.budget)
            )
            await ingest_service.drop_organization(org)
            print(f"{cid}: {len(asked)} questions, {time.perf_counter() - started:.0f}s",
                  file=sys.stderr, flush=True)
    finally:
        await ingest_service.close()
    summary = {
        "fixture": str(args.fixture),
        "questions": len(records),
        "turns": len(
            [t for c in fixture["conversations"] for s in c["sessions"] for t in s["turns"]]
        ),
        "index": args.index,
        "speakers": not args.no_speakers,
        "rerank": args.rerank,
        "rerank_top_n": args.rerank_top_n,
        "conversation": args.conversation,
        "cross_validated": args.cross_validate is not None,
        "budget": args.budget,
        "code": code_version(),
        "wall_s": round(time.perf_counter() - started, 1),
        "machine": machine_info(),
        "modes": {name: aggregate(records, name) for name in searchers},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "questions": records}, indent=1))
    return summary


def main(argv: list[str] | None = None) -> None:
    summary = asyncio.run(_run(_parse(argv)))
    print(table(summary["modes"]))
    print(json.dumps({k: v for k, v in summary.items() if k != "modes"}))


if __name__ == "__main__":
    main()
