"""Which modules `tessera serve` and `tessera recall` import, and for how long (-X importtime).

    python -m benchmarks.import_times --data-dir DIR [--runs 3] [--baseline OTHER_CHECKOUT]

Starts ``tessera serve`` on ``DIR`` (filled, e.g., by ``benchmarks.serve_restart``)
under ``-X importtime``, waits for its health, runs ``tessera recall`` at it under
``-X importtime`` too, then stops the service: so the service's figures hold
what it imports until its first answered recall (a module imported lazily by the
first search counts). With ``--baseline`` the other checkout's service and CLI
run in turns with this one's, on the same data. Per arm and command, the median
over ``--runs`` of: modules imported, their summed own import time (the
interpreter's ``self`` column: what importing costs this process), and the
packages that took longest; and which optional packages were imported at all
(``OPTIONAL``: each is needed only by a setting or a command not run here).
Prints one JSON object.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks._stats import report_head
from benchmarks.serve_restart import (
    arms,
    checkouts_parser,
    env_for,
    free_port,
    in_turns,
    wait_healthy,
)

__all__ = ["OPTIONAL", "ImportLog", "main", "read_log"]

#: packages a default service or a recall needs only when used, if ever: LLM SDKs, the
#: MCP SDK, the sentence-transformers lane and its torch, faiss (below its row threshold),
#: httpx (a command that opens the store itself), Jinja (the workspace's first page)
OPTIONAL = (
    "openai",
    "google.genai",
    "mcp",
    "torch",
    "sentence_transformers",
    "faiss",
    "httpx",
    "jinja2",
)
#: packages listed by their summed own time
_TOP = 8


class ImportLog:
    """One process's ``-X importtime`` lines, read."""

    def __init__(self, rows: list[tuple[str, int]]) -> None:
        #: (module, its own microseconds), in import order
        self.rows = rows

    @property
    def modules(self) -> int:
        return len(self.rows)

    @property
    def own_ms(self) -> float:
        return sum(us for _, us in self.rows) / 1000

    def by_package(self) -> Counter[str]:
        """Own microseconds summed by top-level package."""
        out: Counter[str] = Counter()
        for module, us in self.rows:
            out[module.split(".")[0]] += us
        return out

    def imported(self, names: tuple[str, ...]) -> list[str]:
        """Which of ``names`` (a package or a dotted subpackage) were imported."""
        seen = {module for module, _ in self.rows}
        return [n for n in names if n in seen or any(m.startswith(n + ".") for m in seen)]


def read_log(text: str) -> ImportLog:
    """The ``import time: self | cumulative | name`` lines of ``text`` (others skipped)."""
    rows: list[tuple[str, int]] = []
    for line in text.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue  # the header line
        rows.append((parts[2].strip(), int(parts[0])))
    return ImportLog(rows)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    return checkouts_parser("benchmarks.import_times", __doc__, runs=3).parse_args(argv)


def _one_run(code: Path, data_dir: Path, word: str) -> dict[str, ImportLog]:
    """This checkout's service and one recall at it, each under ``-X importtime``."""
    port = free_port()
    env = {**env_for(data_dir, port, code), "TESSERA_LOG_LEVEL": "WARNING"}
    with tempfile.TemporaryFile() as serve_err:
        server = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "entrypoints.cli", "serve"],
            cwd=code,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=serve_err,
        )
        try:
            wait_healthy(server, port)
            recall = subprocess.run(  # noqa: S603 - this interpreter and a fixed argv
                [sys.executable, "-X", "importtime", "-m", "entrypoints.cli", "recall", word],
                cwd=code,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                check=True,
            )
        finally:
            server.terminate()
            server.wait(timeout=120)
        serve_err.seek(0)
        served = serve_err.read().decode("utf-8", errors="replace")
    return {"serve": read_log(served), "recall": read_log(recall.stderr)}


def _summary(logs: list[ImportLog]) -> dict[str, Any]:
    packages: Counter[str] = Counter()
    for log in logs:
        packages.update(log.by_package())
    return {
        "modules": statistics.median(log.modules for log in logs),
        "own_import_ms": round(statistics.median(log.own_ms for log in logs), 1),
        "top_packages_ms": {
            name: round(us / len(logs) / 1000, 1) for name, us in packages.most_common(_TOP)
        },
        "optional_imported": sorted({n for log in logs for n in log.imported(OPTIONAL)}),
    }


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    checkouts = arms(args.baseline)
    logs: dict[str, dict[str, list[ImportLog]]] = {
        a: {"serve": [], "recall": []} for a in checkouts
    }
    loads: list[float] = []
    for n, arm, code in in_turns(checkouts, args.runs, loads):
        for command, log in _one_run(code, args.data_dir, f"code word zq{n}x").items():
            logs[arm][command].append(log)
    result = report_head("import_times", loads)
    for arm, commands in logs.items():
        result[arm] = {command: _summary(runs) for command, runs in commands.items()}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
