"""The mbox and maildir adapters on real mail: the notmuch test corpora.

The corpora are GPL-licensed, so they are read from the evaluation data outside the project
(unpacked into a
temporary folder per test session) and never copied into the project; the
tests skip, saying why, where that data is absent. The figures below are
facts of the corpora (counted with the stdlib ``mailbox`` module and
``grep -c '^Message-ID'`` on the unpacked files), not outputs of the code
under test: lkml holds 210 messages with 176
distinct Message-IDs; the default corpus 53 messages with 52.
"""

import lzma
import tarfile
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from adapters.sources.maildir import MaildirSourceAdapter
from adapters.sources.mbox import MboxSourceAdapter
from application.imports.ports import SourceAdapter
from application.imports.records import ImportRecord, ReadItem, SkippedRecord

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "email"

pytestmark = pytest.mark.skipif(
    not (DATA / "notmuch_lkml.mbox.xz").is_file(),
    reason=f"the notmuch corpora are not at {DATA} (../shared is absent on this checkout)",
)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The two mbox files and the maildir trees, unpacked outside the project."""
    root = tmp_path_factory.mktemp("notmuch")
    out: dict[str, Path] = {}
    for name in ("lkml", "default"):
        target = root / f"{name}.mbox"
        target.write_bytes(lzma.decompress((DATA / f"notmuch_{name}.mbox.xz").read_bytes()))
        out[f"{name}.mbox"] = target
    with tarfile.open(DATA / "notmuch_corpora_default_lkml.tar.xz") as archive:
        archive.extractall(root / "tree", filter="data")
    trees = root / "tree" / "notmuch_corpora" / "test" / "corpora"
    out["lkml.maildir"], out["default.maildir"] = trees / "lkml", trees / "default"
    return out


def _read(adapter: SourceAdapter, path: Path) -> tuple[list[ImportRecord], list[SkippedRecord]]:
    items: list[ReadItem] = list(adapter.read(path))
    return (
        [i for i in items if isinstance(i, ImportRecord)],
        [i for i in items if isinstance(i, SkippedRecord)],
    )


CASES = [
    ("lkml.mbox", MboxSourceAdapter(), 210, 176),
    ("lkml.maildir", MaildirSourceAdapter(), 210, 176),
    ("default.mbox", MboxSourceAdapter(), 53, 52),
    ("default.maildir", MaildirSourceAdapter(), 53, 52),
]


@pytest.mark.parametrize(("corpus", "adapter", "messages", "unique"), CASES)
def test_every_message_is_read_and_dedupe_keys_follow_message_ids(
    corpora: dict[str, Path], corpus: str, adapter: SourceAdapter, messages: int, unique: int
) -> None:
    records, skipped = _read(adapter, corpora[corpus])
    assert skipped == []
    assert len(records) == messages
    keys = Counter(r.dedupe_key for r in records)
    assert len(keys) == unique
    assert sum(n - 1 for n in keys.values()) == messages - unique  # 34 duplicates in lkml
    assert all(key.startswith("mid:") for key in keys)
    assert all(r.occurred_at is not None for r in records)
    assert all(r.participants is not None and r.participants.sender for r in records)


@pytest.mark.parametrize("corpus", ["lkml", "default"])
def test_mbox_and_maildir_agree_on_every_message(corpora: dict[str, Path], corpus: str) -> None:
    """The same mail in two formats gives the same keys, threads and attachments."""
    from_mbox, _ = _read(MboxSourceAdapter(), corpora[f"{corpus}.mbox"])
    from_maildir, _ = _read(MaildirSourceAdapter(), corpora[f"{corpus}.maildir"])

    def facts(records: list[ImportRecord]) -> Counter[tuple[object, ...]]:
        return Counter(
            (r.dedupe_key, msgspec.json.encode(r.thread), tuple(a.sha256 for a in r.attachments))
            for r in records
        )

    assert facts(from_mbox) == facts(from_maildir)


def test_lkml_threads_link_replies_to_their_parents(corpora: dict[str, Path]) -> None:
    records, _ = _read(MboxSourceAdapter(), corpora["lkml.mbox"])
    ids = {r.thread.message_id for r in records if r.thread}
    replies = [r for r in records if r.thread and r.thread.in_reply_to]
    assert len(replies) == 182
    # 144 replies answer a message that is itself in the corpus; the others quote older mail
    assert sum(r.thread.in_reply_to in ids for r in replies if r.thread) == 144
    threads = Counter(r.thread.thread_id for r in records if r.thread)
    assert len(threads) == 33
    for reply in replies:
        assert reply.thread is not None
        assert reply.thread.references, "every lkml reply carries References"
        assert reply.metadata()["thread_id"] == reply.thread.references[0]


def test_attachments_are_described_and_text_ones_included(corpora: dict[str, Path]) -> None:
    records, _ = _read(MboxSourceAdapter(), corpora["default.mbox"])
    attachments = [a for r in records for a in r.attachments]
    names = sorted(a.filename for a in attachments if a.filename)
    assert "notmuch-help.patch" in names and "signature.asc" in names
    assert all(len(a.sha256) == 64 and a.size > 0 for a in attachments)
    signatures = [a for a in attachments if a.media_type == "application/pgp-signature"]
    assert len(signatures) == 7
    patch = next(
        r for r in records if any(a.filename == "notmuch-help.patch" for a in r.attachments)
    )
    assert "[attachment: notmuch-help.patch]" in patch.content
    assert "-----BEGIN PGP SIGNATURE-----" not in patch.content  # binary-ish parts stay out


def test_maildir_folders_become_labels(corpora: dict[str, Path]) -> None:
    records, _ = _read(MaildirSourceAdapter(), corpora["default.maildir"])
    labels = Counter(label for r in records for label in r.labels)
    assert labels == {"INBOX": 28, "bar": 6, "bar/baz": 7, "foo": 6, "foo/baz": 6}


def test_resuming_the_lkml_mbox_mid_way_reads_exactly_the_rest(corpora: dict[str, Path]) -> None:
    adapter = MboxSourceAdapter()
    everything = list(adapter.read(corpora["lkml.mbox"]))
    rest = list(adapter.read(corpora["lkml.mbox"], after=everything[99].checkpoint))
    assert rest == everything[100:]


async def test_importing_lkml_writes_176_sources_and_a_reimport_adds_none(
    corpora: dict[str, Path],
) -> None:
    from adapters.inmemory.import_store import InMemoryImportStore
    from adapters.system.ids import TimeOrderedIds
    from application.imports.authority import JobAuthorizer
    from application.imports.import_service import ImportService
    from application.imports.jobs import ImportStatus, JobAuthority
    from domain.policy import OrgRole
    from tests.support.world import World

    world = World()
    org_id = await world.org("acme")
    owner = await world.user(org_id, "ana", OrgRole.OWNER)
    imports = ImportService(
        memory=world.services.memory,
        store=InMemoryImportStore(),
        contexts=JobAuthorizer(world.control_store, world.services.access),
        adapters={"maildir": MaildirSourceAdapter()},
        ids=TimeOrderedIds(),
        clock=world.clock,
    )
    authority = JobAuthority(org_id=org_id, principal_id=owner.principal_id)
    counters = []
    for _ in range(2):
        job = await imports.create(
            adapter="maildir", path=corpora["lkml.maildir"], authority=authority
        )
        done = await imports.run(org_id, job.import_id)
        assert done.status is ImportStatus.COMPLETED
        c = done.counters
        counters.append((c.read, c.written, c.duplicates, c.skipped, c.failed))
    assert counters == [(210, 176, 34, 0, 0), (210, 0, 210, 0, 0)]
