"""The behaviour every ``SourceAdapter`` owes an importer, as a reusable pytest suite.

Why: an import that crashes or is re-run must neither lose nor double a
record, and it can only promise that if the adapter reads the same archive
the same way every time: same order, same dedupe keys, and checkpoints from
which a read resumes with exactly the items that follow.

Usage: subclass it and provide two fixtures: ``adapter`` (the adapter under
test) and ``sample``, a ``SourceSample`` naming an archive you built for the
test with at least two records and at least one item the adapter must skip,
and how many of each it holds::

    class TestMyAdapter(SourceAdapterContract):
        @pytest.fixture
        def adapter(self) -> SourceAdapter:
            return MySourceAdapter()

        @pytest.fixture
        def sample(self, tmp_path: Path) -> SourceSample:
            return SourceSample(path=build_archive(tmp_path), records=5, skipped=1)
"""

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from application.imports.mapping import remember_request
from application.imports.ports import SourceAdapter
from application.imports.records import ImportRecord, ReadItem, SkippedRecord, SkipReason
from application.memory.limits import MAX_METADATA_KEYS
from domain.errors import InvalidInputError, NotFoundError
from domain.reasons import ReasonCode

__all__ = ["SourceAdapterContract", "SourceSample"]


class SourceSample(msgspec.Struct, frozen=True, kw_only=True):
    """A test archive and what it holds: ``records`` importable items, ``skipped`` bad ones."""

    path: Path
    records: int
    skipped: int


def _read(adapter: SourceAdapter, path: Path, after: str | None = None) -> list[ReadItem]:
    return list(adapter.read(path, after=after))


def _records(items: list[ReadItem]) -> list[ImportRecord]:
    return [item for item in items if isinstance(item, ImportRecord)]


class SourceAdapterContract:
    """Subclass and provide the ``adapter`` and ``sample`` fixtures."""

    def test_the_sample_is_fit_for_the_contract(self, sample: SourceSample) -> None:
        assert sample.records >= 2, "the sample needs two records to test order and resume"
        assert sample.skipped >= 1, "the sample needs an item the adapter must skip"

    def test_has_a_name(self, adapter: SourceAdapter) -> None:
        assert adapter.name
        assert adapter.name == adapter.name.strip().lower()

    def test_yields_every_item_once_none_lost(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        items = _read(adapter, sample.path)
        skipped = [item for item in items if isinstance(item, SkippedRecord)]
        assert len(_records(items)) == sample.records
        assert len(skipped) == sample.skipped
        ids = Counter(item.record_id for item in items)
        assert [rid for rid, n in ids.items() if n > 1] == [], "record ids must be unique"

    def test_the_order_is_the_same_on_every_read(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        first, second = _read(adapter, sample.path), _read(adapter, sample.path)
        assert first == second

    def test_dedupe_keys_are_stable_across_reads(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        keys = [r.dedupe_key for r in _records(_read(adapter, sample.path))]
        again = [r.dedupe_key for r in _records(_read(adapter, sample.path))]
        assert keys == again
        assert all(key.strip() == key and key for key in keys)

    def test_every_checkpoint_resumes_with_exactly_the_rest(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        items = _read(adapter, sample.path)
        checkpoints = [item.checkpoint for item in items]
        assert len(set(checkpoints)) == len(checkpoints), "checkpoints must be distinct"
        for n, item in enumerate(items):
            assert _read(adapter, sample.path, after=item.checkpoint) == items[n + 1 :], (
                f"resuming after item {n} ({item.record_id})"
            )

    def test_a_resumed_read_can_itself_be_resumed(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        items = _read(adapter, sample.path)
        seen: list[ReadItem] = []
        after: str | None = None
        while True:
            batch = list(_take(adapter.read(sample.path, after=after), 1))
            if not batch:
                break
            seen.extend(batch)
            after = batch[-1].checkpoint
        assert seen == items

    def test_skipped_items_say_why(self, adapter: SourceAdapter, sample: SourceSample) -> None:
        for item in _read(adapter, sample.path):
            if isinstance(item, SkippedRecord):
                assert item.reason in set(SkipReason)
                assert item.detail.strip()

    def test_every_record_makes_a_valid_remember_request(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        for record in _records(_read(adapter, sample.path)):
            request = remember_request(record, org_id="org-contract")
            request.validate()
            assert len(request.metadata) <= MAX_METADATA_KEYS
            assert record.source_uri.strip()
            if record.occurred_at is not None:
                assert record.occurred_at.utcoffset() is not None
            # metadata must survive a JSON round trip unchanged (what stores keep)
            assert msgspec.json.decode(msgspec.json.encode(request.metadata)) == request.metadata

    @pytest.mark.parametrize("token", ["", "not-a-checkpoint", "\x00", "999999999999:x"])
    def test_a_checkpoint_it_did_not_issue_is_refused(
        self, adapter: SourceAdapter, sample: SourceSample, token: str
    ) -> None:
        with pytest.raises(InvalidInputError) as caught:
            list(adapter.read(sample.path, after=token))
        assert caught.value.reason == ReasonCode.INVALID_CHECKPOINT

    def test_a_missing_archive_is_not_found(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        with pytest.raises(NotFoundError):
            list(adapter.read(sample.path.parent / "no-such-archive"))
        with pytest.raises(NotFoundError):
            adapter.check(sample.path.parent / "no-such-archive")

    def test_the_quick_check_takes_what_it_reads(
        self, adapter: SourceAdapter, sample: SourceSample
    ) -> None:
        adapter.check(sample.path)  # raises for an archive it would refuse


def _take(items: Iterator[ReadItem], n: int) -> Iterator[ReadItem]:
    for _ in range(n):
        item = next(items, None)
        if item is None:
            return
        yield item
