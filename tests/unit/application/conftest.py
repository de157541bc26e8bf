from datetime import UTC, datetime

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from adapters.system.clock import FixedClock
from adapters.system.ids import TimeOrderedIds
from adapters.tokenizers.tiktoken_counter import TiktokenCounter
from application.memory_service import MemoryService


class Parts:
    def __init__(self) -> None:
        self.store = InMemoryMemoryStore()
        self.index = InProcessIndex()
        self.embedder = HashingEmbedder()
        self.clock = FixedClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
        self.service = MemoryService(
            store=self.store,
            index=self.index,
            embedder=self.embedder,
            tokens=TiktokenCounter(),
            clock=self.clock,
            ids=TimeOrderedIds(),
        )


@pytest.fixture
def parts() -> Parts:
    return Parts()
