"""Markdown tables for benchmarks/RESULTS.md from a ``benchmarks.longmemeval`` output file.

python -m benchmarks.longmemeval_table benchmarks/out/lme.json
"""

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["main", "tables"]

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


def main(argv: list[str] | None = None) -> None:
    args = argv if argv is not None else sys.argv[1:]
    data = json.loads(Path(args[0]).read_text())
    print(tables(data["summary"]))


if __name__ == "__main__":
    main()
