"""A restart restores the in-process index from its snapshot and answers what a rebuild answers.

Over ``surrealkv://`` (a fresh directory per test): fill, snapshot, write more
(add, attach, hide, redact, delete) with and without the write-through a dead
process never finished, reopen; every query then answers exactly what a full
rebuild from the same store answers. A corrupt snapshot, one of another
model or format, or one of a recreated organisation is refused and rebuilt.
"""

import os
import random
from pathlib import Path

import msgspec
import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.persistent import PersistentInProcessIndex
from adapters.inprocess.snapshot_files import Manifest, SnapshotFiles
from adapters.surreal.memory_store import SurrealMemoryStore
from application.indexing.readiness import OrgReadiness
from application.indexing.snapshots import SnapshotOutcome
from application.ports.records import EmbeddingSpace
from domain.scopes import LifecycleState
from tests.support.index_world import (
    ORG,
    World,
    answers,
    queries,
    rebuilt_answers,
    without_history,
)

pytestmark = pytest.mark.slow

QUERIES = queries(random.Random(3))


class Process:
    """One service process's store, index and readiness over a data directory."""

    def __init__(self, data: Path) -> None:
        self.store = SurrealMemoryStore(f"surrealkv://{data}")
        self.index = PersistentInProcessIndex(Path(f"{data}.index"))
        self.readiness = OrgReadiness(self.store, self.index, HashingEmbedder(dimension=32))
        assert self.readiness.snapshots is not None
        self.keeper = self.readiness.snapshots

    async def open(self) -> None:
        await self.readiness.ensure(ORG)

    async def close(self, *, clean: bool = True) -> None:
        if clean:
            await self.readiness.close()
        await self.store.close()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


async def _filled(data: Path) -> Process:
    first = Process(data)
    await first.store.prepare(ORG, HashingEmbedder(dimension=32).space)
    world = World(first.store, None)
    await world.add(40)
    await world.add(10, embedded=False)
    await first.open()  # a rebuild: no snapshot yet; it writes one in the background
    await first.keeper.settled()
    return first


async def test_a_restart_restores_the_snapshot_and_catches_up_every_kind_of_write(
    data: Path,
) -> None:
    first = await _filled(data)
    written = first.index.snapshot_info(ORG)
    assert written is not None and written.rows > 0
    # more writes after the snapshot: this process saw them through, then died unsaved
    live = World(first.store, first.index, seed=11)
    live.made = 100
    await live.add(5)
    await live.add(3, embedded=False)
    await live.correct("s00001", LifecycleState.HIDDEN)
    await live.correct("s00002", LifecycleState.REDACTED)
    await live.attach_pending()  # the 10 pending sources of the fill and the 3 new
    # ... and writes it never saw (another writer, or the crash came before the index)
    blind = World(first.store, None, seed=12)
    blind.made = 200
    await blind.add(4)
    await blind.add(2, embedded=False)
    await blind.correct("s00003", LifecycleState.DELETED)
    await blind.correct("s00101", LifecycleState.HIDDEN)
    await first.close(clean=False)  # killed: no save on the way out

    second = Process(data)
    await second.open()
    assert second.keeper.outcomes[ORG] is SnapshotOutcome.LOADED
    assert second.keeper.caught_up[ORG] >= 13  # only what changed since the snapshot
    restored = await answers(second.index, QUERIES)
    assert without_history(restored) == await rebuilt_answers(second.store, QUERIES)
    assert any(restored[k] for k in restored if k.startswith("vec "))
    await second.close()  # clean: the snapshot catches up and is rewritten

    third = Process(data)
    await third.open()
    assert third.keeper.caught_up[ORG] == 0
    # the second save left the deleted rows' words off the disk: chunk BM25 idf moves
    assert without_history(await answers(third.index, QUERIES)) == without_history(restored)
    await third.close()


async def test_a_clean_close_saves_what_changed_and_the_next_open_reads_nothing_back(
    data: Path,
) -> None:
    first = await _filled(data)
    live = World(first.store, first.index, seed=5)
    live.made = 300
    await live.add(6)
    before = await answers(first.index, QUERIES)
    await first.close()
    second = Process(data)
    await second.open()
    assert second.keeper.caught_up[ORG] == 0
    assert await answers(second.index, QUERIES) == before
    await second.close()


async def _reopened_outcome(data: Path) -> tuple[Process, list[str]]:
    second = Process(data)
    outcomes: list[str] = []
    restore = second.index.restore

    async def spy(org_id: str, space: EmbeddingSpace) -> object:
        load = await restore(org_id, space)
        outcomes.append(load.outcome)
        return load

    second.index.restore = spy  # type: ignore[method-assign,assignment]
    await second.open()
    return second, outcomes


