"""The episode BM25 leg at scale: CPU per ``Bm25Postings.group_scores`` call.

    python -m benchmarks.episode_lexical --rows 1000000 --queries 200

Why: at 1M chunks a profile of the end-to-end search (RESULTS "Scale, part 3",
the table) put ~60 ms of a search's CPU in the episode BM25 leg, the one stage
that grew with the corpus rather than with its candidates. This builds one
lexical index over ``--rows`` chunks (LongMemEval turns cut like the chunker,
then varied turns: ``benchmarks._snapshot_rows.chunk_texts``), groups rows into
episodes of three, keeps every row live (a reader of every space), and times
``group_scores`` for the LongMemEval questions, as the in-process index calls
it (the group statistics kept, as the index keeps them per filter). Prints one
JSON object: build seconds, CPU ms per call p50/p95/p99, matched groups.
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
    p.add_argument("--data", type=Path, help=DATA_HELP)
    return p.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, object]:
    import numpy as np

    from adapters.inprocess.bm25 import Bm25Postings
    from benchmarks._snapshot_rows import chunk_texts

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
    live = np.ones(args.rows, dtype=bool)
    groups = np.arange(args.rows, dtype=np.int64) // args.episode
    n_groups = int(groups[-1]) + 1
    stats = postings.group_stats(live, groups, n_groups)
    cpu: list[float] = []
    matched: list[float] = []
    for question in corpus.questions[: args.queries]:
        t0 = time.process_time()
        rows, _ = postings.group_scores(question, live, groups, n_groups, stats)
        cpu.append((time.process_time() - t0) * 1000)
        matched.append(float(len(rows)))
    return {
        "rows": args.rows,
        "episodes": n_groups,
        "queries": len(cpu),
        "build_cpu_s": round(build_s, 1),
        "group_scores_cpu_ms": summarize(cpu),
        "matched_groups": summarize(matched),
        "machine": machine_info(),
        "code": code,
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(run(_parse(argv))), flush=True)


if __name__ == "__main__":
    main()
