"""Imports over the reference adapters: dedupe, resume, skips, and authority per batch."""

from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path

import pytest

from adapters.inmemory.import_store import InMemoryImportStore
from adapters.sources.jsonl import JsonlSourceAdapter
from adapters.sources.mbox import MboxSourceAdapter
from adapters.system.ids import TimeOrderedIds
from application.imports.authority import JobAuthorizer
from application.imports.import_service import ImportService
from application.imports.jobs import ImportJob, ImportStatus, JobAuthority
from application.memory.commands import SearchRequest
from application.trust.records import PrincipalRecord
from domain.errors import InvalidInputError, PolicyDeniedError
from domain.policy import MemoryPolicyContext, OrgRole, Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef
from tests.support import archives
from tests.support.world import World


class Setup:
    def __init__(self, world: World, owner: PrincipalRecord, key_id: str) -> None:
        self.world = world
        self.owner = owner
        self.key_id = key_id
        self.store = InMemoryImportStore()
        self.imports = self.service()

    def service(self, batch_size: int = 2) -> ImportService:
        return ImportService(
            memory=self.world.services.memory,
            store=self.store,
            contexts=JobAuthorizer(self.world.control_store, self.world.services.access),
            adapters={"mbox": MboxSourceAdapter(), "jsonl": JsonlSourceAdapter()},
            ids=TimeOrderedIds(),
            clock=self.world.clock,
            batch_size=batch_size,
        )

    @property
    def authority(self) -> JobAuthority:
        return JobAuthority(
            org_id=self.owner.org_id, principal_id=self.owner.principal_id, key_id=self.key_id
        )

    async def start(self, path: Path, adapter: str = "mbox") -> ImportJob:
        job = await self.imports.create(adapter=adapter, path=path, authority=self.authority)
        return await self.imports.run(job.org_id, job.import_id)


@pytest.fixture
async def setup() -> Setup:
    world = World()
    org_id = await world.org("acme")
    owner = await world.user(org_id, "ana", OrgRole.OWNER)
    issued = await world.services.control.create_key(org_id, owner.principal_id, None, Surface.CLI)
    return Setup(world, owner, issued.key_id)


async def test_an_mbox_import_writes_each_message_once_and_reports_the_rest(
    setup: Setup, tmp_path: Path
) -> None:
    job = await setup.start(archives.build_mbox(tmp_path).path)
    assert job.status is ImportStatus.COMPLETED
    c = job.counters
    assert (c.read, c.written, c.duplicates, c.skipped, c.failed) == (6, 4, 1, 1, 0)
    assert [(p.record_id, p.reason) for p in job.problems] == [("mail.mbox#4", "malformed")]
    assert job.checkpoint == "mbox:5"
    assert (job.scope, job.scope_key) == (MemoryScope.PRIVATE, setup.owner.principal_id)
    found = await setup.world.services.memory.search(
        SearchRequest(org_id=job.org_id, query="Quarterly numbers"),
        await setup.world.ctx(setup.owner),
    )
    assert found.results and "Quarterly numbers" in found.results[0].text


async def test_importing_the_same_archive_again_adds_nothing(setup: Setup, tmp_path: Path) -> None:
    path = archives.build_mbox(tmp_path).path
    await setup.start(path)
    chunks = await setup.world.store.count_chunks(setup.owner.org_id)
    second = await setup.service().create(adapter="mbox", path=path, authority=setup.authority)
    again = await setup.service().run(second.org_id, second.import_id)
    assert (again.counters.written, again.counters.duplicates) == (0, 5)
    assert await setup.world.store.count_chunks(setup.owner.org_id) == chunks


async def test_a_key_revoked_mid_way_stops_the_import_at_the_next_batch(
    setup: Setup, tmp_path: Path
) -> None:
    authorizer = JobAuthorizer(setup.world.control_store, setup.world.services.access)
    world = setup.world

    class RevokeOnSecondBatch:
        """The real authorizer; the key is revoked just before the second batch is checked."""

        calls = 0

        async def context(self, authority: JobAuthority | None) -> MemoryPolicyContext:
            self.calls += 1
            if self.calls == 3:  # 1: create, 2: first batch, 3: second batch
                await world.control_store.revoke_key(setup.key_id, world.clock.now())
            return await authorizer.context(authority)

    imports = ImportService(
        memory=world.services.memory,
        store=setup.store,
        contexts=RevokeOnSecondBatch(),
        adapters={"mbox": MboxSourceAdapter()},
        ids=TimeOrderedIds(),
        clock=world.clock,
        batch_size=2,
    )
    job = await imports.create(
        adapter="mbox", path=archives.build_mbox(tmp_path).path, authority=setup.authority
    )
    stopped = await imports.run(job.org_id, job.import_id)
    assert stopped.status is ImportStatus.FAILED
    assert stopped.error is ReasonCode.JOB_POLICY_CONTEXT_STALE
    assert (stopped.counters.read, stopped.counters.written) == (2, 2)
    assert stopped.checkpoint == "mbox:1"


async def test_a_job_without_authority_fails_closed(setup: Setup, tmp_path: Path) -> None:
    with pytest.raises(PolicyDeniedError) as caught:
        await setup.imports.create(
            adapter="mbox", path=archives.build_mbox(tmp_path).path, authority=None
        )
    assert caught.value.reason is ReasonCode.JOB_POLICY_CONTEXT_MISSING


