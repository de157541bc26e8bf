import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from adapters.system.clock import SystemClock
from adapters.system.ids import TimeOrderedIds
from adapters.tokenizers.tiktoken_counter import TiktokenCounter
from application.memory_service import MemoryService
from entrypoints.http.app import create_app
from entrypoints.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    """The real app over the reference adapters: fast, and the same handlers."""
    service = MemoryService(
        store=InMemoryMemoryStore(),
        index=InProcessIndex(),
        embedder=HashingEmbedder(),
        tokens=TiktokenCounter(),
        clock=SystemClock(),
        ids=TimeOrderedIds(),
    )
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_DB_URL": "mem://"})
    with TestClient(app=create_app(service, settings)) as test_client:
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
