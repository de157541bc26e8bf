"""The lexical legs at scale: CPU per search of the full scoring against the top-k path.

    python -m benchmarks.episode_lexical --rows 1000000 --queries 200

Why: at 1M chunks a profile of the end-to-end search (benchmarks/RESULTS.md)
put ~62 ms of a search's CPU in the episode BM25 leg and ~11 ms in the turn
leg, the stages that grew with the corpus rather than with their matches.
This builds one lexical index over ``--rows`` chunks (LongMemEval turns cut
like the chunker, then varied turns: ``benchmarks._snapshot_rows.chunk_texts``),
groups rows into episodes of three, keeps every row live (a reader of every
space; ``--hide`` hides that share of single rows, so as many episodes are
partly admitted and scored from the row postings), derives the episode
postings (CPU seconds, bytes; ``--stale``: over all but that share of the
rows, the rest read as written since the build), and for each LongMemEval question, in the form
search sends it (``meaningful_query``: function words dropped) and whole,
times in one process:

- turn leg: ``scores`` + top ``--turn-k`` (before) against ``top_scores`` + top;
- episode leg: ``group_scores`` + top ``--episode-k`` (before) against
  ``episode_postings.top_group_plan`` + top (the group statistics and the
  filter's plan kept, as the index keeps them per filter);

and counts where the two top lists differ (ids or order; scores beyond 1e-5
relative), printing each. Prints one JSON object.
"""

import argparse
import json
import time
from pathlib import Path

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._stats import code_version, machine_info, progress, summarize

__all__ = ["main"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.episode_lexical", description=__doc__)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--episode", type=int, default=3, help="rows per episode")
    p.add_argument("--turn-k", type=int, default=50, help="the turn leg's depth (search: 50)")
    p.add_argument("--episode-k", type=int, default=20, help="the episode leg's (search: 20)")
    p.add_argument("--hide", type=float, default=0.0, help="share of single rows hidden")
    p.add_argument("--stale", type=float, default=0.0, help="share of rows written after the build")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    return p.parse_args(argv)


def _rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _differ(want: list[tuple[str, float]], got: list[tuple[str, float]]) -> bool:
    if [i for i, _ in want] != [i for i, _ in got]:
        return True
    return any(
        abs(a - b) > 1e-5 * max(1.0, abs(a)) for (_, a), (_, b) in zip(want, got, strict=True)
    )


def run(args: argparse.Namespace) -> dict[str, object]:
    import numpy as np

    from adapters.inprocess import episode_postings as episodes
    from adapters.inprocess.bm25 import Bm25Postings
    from adapters.inprocess.index import _OrgIndex
    from benchmarks._snapshot_rows import chunk_texts
    from domain.query_terms import meaningful_query

    code = code_version()
    corpus = load_corpus(args.data)
    texts = chunk_texts(list(corpus.turns), args.rows)
    began = time.process_time()
    postings = Bm25Postings()
    for row, text in enumerate(texts):
        postings.add(row, text)
        if row and row % 200_000 == 0:
            progress(f"  indexed {row} rows")
    build_s = time.process_time() - began
    del texts
    rss_before = _rss_mib()
    rng = np.random.default_rng(7)
    live = rng.random(args.rows) >= args.hide
    groups = np.arange(args.rows, dtype=np.int64) // args.episode
    n_groups = int(groups[-1]) + 1
    t0 = time.process_time()
    parts = postings.parts()
    parts_ms = (time.process_time() - t0) * 1000
    t0, w0 = time.process_time(), time.perf_counter()
    built_rows = args.rows - int(args.stale * args.rows)
    built = episodes.build(parts, groups[:built_rows].copy(), n_groups)
    episode_build = {
        "cpu_s": round(time.process_time() - t0, 2),
        "wall_s": round(time.perf_counter() - w0, 2),
        "parts_ms": round(parts_ms, 1),
        "postings": len(built.groups),
        "row_postings": int(sum(len(d) + len(tail) // 8 for _, d, _, tail in parts)),
        "bytes": built.nbytes(),
        "max_rss_mib_before_after": [round(rss_before), round(_rss_mib())],
    }
    del parts
    stats = postings.group_stats(live, groups, n_groups)
    assert stats is not None
    t0 = time.process_time()
    plan = episodes.plan(built, live, groups, n_groups, stats[1])
    plan_ms = (time.process_time() - t0) * 1000
    org = _OrgIndex()
    row_names = [str(n) for n in range(args.rows)]
    group_names = [str(n) for n in range(n_groups)]
    legs = ("turn_before", "turn_after", "episode_before", "episode_after")
    cpu: dict[str, dict[str, list[float]]] = {}
    mismatches: dict[str, list[dict[str, object]]] = {"turn": [], "episode": []}
    for form in ("as_sent", "whole"):
        times: dict[str, list[float]] = {leg: [] for leg in legs}
        for question in corpus.questions[: args.queries]:
            query = meaningful_query(question) if form == "as_sent" else question
            t = time.process_time()
            rows, scores = postings.scores(query, live)
            want = org.top(rows, scores, args.turn_k, row_names)
            times["turn_before"].append((time.process_time() - t) * 1000)
            t = time.process_time()
            rows, scores = postings.top_scores(query, live, args.turn_k)
            got = org.top(rows, scores, args.turn_k, row_names)
            times["turn_after"].append((time.process_time() - t) * 1000)
            a = [(h.item_id, h.score) for h in want]
            b = [(h.item_id, h.score) for h in got]
            if _differ(a, b):
                mismatches["turn"].append({"form": form, "query": query, "before": a, "after": b})
            t = time.process_time()
            gs, scores = postings.group_scores(query, live, groups, n_groups, stats)
            want = org.top(gs, scores, args.episode_k, group_names)
            times["episode_before"].append((time.process_time() - t) * 1000)
            t = time.process_time()
            if plan is not None:
                gs, scores = episodes.top_group_plan(
                    postings, built, plan, query, groups, stats, args.episode_k
                )()
            else:  # declined (too many partly admitted rows): the index uses group_scores
                gs, scores = postings.group_scores(query, live, groups, n_groups, stats)
            got = org.top(gs, scores, args.episode_k, group_names)
            times["episode_after"].append((time.process_time() - t) * 1000)
            a = [(h.item_id, h.score) for h in want]
            b = [(h.item_id, h.score) for h in got]
            if _differ(a, b):
                mismatches["episode"].append(
                    {"form": form, "query": query, "before": a, "after": b}
                )
        cpu[form] = times
    for leg, found in mismatches.items():
        for m in found:
            progress(f"MISMATCH {leg}: {json.dumps(m)}")
    return {
        "rows": args.rows,
        "episodes": n_groups,
        "hidden_share": args.hide,
        "stale_share": args.stale,
        "queries": args.queries,
        "index_build_cpu_s": round(build_s, 1),
        "episode_postings_build": episode_build,
        "plan_cpu_ms": round(plan_ms, 1),
        "plan_declined": plan is None,
        "cpu_ms": {
            form: {leg: summarize(samples) for leg, samples in times.items()}
            for form, times in cpu.items()
        },
        "mismatched_lists": {leg: len(found) for leg, found in mismatches.items()},
        "lists_compared_per_leg": 2 * args.queries,
        "machine": machine_info(),
        "code": code,
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(run(_parse(argv))), flush=True)


if __name__ == "__main__":
    main()
