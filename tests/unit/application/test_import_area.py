"""The import area: who imports which path, whose uploads are whose, and when uploads go."""

import asyncio
import os
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from adapters.inmemory.import_store import InMemoryImportStore
from adapters.sources.registry import source_adapters
from adapters.system.ids import TimeOrderedIds
from application.imports.import_area import ImportArea, folder_name
from application.imports.import_jobs import ABANDONED_AFTER, ImportJobs, ImportSetup
from application.imports.views import ImportView
from application.trust.records import PrincipalRecord
from domain.errors import InvalidInputError, NotFoundError, PolicyDeniedError
from domain.policy import OrgRole
from domain.reasons import ReasonCode
from tests.support import archives
from tests.support.world import World


class Org:
    def __init__(self, world: World, root: Path, org_id: str, owner: PrincipalRecord) -> None:
        self.world = world
        self.root = root
        self.org_id = org_id
        self.owner = owner


def _jobs(
    world: World,
    root: Path,
    *,
    approved: Collection[tuple[str, str]] = (),
    granted: Mapping[str, Sequence[Path]] | None = None,
    keep: timedelta = timedelta(0),
    anywhere: bool = False,
    store: InMemoryImportStore | None = None,
) -> ImportJobs:
    setup = ImportSetup(
        store=store or InMemoryImportStore(),
        adapters=source_adapters(),
        root=root,
        max_upload_bytes=1 << 20,
        anywhere=anywhere,
        granted=granted or {},
        path_principals=approved,
        keep_uploads=keep,
    )
    return ImportJobs(
        setup,
        memory=world.services.memory,
        control=world.control_store,
        access=world.services.access,
        audit=world.services.audit,
        ids=TimeOrderedIds(),
        clock=world.clock,
    )


@pytest.fixture
async def acme(tmp_path: Path) -> Org:
    world = World()
    world.clock.set(datetime.now(UTC))  # uploads' folders carry real modification times
    org_id = await world.org("acme")
    owner = await world.user(org_id, "ana", OrgRole.OWNER)
    return Org(world, tmp_path / "imports", org_id, owner)


async def _until_ended(
    jobs: ImportJobs, org: Org, who: PrincipalRecord, import_id: str
) -> ImportView:
    ctx = await org.world.ctx(who)
    for _ in range(500):
        view = await jobs.get(ctx, import_id)
        if view.status not in {"pending", "running"}:
            await asyncio.sleep(0.01)  # its task removes the upload right after its last save
            return view
        await asyncio.sleep(0.01)
    pytest.fail("the import did not end")


async def _upload(jobs: ImportJobs, org: Org, who: PrincipalRecord, name: str = "up") -> Path:
    """An mbox saved in ``who``'s uploads, as the upload routes save one."""
    folder = jobs.upload_dir(await org.world.ctx(who), name)
    return archives.build_mbox(folder).path


async def test_an_approved_member_reads_their_organisations_files_never_an_upload(
    acme: Org,
) -> None:
    bob = await acme.world.user(acme.org_id, "bob")
    jobs = _jobs(acme.world, acme.root, approved={(acme.org_id, bob.principal_id)})
    owners = await _upload(jobs, acme, acme.owner)
    bob_ctx = await acme.world.ctx(bob)
    area = jobs.area.files(acme.org_id)
    up = f"../uploads/{folder_name(acme.owner.principal_id)}/up/mail.mbox"
    for path in (str(owners), up, str(owners.parent), "..", str(acme.root)):
        with pytest.raises(InvalidInputError) as refused:
            await jobs.start(bob_ctx, key_id=None, adapter="mbox", path=path)
        assert refused.value.reason is ReasonCode.PATH_OUTSIDE_IMPORT_ROOT
        assert str(area) in refused.value.detail  # where the caller may put archives
    with pytest.raises(InvalidInputError) as refused:
        await jobs.start_upload(bob_ctx, key_id=None, adapter="mbox", archive=owners)
    assert refused.value.reason is ReasonCode.PATH_OUTSIDE_IMPORT_ROOT
    assert owners.is_file()  # someone else's refusal leaves the upload alone

    archives.build_mbox(area)
    started = await jobs.start(bob_ctx, key_id=None, adapter="mbox", path="mail.mbox")
    done = await _until_ended(jobs, acme, bob, started.id)
    assert (done.status, done.counters.written) == ("completed", 4)
    await jobs.close()


