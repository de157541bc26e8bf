"""Define an adapter's tables in an organisation's namespace once per process, lazily.

Why lazily rather than as a numbered migration: the tables (derived memory,
reflection candidates, synthesis runs, the audit log, imports) belong to one adapter
each and every statement is ``IF NOT EXISTS``; an organisation prepared by an
older release gets them on first use. Reads of an organisation with no
namespace answer from ``INFO FOR ROOT`` without creating it (a ``USE NS``
would create it as a side effect).
"""

import asyncio
from typing import Any

from surrealdb.errors import NotFoundError as SurrealNotFound

from adapters.surreal.connection import SurrealConnection
from domain.errors import UpstreamError

__all__ = ["TableDefiner"]


class TableDefiner:
    def __init__(self, connection: SurrealConnection, schema: str, operation: str) -> None:
        self._conn = connection
        self._schema = schema
        self._operation = operation
        self._defined: set[str] = set()
        self._defining = asyncio.Lock()

    async def ensure(self, namespace: str) -> None:
        if namespace in self._defined:
            return
        async with self._defining:
            if namespace not in self._defined:
                await self._conn.query(
                    namespace, self._schema, operation=self._operation, write=True
                )
                self._defined.add(namespace)

    async def _in_root(self, namespace: str) -> bool:
        """Whether the root lists the namespace (asked every time)."""
        (root,) = await self._conn.query(None, "INFO FOR ROOT;", operation="listing namespaces")
        return namespace in (root or {}).get("namespaces", {})

    async def exists(self, namespace: str) -> bool:
        """Whether the namespace exists (then its tables are defined); creates nothing.

        A namespace this process defined the tables in is taken to exist without asking
        the root (a search asks several times per query); ``forget`` undoes that.
        """
        if namespace in self._defined:
            return True
        if await self._in_root(namespace):
            await self.ensure(namespace)
            return True
        self._defined.discard(namespace)
        return False

    async def listed(self, namespace: str) -> bool:
        """Whether the namespace exists, defining nothing: asked before a read that must
        not create it (the engine makes a missing namespace on a read of it) and need not
        find its tables (``read``: a missing table reads as empty)."""
        return namespace in self._defined or await self._in_root(namespace)

    async def present(self, namespace: str) -> bool:
        """Whether the namespace exists, asked of the root every time, so a namespace
        dropped since is never created again by a read; its tables are defined when it
        does exist."""
        if not await self._in_root(namespace):
            self._defined.discard(namespace)
            return False
        await self.ensure(namespace)
        return True

    async def read(
        self, namespace: str, sql: str, variables: dict[str, Any], operation: str
    ) -> list[Any]:
        """The rows of one read; none when its table does not exist.

        A missing table holds nothing: nothing was ever promoted there, or the
        organisation was dropped behind this process. Reads never define tables, so
        the first search of an organisation runs no DDL; the next write defines them.
        Any other failure is raised.
        """
        try:
            (rows,) = await self._conn.query(namespace, sql, variables, operation=operation)
        except UpstreamError as exc:
            if not isinstance(exc.__cause__, SurrealNotFound):
                raise
            self.forget(namespace)
            return []
        return list(rows or [])

    async def read_last(
        self, namespace: str, sql: str, variables: dict[str, Any], operation: str
    ) -> Any:
        """What the last statement of several returns (``LET`` ... ``RETURN``); None when a
        table is missing, as ``read``."""
        try:
            results = await self._conn.query(namespace, sql, variables, operation=operation)
        except UpstreamError as exc:
            if not isinstance(exc.__cause__, SurrealNotFound):
                raise
            self.forget(namespace)
            return None
        return results[-1] if results else None

    def forget(self, namespace: str) -> None:
        """The namespace was dropped: ask the root again next time."""
        self._defined.discard(namespace)
