"""Define the derived-memory tables of a namespace once per process, lazily.

Why lazily rather than as a numbered migration: the tables belong to the
reflection adapters alone and every statement is ``IF NOT EXISTS``, as the
synthesis runs do; an organisation prepared by an older release gets them
on first use. Reads of an organisation with no namespace answer from
``INFO FOR ROOT`` without creating it.
"""

import asyncio

from adapters.surreal.connection import SurrealConnection

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

    async def exists(self, namespace: str) -> bool:
        """Whether the namespace exists (then its tables are defined); creates nothing."""
        (root,) = await self._conn.query(None, "INFO FOR ROOT;", operation="listing namespaces")
        if namespace in (root or {}).get("namespaces", {}):
            await self.ensure(namespace)
            return True
        self._defined.discard(namespace)
        return False
