"""Markdown tables for benchmarks/RESULTS.md from a ``benchmarks.longmemeval`` output file.

python -m benchmarks.longmemeval_table benchmarks/out/lme.json [OTHER.json]

With a second file, or a file from ``--derived paired`` (modes ``ranked``
and ``ranked-raw``), a third table gives the per-type deltas of the derived
arm against the raw one; a run with derived records adds what reflection
made (records per question, reflect + promote time).
"""

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["deltas", "derived_lines", "main", "tables"]

_OVERALL = (
    "recall_any@5",
    "recall_all@5",
    "ndcg_any@5",
    "ndcg_any@10",
    "recall_all@10",
    "turn_recall_any@5",
    "search_p50_ms",
    "search_p95_ms",
)
_TYPED = ("recall_any@5", "recall_all@5", "ndcg_any@5", "ndcg_any@10")
_DELTA = ("recall_any@5", "recall_all@5", "recall_all@10", "ndcg_any@10", "turn_recall_any@5")
_RAW = "-raw"


def _cell(value: Any) -> str:
    return "–" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


def tables(summary: dict[str, Any]) -> str:
    modes: dict[str, Any] = summary["modes"]
    lines = ["| mode | " + " | ".join(_OVERALL) + " |", "|" + "---|" * (len(_OVERALL) + 1)]
    for mode, stats in modes.items():
        lines.append(f"| {mode} | " + " | ".join(_cell(stats.get(k)) for k in _OVERALL) + " |")
    types = sorted({t for stats in modes.values() for t in stats["by_type"]})
    lines += [
        "",
        "| type (n) | mode | " + " | ".join(_TYPED) + " |",
        "|" + "---|" * (len(_TYPED) + 2),
    ]
    for qtype in types:
        for mode, stats in modes.items():
            row = stats["by_type"].get(qtype, {})
            lines.append(
                f"| {qtype} ({row.get('questions', 0)}) | {mode} | "
                + " | ".join(_cell(row.get(k)) for k in _TYPED)
                + " |"
            )
    return "\n".join(lines)


def _signed(after: Any, before: Any) -> str:
    if after is None or before is None:
        return "–"
    return f"{after - before:+.3f}"


def deltas(base: dict[str, Any], other: dict[str, Any], label: str) -> str:
    """Per question type (and overall): ``other`` minus ``base``, one mode's stats each."""
    lines = [
        f"| type (n): {label} | " + " | ".join(f"Δ {k}" for k in _DELTA) + " |",
        "|" + "---|" * (len(_DELTA) + 1),
        f"| all ({other.get('questions', 0)}) | "
        + " | ".join(_signed(other.get(k), base.get(k)) for k in _DELTA)
        + " |",
    ]
    for qtype in sorted(other["by_type"]):
        row, was = other["by_type"][qtype], base["by_type"].get(qtype, {})
        lines.append(
            f"| {qtype} ({row.get('questions', 0)}) | "
            + " | ".join(_signed(row.get(k), was.get(k)) for k in _DELTA)
            + " |"
        )
    p50, p95 = (other.get(k) for k in ("search_p50_ms", "search_p95_ms"))
    b50, b95 = (base.get(k) for k in ("search_p50_ms", "search_p95_ms"))
    if p50 and p95 and b50 and b95:
        lines.append(f"\nsearch p50/p95 ratio: {p50 / b50:.2f} / {p95 / b95:.2f}")
    return "\n".join(lines)


def derived_lines(summary: dict[str, Any]) -> str:
    """What reflection made, from a run with ``--derived on`` or ``paired``."""
    stats = summary.get("derived_stats")
    if not stats or not stats.get("questions"):
        return ""
    per = stats["records_per_question"]
    return "\n".join(
        [
            f"derived ({summary.get('derived')}): {stats['candidates_per_question']} candidates "
            f"and {stats['accepted_per_question']} accepted per question; records per "
            f"question mean {per['mean']}, median {per['median']}, max {per['max']}",
            f"reflect + promote per question: p50 {stats['derive_ms']['p50_ms']} ms, "
            f"p95 {stats['derive_ms']['p95_ms']} ms; reflect {stats['sources_per_s']} sources/s",
            f"candidates by type: {stats['candidates_by_type']}",
            f"accepted by type: {stats['accepted_by_type']}",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    args = argv if argv is not None else sys.argv[1:]
    summaries = [json.loads(Path(a).read_text())["summary"] for a in args[:2]]
    out = [tables(s) for s in summaries]
    out += [text for text in (derived_lines(s) for s in summaries) if text]
    last = summaries[-1]["modes"]
    if len(summaries) == 2:
        first = summaries[0]["modes"]
        out.append(deltas(list(first.values())[-1], list(last.values())[-1], "second − first"))
    for mode in last:
        if mode + _RAW in last:
            out.append(deltas(last[mode + _RAW], last[mode], f"{mode} − {mode}{_RAW}"))
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