async def test_an_unknown_adapter_is_refused(setup: Setup, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        await setup.imports.create(adapter="pst", path=tmp_path, authority=setup.authority)


async def test_a_shared_space_needs_the_policy_to_allow_it(setup: Setup, tmp_path: Path) -> None:
    with pytest.raises(PolicyDeniedError):
        await setup.imports.create(
            adapter="mbox",
            path=archives.build_mbox(tmp_path).path,
            authority=setup.authority,
            scope=MemoryScope.TEAM,
            scope_key="nobody-enabled-this",
        )


async def test_an_interrupted_import_resumes_without_loss_or_doubles(
    setup: Setup, tmp_path: Path
) -> None:
    path = archives.build_jsonl(tmp_path).path
    job = await setup.imports.create(adapter="jsonl", path=path, authority=setup.authority)

    class Stop(Exception):
        pass

    def stop_after_first_batch(progress: ImportJob) -> None:
        raise Stop

    with pytest.raises(Stop):
        await setup.imports.run(job.org_id, job.import_id, stop_after_first_batch)
    halfway = await setup.imports.get(job.org_id, job.import_id)
    assert halfway.counters.read == 2 and halfway.checkpoint is not None
    done = await setup.imports.run(job.org_id, job.import_id)
    c = done.counters
    assert done.status is ImportStatus.COMPLETED
    assert (c.read, c.written, c.duplicates, c.skipped) == (6, 3, 0, 3)


async def test_a_cancelled_import_does_not_run(setup: Setup, tmp_path: Path) -> None:
    path = archives.build_mbox(tmp_path).path
    job = await setup.imports.create(adapter="mbox", path=path, authority=setup.authority)
    cancelled = await setup.imports.cancel(job.org_id, job.import_id)
    assert cancelled.status is ImportStatus.CANCELLED
    after = await setup.imports.run(job.org_id, job.import_id)
    assert after.counters.read == 0 and after.status is ImportStatus.CANCELLED


async def test_an_import_can_advance_in_steps(setup: Setup, tmp_path: Path) -> None:
    path = archives.build_mbox(tmp_path).path
    job = await setup.imports.create(adapter="mbox", path=path, authority=setup.authority)
    reads = []
    for _ in range(5):
        step = await setup.imports.run(job.org_id, job.import_id, max_batches=1)
        reads.append((step.status, step.counters.read))
        if step.status is ImportStatus.COMPLETED:
            break
    assert reads == [
        (ImportStatus.PAUSED, 2),
        (ImportStatus.PAUSED, 4),
        (ImportStatus.PAUSED, 6),
        (ImportStatus.COMPLETED, 6),
    ]
    assert step.counters.written == 4 and step.counters.duplicates == 1


async def test_an_archive_that_is_gone_fails_the_import_with_a_reason(
    setup: Setup, tmp_path: Path
) -> None:
    archive = archives.build_mbox(tmp_path).path
    job = await setup.imports.create(adapter="mbox", path=archive, authority=setup.authority)
    archive.unlink()  # gone between the start and the run
    failed = await setup.imports.run(job.org_id, job.import_id)
    assert (failed.status, failed.error) == (ImportStatus.FAILED, ReasonCode.NOT_FOUND)
    assert [j.import_id for j in await setup.store.list_jobs(job.org_id)] == [job.import_id]


class _CrashingStore(InMemoryImportStore):
    """Dies (a RuntimeError, as SIGKILL would) on the n-th ledger write, before or after it.

    Each ledger write also moves the world's clock on, so every source is
    older than the checkpoint saved after it, as with a real clock.
    """

    def __init__(self, world: World, crash_at: int, after_write: bool) -> None:
        super().__init__(world.store)
        self._world = world
        self._left = crash_at
        self._after = after_write

    async def add_keys(self, org_id: str, space: str, keys: Iterable[str]) -> None:
        self._world.clock.set(self._world.clock.now() + timedelta(seconds=1))
        self._left -= 1
        if self._left == 0 and not self._after:
            raise RuntimeError("killed before the ledger entry")
        await super().add_keys(org_id, space, keys)
        if self._left == 0:
            raise RuntimeError("killed after the ledger entry, before the checkpoint")


@pytest.mark.parametrize("after_write", [False, True])
async def test_a_crash_between_a_write_and_its_checkpoint_loses_and_doubles_nothing(
    setup: Setup, tmp_path: Path, after_write: bool
) -> None:
    path = archives.build_mbox(tmp_path).path  # item 5 repeats item 1's Message-ID
    # one ledger write per batch (of 2 here): the second one dies, mid-way through batch 2
    crashing = _CrashingStore(setup.world, crash_at=2, after_write=after_write)
    setup.store = crashing
    job = await setup.service().create(adapter="mbox", path=path, authority=setup.authority)
    with pytest.raises(RuntimeError):
        await setup.service().run(job.org_id, job.import_id)
    crashed = await crashing.get_job(job.org_id, job.import_id)
    assert crashed is not None and crashed.status is ImportStatus.RUNNING
    assert (crashed.checkpoint, crashed.counters.written) == ("mbox:1", 2)

    done = await setup.service().run(job.org_id, job.import_id)  # the store outlived the crash
    c = done.counters
    assert (done.status, c.read, c.written, c.duplicates, c.skipped) == (
        ImportStatus.COMPLETED, 6, 4, 1, 1,
    )  # fmt: skip
    space = ScopeRef(MemoryScope.PRIVATE, setup.owner.principal_id)
    sources = await setup.world.store.source_states(job.org_id, space, 100)
    assert len(sources) == 4
    second = await setup.service().create(adapter="mbox", path=path, authority=setup.authority)
    again = await setup.service().run(second.org_id, second.import_id)
    assert (again.counters.written, again.counters.duplicates) == (0, 5)
