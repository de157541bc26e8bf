"""LongMemEval's retrieval metrics, with the official session-level semantics.

Follows ``src/retrieval/eval_utils.py`` of the LongMemEval repository:
recall_any@k (any gold session in the top k), recall_all@k (every gold
session in the top k) and ndcg_any@k with binary relevance and its DCG
(first position undiscounted, position i >= 2 divided by log2(i)); gold =
``answer_session_ids``; abstention questions (id ending ``_abs``) are left
out of the means. Turn-level recall counts a hit when any turn marked
``has_answer`` is among the top k turns.
"""

import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["KS", "aggregate", "question_metrics", "rank_by_first_appearance"]

KS = (1, 3, 5, 10)


def _dcg(relevances: Sequence[float], k: int) -> float:
    rel = list(relevances)[:k]
    if not rel:
        return 0.0
    return rel[0] + sum(r / math.log2(i + 1) for i, r in enumerate(rel[1:], start=1))


def _ndcg(ranking: Sequence[str], gold: set[str], corpus: Sequence[str], k: int) -> float:
    ideal = _dcg(sorted((1.0 if c in gold else 0.0 for c in corpus), reverse=True), k)
    if ideal == 0:
        return 0.0
    return _dcg([1.0 if doc in gold else 0.0 for doc in ranking[:k]], k) / ideal


def rank_by_first_appearance(
    hits: Iterable[tuple[str, int]],
) -> tuple[list[str], list[tuple[str, int]]]:
    """(session, turn) hits best first -> distinct sessions and distinct turns, in the order
    each first appears: a session ranks where its best turn does."""
    ordered = list(hits)
    return list(dict.fromkeys(s for s, _ in ordered)), list(dict.fromkeys(ordered))


def question_metrics(
    sessions: Sequence[str],
    gold: Iterable[str],
    corpus: Sequence[str],
    turns: Sequence[tuple[str, int]],
    gold_turns: Iterable[tuple[str, int]],
) -> dict[str, float]:
    """Metrics of one question: ``sessions`` ranked best first (distinct), ``turns`` likewise."""
    gold_set = set(gold)
    out: dict[str, float] = {}
    for k in KS:
        top = set(sessions[:k])
        out[f"recall_any@{k}"] = float(any(g in top for g in gold_set))
        out[f"recall_all@{k}"] = float(all(g in top for g in gold_set))
        out[f"ndcg_any@{k}"] = _ndcg(sessions, gold_set, corpus, k)
    turn_gold = set(gold_turns)
    if turn_gold:
        for k in KS:
            out[f"turn_recall_any@{k}"] = float(any(t in turn_gold for t in turns[:k]))
    return out


def _mean(rows: Sequence[dict[str, float]], key: str) -> float | None:
    values = [r[key] for r in rows if key in r]
    return round(sum(values) / len(values), 4) if values else None


def aggregate(records: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
    """Means over non-abstention questions, overall and per question type."""
    scored = [r for r in records if not str(r["question_id"]).endswith("_abs")]
    keys = [
        f"{m}@{k}" for m in ("recall_any", "recall_all", "ndcg_any", "turn_recall_any") for k in KS
    ]
    rows = [r["modes"][mode]["metrics"] for r in scored]
    overall: dict[str, Any] = {key: _mean(rows, key) for key in keys}
    overall["questions"] = len(scored)
    by_type: dict[str, Any] = {}
    for qtype in sorted({str(r["question_type"]) for r in scored}):
        typed = [r["modes"][mode]["metrics"] for r in scored if r["question_type"] == qtype]
        by_type[qtype] = {key: _mean(typed, key) for key in keys if key.endswith(("@5", "@10"))}
        by_type[qtype]["questions"] = len(typed)
    overall["by_type"] = by_type
    tagged = [r["modes"][mode] for r in records if "derived_top10" in r["modes"][mode]]
    if tagged:  # top-10 hits a derived signal supported, and matched records, per question
        for key in ("derived_top10", "derived_hits"):
            overall[f"{key}_mean"] = round(sum(m[key] for m in tagged) / len(tagged), 2)
    latencies = sorted(r["modes"][mode]["search_ms"] for r in records)
    if latencies:
        overall["search_p50_ms"] = round(_percentile(latencies, 50), 2)
        overall["search_p95_ms"] = round(_percentile(latencies, 95), 2)
        overall["search_max_ms"] = round(latencies[-1], 2)
    return overall


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    if len(sorted_values) == 1:
        return sorted_values[0]
    position = (len(sorted_values) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)
