"""Scoring for the reference graph store: exact cosine, and BM25 computed per query.

Split from ``graph_store`` so the adapter stays one readable page; both are
references for the contract suite, not fast paths.
"""

import math
from collections import Counter
from collections.abc import Mapping

from adapters.inprocess.analyzer import analyze
from application.ports.records import ScoredId, Vector

__all__ = ["bm25", "cosine"]


def cosine(a: Vector, b: Vector) -> float:
    if len(a) != len(b):
        return 0.0
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def bm25(texts: Mapping[str, str], query: str, limit: int) -> list[ScoredId]:
    docs = {key: Counter(analyze(text)) for key, text in texts.items()}
    terms = set(analyze(query))
    if not docs or not terms:
        return []
    average = max(sum(sum(d.values()) for d in docs.values()) / len(docs), 1.0)
    scores: dict[str, float] = {}
    for term in terms:
        having = [key for key, d in docs.items() if term in d]
        idf = math.log(1 + (len(docs) - len(having) + 0.5) / (len(having) + 0.5))
        for key in having:
            tf, length = docs[key][term], sum(docs[key].values())
            norm = tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
            scores[key] = scores.get(key, 0.0) + idf * norm
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [ScoredId(key, score) for key, score in ranked]