async def test_a_path_import_resumes_only_while_its_principal_is_approved(acme: Org) -> None:
    bob = await acme.world.user(acme.org_id, "bob")
    store = InMemoryImportStore()
    approved = _jobs(acme.world, acme.root, approved={(acme.org_id, bob.principal_id)}, store=store)
    ctx = await acme.world.ctx(bob)
    archives.build_mbox(approved.area.files(acme.org_id))
    started = await approved.start(ctx, key_id=None, adapter="mbox", path="mail.mbox")
    assert (await approved.pause(ctx, started.id)).status == "paused"
    await approved.close()
    withdrawn = _jobs(acme.world, acme.root, store=store)  # the operator took bob off the list
    with pytest.raises(PolicyDeniedError) as refused:
        await withdrawn.resume(ctx, started.id)
    assert refused.value.reason is ReasonCode.PATH_IMPORT_NOT_ALLOWED
    assert (await withdrawn.get(ctx, started.id)).status == "paused"
    await withdrawn.close()


async def test_unapproved_principals_are_refused_before_the_path_is_looked_at(acme: Org) -> None:
    bob = await acme.world.user(acme.org_id, "bob")
    agent = await acme.world.agent(acme.org_id, "scribe", acme.owner)
    jobs = _jobs(acme.world, acme.root)
    for who in (bob, agent):
        ctx = await acme.world.ctx(who)
        for path in ("mail.mbox", "\x00", "/etc/passwd"):
            with pytest.raises(PolicyDeniedError) as refused:
                await jobs.start(ctx, key_id=None, adapter="mbox", path=path)
            assert refused.value.reason is ReasonCode.PATH_IMPORT_NOT_ALLOWED
    await jobs.close()


async def test_a_granted_folder_is_readable_by_its_own_organisation_only(
    acme: Org, tmp_path: Path
) -> None:
    rival_id = await acme.world.org("rival")
    eve = await acme.world.user(rival_id, "eve", OrgRole.OWNER)
    granted = tmp_path / "granted"
    granted.mkdir()
    mbox = archives.build_mbox(granted).path
    jobs = _jobs(acme.world, acme.root, granted={acme.org_id: [granted]})
    started = await jobs.start(
        await acme.world.ctx(acme.owner), key_id=None, adapter="mbox", path=str(mbox)
    )
    assert (await _until_ended(jobs, acme, acme.owner, started.id)).status == "completed"

    eve_ctx = await acme.world.ctx(eve)
    (jobs.area.files(rival_id) / "link").symlink_to(granted)  # a link out is followed first
    for path in (str(mbox), "link/mail.mbox"):
        with pytest.raises(InvalidInputError) as refused:
            await jobs.start(eve_ctx, key_id=None, adapter="mbox", path=path)
        assert refused.value.reason is ReasonCode.PATH_OUTSIDE_IMPORT_ROOT
    await jobs.close()


async def test_the_cli_in_its_own_process_reads_any_path_but_the_roots_other_folders(
    acme: Org, tmp_path: Path
) -> None:
    jobs = _jobs(acme.world, acme.root, anywhere=True)
    ctx = await acme.world.ctx(acme.owner)
    outside = archives.build_mbox(tmp_path).path
    started = await jobs.start(ctx, key_id=None, adapter="mbox", path=str(outside))
    assert (await _until_ended(jobs, acme, acme.owner, started.id)).status == "completed"
    upload = await _upload(jobs, acme, acme.owner)
    for path in (upload, acme.root, tmp_path):  # an upload, the root, a folder above it
        with pytest.raises(InvalidInputError) as refused:
            await jobs.start(ctx, key_id=None, adapter="maildir", path=str(path))
        assert refused.value.reason is ReasonCode.PATH_OUTSIDE_IMPORT_ROOT
    await jobs.close()


async def test_an_upload_is_removed_when_its_import_ends_and_cannot_be_resumed_then(
    acme: Org,
) -> None:
    jobs = _jobs(acme.world, acme.root)
    ctx = await acme.world.ctx(acme.owner)
    upload = await _upload(jobs, acme, acme.owner)
    started = await jobs.start_upload(ctx, key_id=None, adapter="mbox", archive=upload)
    done = await _until_ended(jobs, acme, acme.owner, started.id)
    assert (done.status, done.counters.written) == ("completed", 4)
    assert not upload.parent.exists()

    failing = await _upload(jobs, acme, acme.owner, "broken")
    failing.write_bytes(b"")
    failing.chmod(0)  # unreadable: the import fails
    started = await jobs.start_upload(ctx, key_id=None, adapter="mbox", archive=failing)
    done = await _until_ended(jobs, acme, acme.owner, started.id)
    if os.geteuid() != 0:  # root reads a file of mode 0 all the same
        assert done.status == "failed"
        assert not failing.parent.exists()
        with pytest.raises(NotFoundError) as gone:
            await jobs.resume(ctx, started.id)
        assert gone.value.reason is ReasonCode.UPLOAD_REMOVED

    refused = await _upload(jobs, acme, acme.owner, "refused")
    with pytest.raises(InvalidInputError):
        await jobs.start_upload(ctx, key_id=None, adapter="pst", archive=refused)
    assert not refused.parent.exists()  # an upload no import will read goes at once
    await jobs.close()


