import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.inmemory.audit_log import InMemoryAuditLog
from adapters.inmemory.candidate_store import InMemoryCandidateStore
from adapters.inmemory.control_store import InMemoryControlStore
from adapters.inmemory.graph_store import InMemoryGraphStore
from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inmemory.synthesis_runs import InMemorySynthesisRuns
from adapters.inprocess.index import InProcessIndex
from adapters.system.clock import SystemClock
from adapters.system.ids import TimeOrderedIds
from adapters.text.sentences import SentencexSegmenter
from adapters.tokenizers.tiktoken_counter import TiktokenCounter
from application.services import Services
from domain.policy import Surface
from entrypoints.bootstrap import compose
from entrypoints.http.app import create_app

ROOT = Path(__file__).resolve().parents[2]


def services_over_fakes(**overrides: Any) -> Services:
    """Services over the reference adapters; ``overrides`` replaces any part or adds one."""
    parts: dict[str, Any] = {
        "store": InMemoryMemoryStore(),
        "index": InProcessIndex(),
        "embedder": HashingEmbedder(),
        "tokens": TiktokenCounter(),
        "control": InMemoryControlStore(),
        "audit_log": InMemoryAuditLog(),
        "clock": SystemClock(),
        "ids": TimeOrderedIds(),
        "home_org_id": "local",
        "synthesis_runs": InMemorySynthesisRuns(),
        "candidates": InMemoryCandidateStore(),
        "graph": InMemoryGraphStore(),
        "segmenter": SentencexSegmenter(),
    }
    return compose(**{**parts, **overrides})


@pytest.fixture
def client() -> Iterator[TestClient]:  # type: ignore[type-arg]
    """The real app over the reference adapters, as the home organisation's owner."""
    services = services_over_fakes()
    issued = asyncio.run(services.control.bootstrap(Surface.CLI))
    assert issued is not None
    with TestClient(app=create_app(services)) as test_client:
        test_client.headers["authorization"] = f"Bearer {issued.key}"
        yield test_client


def tessera_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update(
        {
            "TESSERA_DATA_DIR": str(data_dir),
            "TESSERA_LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(ROOT),
        },
        **extra,
    )
    return env


TESSERA = [sys.executable, "-m", "entrypoints.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _starting(answer: urllib.error.HTTPError) -> bool:
    """Whether the answer is the start gate's: the service listens while it opens, and its
    health says ``starting`` (503) until it can serve (its owner key written among others)."""
    return answer.code == 503 and b'"starting"' in answer.read()


def start_listening(args: list[str], env: dict[str, str], url: str) -> "subprocess.Popen[str]":
    """Start a Tessera process and wait until ``url`` answers (any HTTP status but the
    start gate's ``starting``)."""
    proc = subprocess.Popen(
        [*TESSERA, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return proc
        except urllib.error.HTTPError as answer:
            if not _starting(answer):
                return proc  # it answered
            time.sleep(0.1)
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"process exited: {proc.stdout.read() if proc.stdout else ''}")
            time.sleep(0.3)
    proc.kill()
    pytest.fail(f"{' '.join(args)} did not start")


def stop(proc: "subprocess.Popen[str]") -> None:
    """End a process ``start_listening`` started: SIGTERM, then a kill if it lingers."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
