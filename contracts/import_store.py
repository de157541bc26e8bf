"""The behaviour every ``ImportStore`` adapter owes the import use case, as a pytest suite.

Why: a resumed import trusts the stored checkpoint and counters exactly, and
re-importing trusts the dedupe ledger, so a store must give back what it was
given (times with their offsets, enums as enums), replace a record on save,
and keep organisations and spaces apart.

Usage: subclass it and provide an async fixture ``import_store`` that yields a
fresh, empty store and closes it afterwards.
"""

from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest

from application.imports.import_ports import ImportStore
from application.imports.jobs import (
    ImportCounters,
    ImportJob,
    ImportProblem,
    ImportStatus,
    JobAuthority,
)
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["ImportStoreContract"]

AT = datetime(2024, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=2)))


def job(import_id: str, org_id: str = "org-a", minutes: int = 0) -> ImportJob:
    return ImportJob(
        import_id=import_id,
        org_id=org_id,
        adapter="mbox",
        path="/imports/mail.mbox",
        scope=MemoryScope.PRIVATE,
        scope_key="user ü",
        authority=JobAuthority(org_id=org_id, principal_id="p1", key_id="k1"),
        status=ImportStatus.PAUSED,
        counters=ImportCounters(read=7, written=4, duplicates=1, skipped=1, failed=1),
        checkpoint="mbox:6",
        problems=[ImportProblem(record_id="mail.mbox#3", reason="malformed", detail="no headers")],
        error=ReasonCode.JOB_POLICY_CONTEXT_STALE,
        created_at=AT + timedelta(minutes=minutes),
        updated_at=AT + timedelta(minutes=minutes + 1),
    )


class ImportStoreContract:
    async def test_a_saved_job_comes_back_exactly(self, import_store: ImportStore) -> None:
        saved = job("i1")
        await import_store.save_job(saved)
        got = await import_store.get_job("org-a", "i1")
        assert got == saved
        assert got is not None
        assert got.created_at.utcoffset() == timedelta(hours=2)
        assert isinstance(got.status, ImportStatus) and isinstance(got.scope, MemoryScope)
        assert msgspec.json.encode(got) == msgspec.json.encode(saved)

    async def test_saving_again_replaces(self, import_store: ImportStore) -> None:
        await import_store.save_job(job("i1"))
        done = msgspec.structs.replace(
            job("i1"),
            status=ImportStatus.COMPLETED,
            checkpoint="mbox:9",
            error=None,
            authority=None,
            updated_at=datetime(2024, 3, 2, tzinfo=UTC),
        )
        await import_store.save_job(done)
        assert await import_store.get_job("org-a", "i1") == done
        assert await import_store.list_jobs("org-a") == [done]

    async def test_jobs_are_listed_newest_first_per_organisation(
        self, import_store: ImportStore
    ) -> None:
        for n, name in enumerate(["old", "new"]):
            await import_store.save_job(job(name, minutes=n))
        await import_store.save_job(job("other", org_id="org-b"))
        assert [j.import_id for j in await import_store.list_jobs("org-a")] == ["new", "old"]
        assert await import_store.get_job("org-b", "old") is None
        assert await import_store.list_jobs("org-c") == []

    async def test_the_ledger_keeps_spaces_and_organisations_apart(
        self, import_store: ImportStore
    ) -> None:
        await import_store.add_keys("org-a", "private/u1", ["mid:a@x", "sha256:ff"])
        await import_store.add_keys("org-a", "private/u1", ["mid:a@x"])
        assert await import_store.known_keys("org-a", "private/u1", ["mid:a@x", "mid:b@x"]) == {
            "mid:a@x"
        }
        assert await import_store.known_keys("org-a", "private/u2", ["mid:a@x"]) == set()
        assert await import_store.known_keys("org-b", "private/u1", ["mid:a@x"]) == set()
        assert await import_store.known_keys("org-a", "private/u1", []) == set()

    @pytest.mark.parametrize("key", ["mid:<odd>'\"; DROP", "sha256:" + "0" * 64, "ü/ß"])
    async def test_any_key_text_is_kept_safely(self, import_store: ImportStore, key: str) -> None:
        await import_store.add_keys("org-a", "team/x y", [key])
        assert await import_store.known_keys("org-a", "team/x y", [key, key + "2"]) == {key}
