"""Idle organisations leave memory with their snapshot written, and come back from it.

A fake clock drives readiness: an organisation unused for ``idle_after`` is
snapshotted and evicted by the sweep another organisation's use starts;
writes made while it is out reach only the store; its next use restores the
snapshot and catches them up, so it answers what a rebuild answers. An
organisation in use, one not ready yet, or an index without the setting is
never evicted.
"""

import random
from pathlib import Path

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.persistent import PersistentInProcessIndex
from application.indexing.idle_eviction import IdleEviction
from application.indexing.readiness import OrgReadiness
from domain.scopes import LifecycleState
from entrypoints.container import make_index
from entrypoints.settings import IndexKind, SettingsError, load_settings
from tests.support.index_world import (
    ORG,
    World,
    answers,
    queries,
    rebuilt_answers,
    without_history,
)

OTHER = "other-org"
IDLE = 600.0
QUERIES = queries(random.Random(17), 6)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Process:
    def __init__(self, root: Path, idle_after: float | None = IDLE) -> None:
        self.clock = Clock()
        self.store = InMemoryMemoryStore()
        self.index = PersistentInProcessIndex(root, idle_after=idle_after)
        embedder = HashingEmbedder(dimension=32)
        self.readiness = OrgReadiness(self.store, self.index, embedder, clock=self.clock)
        self.world = World(self.store, self.index)

    @property
    def eviction(self) -> IdleEviction:
        assert self.readiness.eviction is not None
        return self.readiness.eviction

    async def sweep_after_use_of(self, org_id: str) -> None:
        await self.readiness.ensure(org_id)
        await self.eviction.close()  # the sweep that use started, if any


async def _started(root: Path) -> Process:
    p = Process(root)
    await p.readiness.ensure(ORG)
    await p.world.add(30)
    await p.world.add(3, embedded=False)
    await p.readiness.ensure(OTHER)
    return p


async def test_an_idle_organisation_is_snapshotted_evicted_and_restored(tmp_path: Path) -> None:
    p = await _started(tmp_path / "snap")
    rows = p.index.residency(ORG)
    assert rows is not None and rows.rows > 0 and rows.resident_bytes > 0
    p.clock.now += IDLE - 1
    await p.sweep_after_use_of(OTHER)
    assert p.index.residency(ORG) is not None  # not idle long enough
    p.clock.now += 30  # idle now, but a sweep ran less than a minute ago
    await p.sweep_after_use_of(OTHER)
    assert p.index.residency(ORG) is not None
    p.clock.now += 31
    await p.sweep_after_use_of(OTHER)
    assert p.index.residency(ORG) is None and not p.index.is_ready(ORG)
    assert p.eviction.evictions == {ORG: 1}
    assert p.index.residency(OTHER) is not None  # in use: stays
    info = p.index.snapshot_info(ORG)
    assert info is not None and info.rows == rows.rows  # written before it left
    # writes while it is out reach the store only, not a partial index
    p.world.made = 200
    await p.world.add(4)
    await p.world.correct("s00002", LifecycleState.DELETED)
    await p.world.correct("s00004", LifecycleState.HIDDEN)
    await p.world.attach_pending()
    assert p.index.residency(ORG) is None
    await p.readiness.ensure(ORG)  # back from the snapshot, caught up
    assert p.readiness.snapshots is not None
    assert str(p.readiness.snapshots.outcomes[ORG]) == "loaded"
    assert p.readiness.snapshots.caught_up[ORG] >= 6
    assert without_history(await answers(p.index, QUERIES)) == await rebuilt_answers(
        p.store, QUERIES
    )
    await p.readiness.close()


async def test_an_organisation_in_use_is_never_evicted(tmp_path: Path) -> None:
    p = await _started(tmp_path / "snap")
    for _ in range(5):
        p.clock.now += IDLE / 2
        await p.readiness.ensure(ORG)
        await p.sweep_after_use_of(OTHER)
    assert p.index.residency(ORG) is not None and p.eviction.evictions == {}
    await p.readiness.close()


async def test_an_organisation_being_built_is_not_evicted(tmp_path: Path) -> None:
    p = Process(tmp_path / "snap")
    await p.readiness.ensure(OTHER)
    p.index._org(ORG)  # a rebuild under way: resident, not ready
    p.clock.now += 2 * IDLE
    assert ORG not in p.eviction.idle()  # first seen now
    p.clock.now += 2 * IDLE
    assert ORG in p.eviction.idle()
    assert ORG not in await p.eviction.sweep()
    assert p.index.residency(ORG) is not None
    await p.readiness.close()


async def test_without_the_setting_nothing_is_evicted(tmp_path: Path) -> None:
    p = Process(tmp_path / "snap", idle_after=None)
    assert p.readiness.eviction is None
    with pytest.raises(ValueError, match="idle_after"):
        IdleEviction(p.index, p.readiness.snapshots, 0, p.clock)  # type: ignore[arg-type]


def test_the_setting_is_minutes_or_off(tmp_path: Path) -> None:
    base = {"TESSERA_DATA_DIR": str(tmp_path)}
    assert load_settings(base).index_idle_minutes == 30
    assert load_settings({**base, "TESSERA_INDEX_IDLE_MINUTES": "2.5"}).index_idle_minutes == 2.5
    assert load_settings({**base, "TESSERA_INDEX_IDLE_MINUTES": "OFF"}).index_idle_minutes is None
    for bad in ("0", "-3", "soon", "inf"):
        with pytest.raises(SettingsError, match="TESSERA_INDEX_IDLE_MINUTES"):
            load_settings({**base, "TESSERA_INDEX_IDLE_MINUTES": bad})


def test_the_composition_root_hands_the_setting_to_a_snapshotting_index(tmp_path: Path) -> None:
    from adapters.surreal.memory_store import SurrealMemoryStore

    store = SurrealMemoryStore(f"surrealkv://{tmp_path / 'db'}")
    index = make_index(IndexKind.INPROCESS, store, None, 90.0)
    assert isinstance(index, PersistentInProcessIndex) and index.idle_after == 90.0
    assert make_index(IndexKind.INPROCESS, InMemoryMemoryStore(), None, 90.0).name == "inprocess"
