"""Resident memory of the whole service (``tessera serve``) on a data directory, measured.

Why: the figure that matters is the RSS of the whole service at 1M chunks (the Litestar
app, the ONNX embedder, the embedded SurrealDB and the in-process index in one
process), not of a benchmark process that opens the same parts. This starts
the real service as the README does (``tessera serve`` in a subprocess, with
``TESSERA_DATA_DIR``, ``TESSERA_ORG`` and ``TESSERA_PORT``), waits for
``/api/health`` (the index is restored before the server listens), sends
``--queries`` authenticated searches over HTTP (LongMemEval questions), waits
``--settle`` seconds (the episode postings' build, where the snapshot has none)
and sends them again, while a thread samples the server's ``/proc/<pid>/status``.

The key: the service's owner key is made before the start, in this process, on
the same store (the control plane's ``create_key``, as ``benchmarks._wiring.owner_key``);
the embedded store admits one process at a time, so that process closes it first.

    PYTHONPATH=. python -m benchmarks.service_rss --data-dir /tmp/s7/fillA --org bench \
        --queries 50 --settle 40

With ``--first-search`` the first question is sent as soon as the port takes
connections, before the health is asked: ``first_search_s`` is the process
start to that answer, ``first_search_correct`` whether it equals the settled
service's answer to the same question. Prints one JSON object: open seconds
(start to health), peak RSS (``VmHWM``),
RSS and anonymous RSS after the first searches and after the settle, and the
searches' wall latencies (the machine may be loaded: an indication only).
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._stats import progress

__all__ = ["main"]

_FIELDS = ("VmRSS", "VmHWM", "RssAnon", "RssFile")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.service_rss", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="TESSERA_DATA_DIR (db inside)")
    p.add_argument("--org", default="bench", help="the organisation the store holds")
    p.add_argument("--data", type=Path, default=None, help=DATA_HELP)
    p.add_argument("--queries", type=int, default=50, help="searches per pass (distinct)")
    p.add_argument("--settle", type=float, default=40.0, help="seconds between the passes")
    p.add_argument("--start-timeout", type=float, default=900.0)
    p.add_argument(
        "--first-search",
        action="store_true",
        help="before the health, search from the moment the port opens: seconds from the "
        "spawn to the first answer, and whether it is the settled service's answer",
    )
    return p.parse_args(argv)


def status_mb(pid: int) -> dict[str, float]:
    """The process's memory figures, MiB (empty when it is gone or not Linux)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return {}
    out: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in _FIELDS:
            out[name] = round(int(value.split()[0]) / 1024, 1)
    return out


