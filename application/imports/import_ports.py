"""Where import records and the dedupe ledger live.

Why one small port: the import record and the set of dedupe keys already
written to a space change together, once per record or batch, and an outside
store (SurrealDB, SQL) must keep both per organisation.
``contracts/import_store.py`` is its suite.
"""

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from application.imports.jobs import ImportJob

__all__ = ["ImportStore"]


class ImportStore(Protocol):
    async def save_job(self, job: ImportJob) -> None:
        """Insert or replace the import record with ``job.import_id``."""
        ...

    async def get_job(self, org_id: str, import_id: str) -> ImportJob | None: ...

    async def list_jobs(self, org_id: str) -> list[ImportJob]:
        """The organisation's imports, newest first."""
        ...

    async def known_keys(self, org_id: str, space: str, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` were already written to ``space`` (``scope/scope_key``)."""
        ...

    async def add_keys(self, org_id: str, space: str, keys: Iterable[str]) -> None: ...

    async def written_since(
        self, org_id: str, space: str, import_id: str, since: datetime
    ) -> list[str]:
        """Dedupe keys of the sources ``import_id`` wrote to ``space`` at or after ``since``.

        Read from the memory store itself (each imported source carries its
        ``import_id`` and ``import_key`` in its metadata), in the order written:
        after a crash these are the records written since the last saved
        checkpoint, whose ledger entries and counts may have died with the
        process. A store that does not outlive its process may answer ``[]``.
        """
        ...

    async def embedding_pending(self, org_id: str, space: str, import_id: str) -> int | None:
        """Chunks of the sources ``import_id`` wrote to ``space`` that still wait for vectors.

        Read from the memory store's durable queue (each chunk's state), so any
        process can answer it, after a restart too; None from a store that cannot
        see the memory store (the import record then shows its last saved count).
        """
        ...

    async def close(self) -> None: ...