@pytest.mark.parametrize("damage", ["flip a vector byte", "truncate state", "drop manifest"])
async def test_a_damaged_snapshot_is_refused_and_rebuilt(data: Path, damage: str) -> None:
    first = await _filled(data)
    await first.close()
    live = SnapshotFiles(Path(f"{data}.index")).live(ORG)
    assert live is not None
    if damage == "flip a vector byte":
        path = live / "vectors.npy"
        raw = bytearray(path.read_bytes())
        raw[-5] ^= 0x40
        path.write_bytes(bytes(raw))
    elif damage == "truncate state":
        path = live / "state.msgpack"
        path.write_bytes(path.read_bytes()[:-10])
    else:
        (live / "manifest.json").unlink()
    second, outcomes = await _reopened_outcome(data)
    assert outcomes == [SnapshotOutcome.CORRUPT]
    assert second.keeper.outcomes[ORG] is SnapshotOutcome.CORRUPT
    assert without_history(await answers(second.index, QUERIES)) == await rebuilt_answers(
        second.store, QUERIES
    )
    await second.close()


async def test_a_snapshot_of_another_model_or_format_is_refused(data: Path) -> None:
    first = await _filled(data)
    await first.close()
    index = PersistentInProcessIndex(Path(f"{data}.index"))
    other = EmbeddingSpace(model="another-model", dimension=32)
    load = await index.restore(ORG, other)
    assert load.outcome is SnapshotOutcome.OTHER_MODEL and not index.is_ready(ORG)
    files = SnapshotFiles(Path(f"{data}.index"))
    live = files.live(ORG)
    assert live is not None
    manifest = msgspec.json.decode((live / "manifest.json").read_bytes(), type=Manifest)
    older = msgspec.structs.replace(manifest, format=manifest.format + 1)
    (live / "manifest.json").write_bytes(msgspec.json.encode(older))
    second, outcomes = await _reopened_outcome(data)
    assert outcomes == [SnapshotOutcome.OTHER_SCHEMA]
    assert second.index.is_ready(ORG)
    await second.close()


async def test_a_snapshot_of_a_dropped_and_recreated_organisation_is_not_caught_up(
    data: Path,
) -> None:
    first = await _filled(data)
    await first.close()
    keep = Path(f"{data}.index.keep")
    os.replace(f"{data}.index", keep)  # an old snapshot survives the drop (a backup)
    second = Process(data)
    await second.store.drop_organization(ORG)
    await second.store.prepare(ORG, HashingEmbedder(dimension=32).space)
    await World(second.store, None, seed=99).add(3)
    await second.store.close()
    os.replace(keep, f"{data}.index")
    third, outcomes = await _reopened_outcome(data)
    assert outcomes == [SnapshotOutcome.LOADED]  # sound files, then the epoch check refuses
    assert without_history(await answers(third.index, QUERIES)) == await rebuilt_answers(
        third.store, QUERIES
    )
    assert third.keeper.outcomes[ORG] is SnapshotOutcome.OTHER_STORE
    await third.close()


async def test_a_redaction_takes_its_text_off_the_disk_at_the_next_use(data: Path) -> None:
    first = await _filled(data)
    files = SnapshotFiles(Path(f"{data}.index"))

    def on_disk() -> bytes:
        live = files.live(ORG)
        assert live is not None
        return b"".join((live / name).read_bytes() for name in ("state.msgpack", "texts.bin"))

    text = (await first.store.chunks_of_source(ORG, "s00005"))[0].text.encode()
    assert text in on_disk()
    await World(first.store, first.index).correct("s00005", LifecycleState.REDACTED)
    await first.readiness.ensure(ORG)  # the next use starts a save at once
    await first.keeper.settled()
    assert text not in on_disk()
    await first.close()


async def test_a_redaction_in_a_process_that_never_loaded_the_index_is_saved_at_close(
    data: Path,
) -> None:
    first = await _filled(data)
    await first.close()
    files = SnapshotFiles(Path(f"{data}.index"))
    second = Process(data)  # a correction needs no warm index: this one never loads it
    text = (await second.store.chunks_of_source(ORG, "s00007"))[0].text.encode()
    live = files.live(ORG)
    assert live is not None and text in (live / "texts.bin").read_bytes()
    await World(second.store, second.index).correct("s00007", LifecycleState.DELETED)
    assert not second.index.is_ready(ORG)
    await second.close()
    live = files.live(ORG)
    assert live is not None and text not in (live / "texts.bin").read_bytes()
    third, outcomes = await _reopened_outcome(data)
    assert outcomes == [SnapshotOutcome.LOADED] and third.keeper.caught_up[ORG] == 0
    await third.close()
