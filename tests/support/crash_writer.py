"""A writer process for the snapshot crash test: opens the index, then writes until killed.

Run as ``python -m tests.support.crash_writer DATA_DIR SEED``. Each round writes
a bulk batch (new sources, some pending), attaches pending vectors, hides or
deletes an earlier source, all through to the index as the use cases do, and
prints ``wrote N`` after each; snapshots are saved in the background every few
rounds. The test kills it with SIGKILL at a random moment, mid-write or
mid-snapshot, and checks the next process's index against the store.
"""

import asyncio
import random
import sys
from pathlib import Path

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.persistent import PersistentInProcessIndex
from adapters.surreal.memory_store import SurrealMemoryStore
from application.indexing.readiness import OrgReadiness
from domain.scopes import LifecycleState
from tests.support.index_world import ORG, World

__all__ = ["main"]


async def main(data: Path, seed: int) -> None:
    store = SurrealMemoryStore(f"surrealkv://{data}")
    index = PersistentInProcessIndex(Path(f"{data}.index"))
    embedder = HashingEmbedder(dimension=32)
    readiness = OrgReadiness(store, index, embedder)
    keeper = readiness.snapshots
    assert keeper is not None
    keeper._save_every, keeper._min_interval = 40, 0.0  # snapshots often: kills land in them
    await readiness.ensure(ORG)
    world = World(store, index, seed=seed)
    world.made = await store.count_sources(ORG)
    rng = random.Random(seed)
    for n in range(10_000):
        added = await world.add(rng.randint(5, 20), embedded=rng.random() < 0.7)
        if n % 2:
            await world.attach_pending()
        if rng.random() < 0.5:
            state = rng.choice([LifecycleState.HIDDEN, LifecycleState.DELETED])
            await world.correct(rng.choice(added), state)
        await readiness.ensure(ORG)  # the use that starts a background save
        print(f"wrote {n}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
