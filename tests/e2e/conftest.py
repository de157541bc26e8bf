import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from adapters.inmemory.audit_log import InMemoryAuditLog
from adapters.inmemory.control_store import InMemoryControlStore
from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from adapters.system.clock import SystemClock
from adapters.system.ids import TimeOrderedIds
from adapters.tokenizers.tiktoken_counter import TiktokenCounter
from application.services import Services
from domain.policy import Surface
from entrypoints.http.app import create_app

ROOT = Path(__file__).resolve().parents[2]


def services_over_fakes() -> Services:
    return Services(
        store=InMemoryMemoryStore(),
        index=InProcessIndex(),
        embedder=HashingEmbedder(),
        tokens=TiktokenCounter(),
        control=InMemoryControlStore(),
        audit_log=InMemoryAuditLog(),
        clock=SystemClock(),
        ids=TimeOrderedIds(),
        home_org_id="local",
    )


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
