"""Markdown table from the JSON last lines of ``benchmarks.latency`` runs.

python -m benchmarks.report benchmarks/out/runs/*.out
"""

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["main", "rows"]

_HEADER = (
    "| chunks | index | search p50 / p95 / p99 ms | search p95 interleaved ms "
    "| remember p50 / p95 ms | remember 1-chunk p50 / p95 ms | bulk chunks/s | warm-up s |\n"
    "|---:|---|---|---:|---|---|---:|---:|"
)


def _last_json(path: Path) -> dict[str, Any]:
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _fmt(*values: Any) -> str:
    return " / ".join("-" if v is None else f"{v:g}" for v in values)


def rows(result: dict[str, Any]) -> list[str]:
    per = result.get("per_index") or {result["headline_index"]: result["detail"]}
    out = []
    for name, r in per.items():
        s, m = r["search"], r["remember"]
        one = m.get("one_chunk", {})
        out.append(
            f"| {result['chunks']:,} | {name} (n={s['n']}) "
            f"| {_fmt(s.get('p50_ms'), s.get('p95_ms'), s.get('p99_ms'))} "
            f"| {_fmt(r['interleaved']['search'].get('p95_ms'))} "
            f"| {_fmt(m.get('p50_ms'), m.get('p95_ms'))} "
            f"| {_fmt(one.get('p50_ms'), one.get('p95_ms'))} "
            f"| {_fmt(result['bulk_chunks_per_s'])} | {_fmt(r['warmup_open_s'])} |"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    paths = [Path(p) for p in (sys.argv[1:] if argv is None else argv)]
    print(_HEADER)
    for path in paths:
        for row in rows(_last_json(path)):
            print(row)


if __name__ == "__main__":
    main()
