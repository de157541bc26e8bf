"""The behaviour every ``SynthesisRunStore`` adapter owes the synthesis use cases.

A run is saved whole after every stage and read back by id; what comes back
must equal what went in, including timezone-aware datetimes and nested
drafts, and organisations never see each other's runs. ``runs_citing``
answers "which remembered artifacts cite this source" for inspection;
``runs_of`` lists one principal's runs, newest first, so they can be resumed.

Usage: subclass it and provide a ``runs`` fixture::

    class TestMyRuns(SynthesisRunStoreContract):
        @pytest.fixture
        def runs(self) -> SynthesisRunStore: ...
"""

from datetime import UTC, datetime, timedelta

import msgspec

from application.synthesis.ports import SynthesisRunStore
from application.synthesis.records import (
    Draft,
    DraftSection,
    DraftSentence,
    HiddenCounts,
    OutlineSection,
    PackItem,
    StoredPack,
    SynthesisRun,
    Verification,
)
from domain.synthesis.outline import OutputType
from domain.synthesis.verdict import VerificationStatus

__all__ = ["SynthesisRunStoreContract", "sample_run"]

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def sample_run(run_id: str = "run1", org_id: str = "org-a", **changes: object) -> SynthesisRun:
    run = SynthesisRun(
        run_id=run_id,
        org_id=org_id,
        actor_id="alice",
        created_at=T0,
        updated_at=T0,
        query="the storage engine",
        output_type=OutputType.BRIEF,
        audience="space:project/alpha",
        outline=[
            OutlineSection(
                title="Summary", needs="n", evidence_query="q", expected_source_ids=["s1"]
            )
        ],
        packs=[
            StoredPack(
                title="Summary",
                items=[PackItem(chunk_id="c1", source_id="s1", stale=True)],
                hidden_count=2,
                hidden_chunk_ids=["c9"],
                reasons=["audience_hidden"],
            )
        ],
        draft=Draft(
            drafter="extractive",
            markdown="## Summary\n\nIt is embedded. [s1]",
            sections=[
                DraftSection(
                    title="Summary",
                    sentences=[DraftSentence(text="It is embedded.", citations=["s1"])],
                )
            ],
        ),
        verification=Verification(
            status=VerificationStatus.PASSED,
            citation_coverage=1.0,
            supported_share=1.0,
            sentences=1,
            unsupported_claims=[],
            gaps=[],
            hidden_counts=HiddenCounts(hidden=2, denied=0, by_section={"Summary": 2}),
            stale_source_ids=["s1"],
            leaks=0,
            checked_at=T0 + timedelta(minutes=1),
        ),
    )
    return msgspec.structs.replace(run, **changes)


class SynthesisRunStoreContract:
    """Subclass (as ``Test...``) and provide a ``runs`` fixture."""

    async def test_a_saved_run_reads_back_equal(self, runs: SynthesisRunStore) -> None:
        run = sample_run()
        await runs.save_run(run)
        back = await runs.get_run("org-a", "run1")
        assert back == run
        assert back is not None and back.created_at.utcoffset() == timedelta(0)
        assert back.verification is not None
        assert back.verification.status is VerificationStatus.PASSED
        assert back.output_type is OutputType.BRIEF

    async def test_saving_again_replaces_the_run(self, runs: SynthesisRunStore) -> None:
        await runs.save_run(sample_run(draft=None, verification=None))
        later = sample_run(updated_at=T0 + timedelta(hours=1))
        await runs.save_run(later)
        assert await runs.get_run("org-a", "run1") == later

    async def test_unknown_run_is_none(self, runs: SynthesisRunStore) -> None:
        assert await runs.get_run("org-a", "nope") is None

    async def test_organisations_are_isolated(self, runs: SynthesisRunStore) -> None:
        await runs.save_run(sample_run())
        assert await runs.get_run("org-b", "run1") is None
        await runs.drop_runs("org-a")
        assert await runs.get_run("org-a", "run1") is None

    async def test_runs_citing_a_source_are_remembered_ones(self, runs: SynthesisRunStore) -> None:
        await runs.save_run(sample_run("r1", cited_source_ids=["s1", "s2"]))
        await runs.save_run(sample_run("r2", artifact_source_id="art2", cited_source_ids=["s1"]))
        await runs.save_run(
            sample_run(
                "r3",
                artifact_source_id="art3",
                cited_source_ids=["s2"],
                created_at=T0 - timedelta(days=1),
            )
        )
        await runs.save_run(
            sample_run("r4", org_id="org-b", artifact_source_id="x", cited_source_ids=["s1"])
        )
        assert [r.run_id for r in await runs.runs_citing("org-a", "s1")] == ["r2"]
        assert [r.run_id for r in await runs.runs_citing("org-a", "s2")] == ["r3"]
        assert await runs.runs_citing("org-a", "s3") == []

    async def test_runs_of_a_principal_newest_first(self, runs: SynthesisRunStore) -> None:
        for i in range(3):
            await runs.save_run(sample_run(f"r{i}", created_at=T0 + timedelta(minutes=i)))
        await runs.save_run(sample_run("theirs", actor_id="bob"))
        await runs.save_run(sample_run("elsewhere", org_id="org-b"))
        assert [r.run_id for r in await runs.runs_of("org-a", "alice", 10)] == ["r2", "r1", "r0"]
        assert [r.run_id for r in await runs.runs_of("org-a", "alice", 2)] == ["r2", "r1"]
        assert [r.run_id for r in await runs.runs_of("org-a", "bob", 10)] == ["theirs"]
        assert await runs.runs_of("org-c", "alice", 10) == []
        # saving a later stage keeps one row per run
        await runs.save_run(sample_run("r0", created_at=T0, updated_at=T0 + timedelta(hours=1)))
        assert [r.run_id for r in await runs.runs_of("org-a", "alice", 10)] == ["r2", "r1", "r0"]