class Sampler(threading.Thread):
    """The largest of each figure seen, sampled every ``every`` seconds."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.peaks: dict[str, float] = {}
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            for name, value in status_mb(self.pid).items():
                self.peaks[name] = max(self.peaks.get(name, 0.0), value)
            self._halt.wait(self.every)

    def stop(self) -> None:
        self._halt.set()
        self.join()


async def _make_key(data_dir: Path, org: str) -> str:
    """An owner key of ``org`` on the store, made and closed before the service starts."""
    from adapters.inmemory.hashing_embedder import HashingEmbedder
    from adapters.inprocess.index import InProcessIndex
    from benchmarks._wiring import make_services, make_store, owner_key
    from domain.policy import Surface

    store = make_store(f"surrealkv://{data_dir / 'db'}", native_search=False)
    await store.open()  # type: ignore[attr-defined]
    try:
        # the control plane only: no index is opened, no vector is made
        services = make_services(store, InProcessIndex(), HashingEmbedder(dimension=384), org)
        # a store no service has opened yet (a benchmark's fill): its owner is made here,
        # as the service's first start would make it
        issued = await services.control.bootstrap(Surface.CLI)
        return issued.key if issued is not None else await owner_key(services)
    finally:
        await store.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(url: str, key: str | None = None, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")  # noqa: S310 - our own local server
    request.add_header("Content-Type", "application/json")
    if key is not None:
        request.add_header("Authorization", f"Bearer {key}")
    with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - local
        return json.loads(response.read())


def _wait_healthy(
    base: str, server: subprocess.Popen[bytes], timeout: float, began: float
) -> float:
    """Seconds from ``began`` (the spawn) until ``/api/health`` answers ok."""
    while time.perf_counter() - began < timeout:
        if server.poll() is not None:
            raise RuntimeError(f"the service exited ({server.returncode}) before its health")
        try:
            _call(f"{base}/api/health")
            return time.perf_counter() - began
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.02)
    raise TimeoutError("the service did not answer its health in time")


def _search_ids(base: str, key: str, question: str) -> list[str]:
    reply = _call(f"{base}/api/search", key, {"query": question, "limit": 10})
    return [str(hit["chunk_id"]) for hit in reply["results"]]


def _first_search(
    base: str, key: str, question: str, spawned: float, server: subprocess.Popen[bytes]
) -> tuple[float, list[str]]:
    """Seconds from the spawn until a search is answered, asked from the moment the port
    takes connections (a service still starting holds it until it can search), and its
    answer."""
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"the service exited ({server.returncode}) before a search")
        try:
            ids = _search_ids(base, key, question)
            return time.perf_counter() - spawned, ids
        except urllib.error.HTTPError as exc:
            if exc.code != 503:  # 503: still starting, asked again
                raise
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.01)


def _searches(base: str, key: str, questions: list[str]) -> dict[str, float]:
    took: list[float] = []
    for question in questions:
        began = time.perf_counter()
        _call(f"{base}/api/search", key, {"query": question, "limit": 10})
        took.append((time.perf_counter() - began) * 1000)
    took.sort()
    return {
        "searches": len(took),
        "p50_ms": round(took[len(took) // 2], 1),
        "p95_ms": round(took[min(len(took) - 1, int(0.95 * len(took)))], 1),
    }


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    questions = load_corpus(args.data).questions[: args.queries]
    progress("making the owner key")
    key = asyncio.run(_make_key(args.data_dir, args.org))
    port = _free_port()
    env = {
        **os.environ,
        "TESSERA_DATA_DIR": str(args.data_dir),
        "TESSERA_ORG": args.org,
        "TESSERA_PORT": str(port),
    }
    tessera = Path(sys.executable).with_name("tessera")
    progress(f"starting {tessera} serve on port {port}")
    spawned = time.perf_counter()
    server = subprocess.Popen(  # noqa: S603 - the installed entry point, our own arguments
        [str(tessera), "serve", "--port", str(port)], env=env
    )
    sampler = Sampler(server.pid)
    sampler.start()
    out: dict[str, Any] = {"data_dir": str(args.data_dir), "queries": len(questions)}
    try:
        base = f"http://127.0.0.1:{port}"
        health: list[float] = []
        asking = threading.Thread(
            target=lambda: health.append(_wait_healthy(base, server, args.start_timeout, spawned)),
            daemon=True,
        )
        asking.start()  # the health asked beside the first search, each on its own
        if args.first_search:
            took, first = _first_search(base, key, questions[0], spawned, server)
            out["first_search_s"] = round(took, 2)
        asking.join(args.start_timeout)
        if not health:
            raise TimeoutError("the service did not answer its health in time")
        out["open_s"] = round(health[0], 2)
        out["at_health_mb"] = status_mb(server.pid)
        progress("searching")
        out["first_pass"] = _searches(base, key, questions)
        out["after_first_pass_mb"] = status_mb(server.pid)
        progress(f"settling {args.settle} s")
        time.sleep(args.settle)
        out["second_pass"] = _searches(base, key, questions)
        if args.first_search:
            # correct: the same hits, in the same order, as the settled service gives
            out["first_search_correct"] = first == _search_ids(base, key, questions[0])
        out["settled_mb"] = status_mb(server.pid)
    finally:
        out["peak_mb"] = status_mb(server.pid).get("VmHWM")  # the kernel's own peak
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=120)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        sampler.stop()
        out["sampled_peaks_mb"] = sampler.peaks
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
