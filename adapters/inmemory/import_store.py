"""The reference ``ImportStore``: import records and dedupe ledgers in dictionaries."""

from collections.abc import Iterable

from application.sources.jobs import ImportJob

__all__ = ["InMemoryImportStore"]


class InMemoryImportStore:
    def __init__(self) -> None:
        self._jobs: dict[tuple[str, str], ImportJob] = {}
        self._keys: dict[tuple[str, str], set[str]] = {}

    async def save_job(self, job: ImportJob) -> None:
        self._jobs[(job.org_id, job.import_id)] = job

    async def get_job(self, org_id: str, import_id: str) -> ImportJob | None:
        return self._jobs.get((org_id, import_id))

    async def list_jobs(self, org_id: str) -> list[ImportJob]:
        jobs = [job for (org, _), job in self._jobs.items() if org == org_id]
        return sorted(jobs, key=lambda job: (job.created_at, job.import_id), reverse=True)

    async def known_keys(self, org_id: str, space: str, keys: Iterable[str]) -> set[str]:
        held = self._keys.get((org_id, space), set())
        return {key for key in keys if key in held}

    async def add_keys(self, org_id: str, space: str, keys: Iterable[str]) -> None:
        self._keys.setdefault((org_id, space), set()).update(keys)

    async def close(self) -> None:
        return None
