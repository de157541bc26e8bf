"""The service's own resident memory, before any organisation's index is large.

    python -m benchmarks.service_baseline [--port N]

Why: "resident memory at 1M chunks for the whole service" is the index's
memory (``benchmarks/snapshot_open.py``) plus what a serving process holds
without it: the interpreter, the web stack, the embedded engine, the ONNX
model. This starts a fresh ``tessera serve`` on an empty data directory
(surrealkv store, default settings: the ONNX embedder), waits until it
answers, reads its memory, then runs one search as the owner (which loads
the model and opens the home organisation, empty), waits for the embedding
lane's second model session, and reads it again. Memory from
``/proc/<pid>/status`` (VmRSS, RssAnon, RssFile, VmHWM). Prints one JSON
object (last stdout line).
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks._stats import code_version, machine_info, progress

__all__ = ["main"]

_ROOT = Path(__file__).resolve().parents[1]


def _memory(pid: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        key = line.split(":", 1)[0]
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            out[key] = round(int(line.split()[1]) / 1024, 1)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _call(url: str, key: str | None = None, body: dict[str, Any] | None = None) -> int:
    data = None if body is None else json.dumps(body).encode()
    method = "GET" if data is None else "POST"
    request = urllib.request.Request(url, data=data, method=method)  # noqa: S310 - http only
    request.add_header("content-type", "application/json")
    if key is not None:
        request.add_header("authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310 - our server
            status: int = answer.status
            return status
    except urllib.error.HTTPError as refused:
        return refused.code


def _measure(data: Path, port: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env |= {"TESSERA_DATA_DIR": str(data), "TESSERA_LOG_LEVEL": "WARNING"}
    env["PYTHONPATH"] = str(_ROOT)
    command = [sys.executable, "-m", "entrypoints.cli", "serve", "--port", str(port)]
    began = time.perf_counter()
    proc = subprocess.Popen(  # noqa: S603 - this interpreter, our own arguments
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        while _up(base) is False:
            if proc.poll() is not None or time.perf_counter() - began > 180:
                raise RuntimeError("tessera serve did not start")
            time.sleep(0.5)
        listening_s = time.perf_counter() - began
        time.sleep(2)
        started = _memory(proc.pid)
        key = _owner_key(proc)
        status = _call(f"{base}/api/search", key, {"query": "what did we decide", "limit": 5})
        time.sleep(10)  # the lane's twin model session loads on its own thread
        after = _memory(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return {
        "listening_s": round(listening_s, 1),
        "memory_mb_listening": started,
        "search_status": status,
        "memory_mb_after_first_search": after,
    }


def _up(base: str) -> bool:
    try:
        _call(f"{base}/api/health")
    except OSError:
        return False
    return True


def _owner_key(proc: "subprocess.Popen[str]") -> str:
    assert proc.stdout is not None
    for _ in range(50):
        line = proc.stdout.readline().strip()
        if line.startswith("tsk_") or (line and " " not in line and len(line) > 20):
            return line
    raise RuntimeError("no owner key printed at the first start")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.service_baseline", description=__doc__)
    p.add_argument("--port", type=int, help="port to serve on (default: a free one)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tessera-baseline-") as tmp:
        progress("starting tessera serve")
        result = _measure(Path(tmp) / "data", args.port or _free_port())
    result |= {"machine": machine_info(), "code": code_version()}
    print(json.dumps(result, separators=(",", ":")))


if __name__ == "__main__":
    main()
