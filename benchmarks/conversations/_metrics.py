"""Turn-level retrieval metrics for the conversation fixture.

Unlike LongMemEval's session-level recall, a question here is scored by its
evidence turns: recall@k is the share of a question's evidence turns among
the first k distinct turns returned (a list question needs all three), ndcg@k
uses binary relevance with the usual log2(rank + 1) discount, and pack
recall is the share of evidence turns present anywhere in the context pack.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

__all__ = [
    "KS",
    "Shown",
    "aggregate",
    "ndcg_at",
    "pack_recall",
    "question_metrics",
    "recall_at",
    "rendered_metrics",
]

KS = (5, 10)


def recall_at(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """Share of the evidence turns among the first ``k`` of ``ranked`` (distinct turn ids)."""
    gold = set(evidence)
    if not gold:
        raise ValueError("a question needs at least one evidence turn")
    return len(gold & set(ranked[:k])) / len(gold)


def ndcg_at(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    gold = set(evidence)
    if not gold:
        raise ValueError("a question needs at least one evidence turn")
    dcg = sum(1 / math.log2(i + 2) for i, t in enumerate(ranked[:k]) if t in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def pack_recall(packed: Iterable[str], evidence: Iterable[str]) -> float:
    gold = set(evidence)
    if not gold:
        raise ValueError("a question needs at least one evidence turn")
    return len(gold & set(packed)) / len(gold)


def question_metrics(
    ranked: Sequence[str], packed: Iterable[str], evidence: Sequence[str]
) -> dict[str, float]:
    out = {f"recall@{k}": recall_at(ranked, evidence, k) for k in KS}
    out["ndcg@10"] = ndcg_at(ranked, evidence, 10)
    out["pack_recall"] = pack_recall(packed, evidence)
    return out


class Shown(NamedTuple):
    """An evidence turn as the rendered pack should show it."""

    speaker: str
    text: str
    #: the session's date, YYYY-MM-DD
    day: str
    #: the words of the turn spoken just before it in its session, if any
    before: str | None


def _words(text: str) -> str:
    return " ".join(text.split())


def rendered_metrics(rendered: str, evidence: Sequence[Shown]) -> dict[str, float]:
    """How a reader sees the evidence in ``ContextPack.rendered``.

    ``pack_attributed``: share of evidence turns shown on a line with their
    speaker's name under an episode header with their session's date.
    ``reply_with_question``: share shown right after the turn spoken before
    them (a reply read with what it answers).
    """
    if not evidence:
        raise ValueError("a question needs at least one evidence turn")
    lines = rendered.splitlines()
    attributed = together = 0
    for shown in evidence:
        header = ""
        for n, line in enumerate(lines):
            if line.startswith("## "):
                header = line
                continue
            if not line.endswith(f"{shown.speaker}: {_words(shown.text)}"):
                continue
            attributed += shown.day in header
            before = _words(shown.before) if shown.before else None
            together += bool(before) and n > 0 and lines[n - 1].endswith(f": {before}")
            break
    return {
        "pack_attributed": attributed / len(evidence),
        "reply_with_question": together / len(evidence),
    }


def _means(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    out = {}
    for k in keys:
        values = [r[k] for r in rows if k in r]
        out[k] = round(sum(values) / len(values), 4)
    return out


def aggregate(records: Sequence[Mapping[str, Any]], mode: str) -> dict[str, Any]:
    """Means over all questions and per pattern: ``records[i]["modes"][mode]`` holds metrics."""
    rows = [r["modes"][mode] for r in records]
    out: dict[str, Any] = {**_means(rows), "questions": len(rows)}
    by_pattern: dict[str, Any] = {}
    for pattern in sorted({str(r["pattern"]) for r in records}):
        mine = [r["modes"][mode] for r in records if r["pattern"] == pattern]
        by_pattern[pattern] = {**_means(mine), "questions": len(mine)}
    out["by_pattern"] = by_pattern
    return out
