"""Where a search's time goes inside the in-process index, per stage, as the corpus grows.

    python -m benchmarks.stage_costs --chunks 10000 100000 --queries 100

Builds the in-process index directly (no store: what is measured is the
index and the retrieval pipeline, the part that can grow with the corpus) from
real LongMemEval turns, one source per turn, with real MiniLM vectors where
the embedding cache holds them and perturbed copies elsewhere; then runs the
questions through the ranked pipeline with a caller filter like a real
reader's (a few visible spaces, open recall) and times each index call, the
legs together (they run side by side, so their calls overlap), the ranker and
the pipeline's other work (fusion, expansion, spread). A stage whose time grows
with the corpus while its candidates do not is the thing to fix. Progress
goes to stderr; the figures are one JSON object on the last line of stdout.
"""

import argparse
import asyncio
import json
import random
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from adapters.inprocess.index import InProcessIndex
from application.ports import Embedder
from application.ports.records import CandidateFilter, IndexEntry, ScopeRef, Vector
from application.retrieval.pipeline import RetrievalPipeline
from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._real_vectors import load_real_vectors
from benchmarks._stats import machine_info, progress, summarize
from domain.chunking import split_into_chunks
from domain.hashing import content_hash
from domain.scopes import MemoryScope

__all__ = ["build_entries", "main"]

_SPACES = [ScopeRef(MemoryScope.TEAM, f"team-{n}") for n in range(4)]
_BATCH = 2000


def build_entries(turns: Sequence[str], chunks: int, seed: int = 11) -> list[IndexEntry]:
    """``chunks`` entries from ``turns`` in order; real vectors where cached, else perturbed."""
    real = load_real_vectors()
    rng = np.random.default_rng(seed)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    out: list[IndexEntry] = []
    for n, turn in enumerate(turns):
        source_id = f"src-{n}"
        space = _SPACES[n % len(_SPACES)]
        for i, span in enumerate(split_into_chunks(turn)):
            row = real.row_of.get(content_hash(span.text))
            if row is None:
                base = real.matrix[int(rng.integers(len(real)))]
                noisy = base + rng.normal(0.0, 0.02, base.shape).astype(np.float32)
                vector = noisy / np.linalg.norm(noisy)
            else:
                vector = real.matrix[row]
            out.append(
                IndexEntry(
                    chunk_id=f"{source_id}-{i}",
                    source_id=source_id,
                    text=span.text,
                    vector=vector.tolist(),
                    scope=space.scope,
                    scope_key=space.scope_key,
                    occurred_at=start + timedelta(minutes=n),
                    role="user" if n % 2 else "assistant",
                    turn_index=i,
                )
            )
            if len(out) == chunks:
                return out
    raise ValueError(f"the corpus yields only {len(out)} chunks; {chunks} were asked for")


class _Timed:
    """The index port, timing each call by method name. The legs run side by side (the
    lexical ones on worker threads), so their times overlap: ``legs`` is the wall of
    them all, and what a search spends outside them is ``rank`` (the ranker) and
    ``pipeline_own_work`` (fusion, expansion, spread: the rest)."""

    def __init__(self, inner: InProcessIndex) -> None:
        self._inner = inner
        self.ms: dict[str, list[float]] = defaultdict(list)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._inner, name)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            result = await method(*args, **kwargs)
            self.ms[name].append((time.perf_counter() - began) * 1000)
            return result

        return timed


def _time_steps(pipeline: RetrievalPipeline, ms: dict[str, list[float]]) -> None:
    """Time the pipeline's legs (all of them, side by side) and its ranker, on this
    instance only."""
    legs, rank = pipeline._legs, pipeline._rank

    async def timed_legs(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return await legs(*args, **kwargs)
        finally:
            ms["legs"].append((time.perf_counter() - began) * 1000)

    def timed_rank(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return rank(*args, **kwargs)
        finally:
            ms["rank"].append((time.perf_counter() - began) * 1000)

    pipeline._legs = timed_legs  # type: ignore[method-assign]
    pipeline._rank = timed_rank  # type: ignore[method-assign]


def _embedder() -> Embedder:
    from adapters.embedders.onnx_minilm import OnnxEmbedder

    return OnnxEmbedder()


async def _vectors_for(embedder: Embedder, texts: Sequence[str]) -> dict[str, Vector]:
    return dict(zip(texts, await embedder.embed(list(texts)), strict=True))


async def _measure(
    entries: Sequence[IndexEntry],
    questions: Sequence[str],
    embedder: Embedder,
    vectors: Mapping[str, Vector],
) -> dict[str, object]:
    index = InProcessIndex()
    began = time.perf_counter()
    for start in range(0, len(entries), _BATCH):
        await index.add("bench", entries[start : start + _BATCH])
    await index.mark_ready("bench")
    build_s = time.perf_counter() - began
    timed = _Timed(index)

    known = dict(vectors)

    async def query_vector(text: str) -> Vector:
        # embedding is timed apart: the model's time does not grow with the corpus
        began = time.perf_counter()
        if text not in known:
            known.update(await _vectors_for(embedder, [text]))
        timed.ms["embed"].append((time.perf_counter() - began) * 1000)
        return known[text]

    pipeline = RetrievalPipeline(index=timed, query_vector=query_vector)
    _time_steps(pipeline, timed.ms)
    where = CandidateFilter(visible=frozenset(_SPACES[:3]))
    total: list[float] = []
    per_query: dict[str, list[float]] = defaultdict(list)
    for n, question in enumerate(questions):
        timed.ms.clear()
        began = time.perf_counter()
        await pipeline.run("bench", question, 10, where)
        elapsed = (time.perf_counter() - began) * 1000
        if n < 3:  # warm-ups
            continue
        total.append(elapsed)
        for name, samples in timed.ms.items():
            per_query[name].append(sum(samples))
        outside = sum(timed.ms["legs"]) + sum(timed.ms["rank"])
        # the index calls after the legs (texts, members) are in the rest
        per_query["pipeline_own_work"].append(elapsed - outside)
    return {
        "chunks": len(entries),
        "build_s": round(build_s, 2),
        "search": summarize(total),
        "stages_p50_ms": {
            name: summarize(samples).get("p50_ms") for name, samples in sorted(per_query.items())
        },
    }


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.stage_costs", description=__doc__)
    p.add_argument("--chunks", type=int, nargs="+", default=[10000, 100000])
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args(argv)


async def _main(args: argparse.Namespace) -> dict[str, object]:
    corpus = load_corpus(args.data)
    turns = list(corpus.turns)
    random.Random(args.seed).shuffle(turns)
    questions = corpus.questions[: args.queries + 3]
    progress(f"embedding {len(questions)} questions")
    embedder = _embedder()
    vectors = await _vectors_for(embedder, questions)
    runs = []
    for chunks in args.chunks:
        progress(f"building {chunks} entries")
        entries = build_entries(turns, chunks)
        progress(f"measuring {len(questions)} searches over {chunks} chunks")
        runs.append(await _measure(entries, questions, embedder, vectors))
        progress(json.dumps(runs[-1]))
    return {"runs": runs, "machine": machine_info()}


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv))), separators=(",", ":")))


if __name__ == "__main__":
    main()
