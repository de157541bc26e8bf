"""The reference ``ImportStore``: import records and dedupe ledgers in dictionaries."""

from collections.abc import Iterable
from datetime import datetime

from adapters.inmemory.memory_store import InMemoryMemoryStore
from application.imports.jobs import ImportJob

__all__ = ["InMemoryImportStore"]


class InMemoryImportStore:
    """``memory``: the memory store imports write to, for ``written_since`` (else it answers [])."""

    def __init__(self, memory: InMemoryMemoryStore | None = None) -> None:
        self._memory = memory
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

    async def written_since(
        self, org_id: str, space: str, import_id: str, since: datetime
    ) -> list[str]:
        if self._memory is None:
            return []
        org = self._memory._orgs.get(org_id)  # the reference pair: read its sources directly
        written = []
        for source in [] if org is None else list(org.sources.values()):
            meta = source.metadata
            if (
                f"{source.scope}/{source.scope_key or ''}" == space
                and meta.get("import_id") == import_id
                and isinstance(meta.get("import_key"), str)
                and source.created_at >= since
            ):
                written.append((source.created_at, source.source_id, str(meta["import_key"])))
        return [key for _, _, key in sorted(written)]

    async def embedding_pending(self, org_id: str, space: str, import_id: str) -> int | None:
        if self._memory is None:
            return None
        org = self._memory._orgs.get(org_id)  # the reference pair, as in written_since
        if org is None:
            return 0
        mine = {
            s.source_id
            for s in org.sources.values()
            if f"{s.scope}/{s.scope_key or ''}" == space
            and s.metadata.get("import_id") == import_id
        }
        return sum(1 for cid in org.pending if org.chunks[cid].source_id in mine)
