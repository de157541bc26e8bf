"""The crash test: a writer killed with SIGKILL mid-write or mid-snapshot loses nothing.

A real process (tests/support/crash_writer.py) writes to surrealkv and its
index and saves snapshots in the background; it is killed three times at a
random moment (the seed is in every failure message) and restarted each time
from whatever snapshot survived. Afterwards the index of a fresh process
agrees with the store: every stored chunk is a candidate, none is extra, and
every query answers what a full rebuild answers.
"""

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.persistent import PersistentInProcessIndex
from adapters.surreal.memory_store import SurrealMemoryStore
from application.indexing.readiness import OrgReadiness
from application.ports.records import CandidateFilter
from domain.lifecycle import RECALL_OPEN
from tests.support.index_world import ORG, answers, queries, rebuilt_answers, without_history

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _write_then_kill(data: Path, seed: int, rounds: int, rng: random.Random) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.crash_writer", str(data), str(seed)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 240
    done = 0
    while done < rounds and time.monotonic() < deadline:
        line = proc.stdout.readline()
        assert line, f"seed {seed}: the writer ended: {proc.stderr.read()[-2000:]!r}"  # type: ignore[union-attr]
        done += line.startswith(b"wrote")
    time.sleep(rng.uniform(0.0, 0.3))
    proc.kill()
    proc.wait(timeout=30)


async def test_killed_writers_leave_an_index_that_agrees_with_the_store(tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    data = tmp_path / "data"
    for kill in range(3):
        _write_then_kill(data, seed + kill, rng.randint(4, 12), rng)
    store = SurrealMemoryStore(f"surrealkv://{data}")
    index = PersistentInProcessIndex(Path(f"{data}.index"))
    readiness = OrgReadiness(store, index, HashingEmbedder(dimension=32))
    try:
        await readiness.ensure(ORG)
        stored = await store.scan_index_entries(ORG, None, 1_000_000)
        assert stored, f"seed {seed}: nothing was written"
        open_ids = sorted(e.chunk_id for e in stored if e.recall_key == RECALL_OPEN)
        every = CandidateFilter()
        found = await index.candidate_texts(ORG, [e.chunk_id for e in stored], every)
        assert sorted(found) == open_ids, f"seed {seed}"
        org = index._orgs[ORG]
        mask = org.live(every)
        live = {org.ids[r] for r in range(org.size) if mask[r]}
        assert live == set(open_ids), f"seed {seed}: extra {sorted(live - set(open_ids))[:5]}"
        with_vectors = {e.chunk_id for e in stored if e.vector is not None}
        vector_rows = {
            org.ids[r] for r in range(org.size) if org.has_vector[r] and org.live(every)[r]
        }
        assert vector_rows == with_vectors & set(open_ids), f"seed {seed}"
        asked = queries(random.Random(seed), 8)
        got = without_history(await answers(index, asked))
        assert got == await rebuilt_answers(store, asked), f"seed {seed}"
    finally:
        await store.close()