async def test_the_sweep_keeps_uploads_as_long_as_stated_then_removes_them(acme: Org) -> None:
    keep = timedelta(hours=2)
    jobs = _jobs(acme.world, acme.root, keep=keep)
    ctx = await acme.world.ctx(acme.owner)
    kept = await _upload(jobs, acme, acme.owner, "kept")
    started = await jobs.start_upload(ctx, key_id=None, adapter="mbox", archive=kept)
    await _until_ended(jobs, acme, acme.owner, started.id)
    paused = await _upload(jobs, acme, acme.owner, "paused")
    waiting = await jobs.start_upload(ctx, key_id=None, adapter="mbox", archive=paused)
    await jobs.pause(ctx, waiting.id)
    orphan = await _upload(jobs, acme, acme.owner, "orphan")  # a crash before its import

    clock, now = acme.world.clock, acme.world.clock.now()
    assert await jobs.sweep() == 0
    assert kept.exists() and paused.exists() and orphan.exists()
    clock.set(now + timedelta(hours=1, minutes=1))  # past the grace of a folder no one names
    assert await jobs.sweep() == 1
    assert not orphan.parent.exists() and kept.exists()
    clock.set(now + keep + timedelta(minutes=1))
    assert await jobs.sweep() == 1
    assert not kept.parent.exists() and paused.exists()
    clock.set(now + ABANDONED_AFTER + timedelta(minutes=1))
    assert await jobs.sweep() == 1
    assert not paused.parent.exists()
    abandoned = await jobs.get(ctx, waiting.id)
    assert (abandoned.status, abandoned.error) == ("failed", ReasonCode.UPLOAD_REMOVED)
    await jobs.close()


def test_ids_that_are_not_plain_names_never_walk_the_tree() -> None:
    assert folder_name("local") == "local"
    assert folder_name("01JABCDEF_x-y.z") == "01JABCDEF_x-y.z"
    for ident in ("..", ".", "a/b", "", "x" * 65, "é"):
        name = folder_name(ident)
        assert name.startswith("~") and "/" not in name and name not in {".", ".."}
    assert folder_name("a/b") != folder_name("a_b")


_SEGMENTS = [
    "..", ".", "", "sub", "mail.mbox", "link_up", "link_out", "link_rival", "link_upload",
    "acme", "rival", "files", "uploads", "ana", "u1", "secret.mbox", "ok.mbox", "granted",
    "outside", "imports",
]  # fmt: skip


def _tree(base: Path, anywhere: bool = False) -> tuple[ImportArea, Path, Path]:
    """An import root with two organisations, an upload, a granted folder and links out."""
    root, granted, outside = base / "imports", base / "granted", base / "outside"
    area = ImportArea(root, {"acme": [granted]}, anywhere=anywhere)
    own = area.files("acme")
    for folder in (own / "sub", granted, outside, area.files("rival")):
        folder.mkdir(parents=True, exist_ok=True)
    upload = area.uploads("acme", "ana") / "u1"
    upload.mkdir(parents=True, exist_ok=True)
    for file in (own / "mail.mbox", own / "sub" / "mail.mbox", granted / "ok.mbox",
                 outside / "secret.mbox", area.files("rival") / "secret.mbox",
                 upload / "mail.mbox"):  # fmt: skip
        if not file.exists():
            file.write_bytes(b"From x\n\nmail\n")
    links = {"link_up": root, "link_out": outside, "link_rival": area.files("rival"),
             "link_upload": upload}  # fmt: skip
    for name, target in links.items():
        if not (own / name).is_symlink():
            (own / name).symlink_to(target)
    return area, own.resolve(), granted.resolve()


@settings(
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    segments=st.lists(st.sampled_from(_SEGMENTS), min_size=1, max_size=8),
    anchor=st.sampled_from(["", "root", "base", "own"]),
    anywhere=st.booleans(),
)
def test_no_path_resolves_outside_the_organisations_files_or_its_granted_folder(
    tmp_path: Path, segments: list[str], anchor: str, anywhere: bool
) -> None:
    """The service: its files or granted folder only. The CLI in its own process
    (``anywhere``): any path, but nothing under the import root outside its own files."""
    area, own, granted = _tree(tmp_path, anywhere)
    prefix = {"": "", "root": f"{area.root}/", "base": f"{tmp_path}/", "own": f"{own}/"}[anchor]
    raw = prefix + "/".join(segments)
    try:
        resolved = area.resolve("acme", raw)
    except (InvalidInputError, NotFoundError):  # outside, missing, or no path at all
        event("refused")
        return
    event("resolved")
    if resolved.is_relative_to(own):
        return
    if anywhere:
        assert not resolved.is_relative_to(area.root), raw
        assert not area.root.is_relative_to(resolved), raw
    else:
        assert resolved.is_relative_to(granted), raw
