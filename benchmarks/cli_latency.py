"""What a person waits for typing ``tessera --help`` and ``tessera recall`` (service running).

    python -m benchmarks.cli_latency --data-dir DIR [--runs 9] [--baseline OTHER_CHECKOUT]

Starts ``tessera serve`` on ``DIR`` (filled, e.g., by ``benchmarks.serve_restart``),
then times whole CLI processes, from spawn to exit, as a shell runs them:
``--help``, and ``recall`` of one note's code word through the service.
With ``--baseline`` the other checkout's CLI runs in turns with this one
against the same service. Prints one JSON object: medians and p90 per arm.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._stats import report_head
from benchmarks.serve_restart import (
    arms,
    checkouts_parser,
    env_for,
    free_port,
    in_turns,
    spawn_serve,
    stop,
    wait_healthy,
)

__all__ = ["main"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    return checkouts_parser("benchmarks.cli_latency", __doc__, runs=9).parse_args(argv)


def _timed(code: Path, env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    subprocess.run(  # noqa: S603 - this interpreter and a fixed argv
        [sys.executable, "-m", "entrypoints.cli", *args],
        cwd=code,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - started


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_s": round(statistics.median(ordered), 3),
        "p90_s": round(ordered[max(0, int(0.9 * len(ordered)) - 1)], 3),
    }


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    port = free_port()
    server = spawn_serve(args.data_dir, port)
    try:
        wait_healthy(server, port, timeout=120)
        checkouts = arms(args.baseline)
        times: dict[str, dict[str, list[float]]] = {
            a: {"help": [], "recall": []} for a in checkouts
        }
        loads: list[float] = []
        for n, arm, code in in_turns(checkouts, args.runs, loads):
            env = {**env_for(args.data_dir, port, code), "TESSERA_LOG_LEVEL": "WARNING"}
            times[arm]["help"].append(_timed(code, env, "--help"))
            times[arm]["recall"].append(_timed(code, env, "recall", f"code word zq{n}x"))
    finally:
        stop(server)
    result = report_head("cli_latency", loads)
    for arm, kinds in times.items():
        result[arm] = {kind: _summary(values) for kind, values in kinds.items()}
    if args.baseline is not None:
        result["recall_ratio_this_to_baseline"] = round(
            result["this"]["recall"]["median_s"] / result["baseline"]["recall"]["median_s"], 3
        )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
