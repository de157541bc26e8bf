"""Every ControlStore and AuditLog adapter against the shared contracts, plus a reopen test.

The SurrealDB adapters run on ``mem://`` and on ``surrealkv://`` (a fresh data
directory per test), sharing the memory store's connection as the
composition root wires them.
"""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.inmemory.audit_log import InMemoryAuditLog
from adapters.inmemory.control_store import InMemoryControlStore
from adapters.surreal.audit_log import SurrealAuditLog
from adapters.surreal.control_store import SurrealControlStore
from adapters.surreal.memory_store import SurrealMemoryStore
from application.trust.ports import AuditLog, ControlStore
from contracts.audit_log import AuditLogContract
from contracts.control_samples import (
    ORG_A,
    delegation,
    key,
    membership,
    org,
    principal,
    receipt,
    space,
)
from contracts.control_store import ControlStoreContract
from contracts.samples import SPACE
from domain.errors import ConflictError
from tests.support.surreal_server import server_store


class TestInMemoryControlStore(ControlStoreContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[ControlStore]:
        store = InMemoryControlStore()
        yield store
        await store.close()


class TestInMemoryAuditLog(AuditLogContract):
    @pytest.fixture
    def audit_log(self) -> AuditLog:
        return InMemoryAuditLog()


@pytest.mark.slow
class TestSurrealControlStoreInMemory(ControlStoreContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[ControlStore]:
        memory = SurrealMemoryStore("mem://")
        store = SurrealControlStore(memory.connection)
        yield store
        await store.close()
        await memory.close()


@pytest.mark.slow
class TestSurrealControlStoreSurrealKv(ControlStoreContract):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[ControlStore]:
        memory = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}")
        store = SurrealControlStore(memory.connection)
        yield store
        await store.close()
        await memory.close()


@pytest.mark.slow
class TestSurrealAuditLogInMemory(AuditLogContract):
    @pytest.fixture
    async def audit_log(self) -> AsyncIterator[AuditLog]:
        memory = SurrealMemoryStore("mem://")
        yield SurrealAuditLog(memory.connection)
        await memory.close()


@pytest.mark.slow
class TestSurrealAuditLogSurrealKv(AuditLogContract):
    @pytest.fixture
    async def audit_log(self, tmp_path: Path) -> AsyncIterator[AuditLog]:
        memory = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}")
        yield SurrealAuditLog(memory.connection)
        await memory.close()


@pytest.mark.slow
async def test_control_rows_and_receipts_survive_a_reopen(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    rows = (
        org(ORG_A),
        principal("u1"),
        key("k1"),
        space("s1", writes_enabled=True),
        membership("s1", "u1"),
        delegation("d1", "a1"),
    )
    memory = SurrealMemoryStore(url)
    control = SurrealControlStore(memory.connection)
    await control.add_organization(rows[0])
    await control.add_principal(rows[1])
    await control.add_key(rows[2])
    await control.add_space(rows[3])
    await control.put_membership(rows[4])
    await control.add_delegation(rows[5])
    await SurrealAuditLog(memory.connection).record([receipt("r1")])
    await control.close()
    assert await control.get_key("k1") == rows[2]  # close() left the shared connection open
    await memory.close()

    reopened = SurrealMemoryStore(url)
    try:
        control = SurrealControlStore(reopened.connection)
        assert await control.list_organizations() == [rows[0]]
        assert await control.list_principals(ORG_A) == [rows[1]]
        assert await control.get_key("k1") == rows[2]
        assert await control.list_spaces(ORG_A) == [rows[3]]
        assert await control.members_of(ORG_A, "s1") == [rows[4]]
        assert await control.delegations_of(ORG_A, "a1") == [rows[5]]
        assert await SurrealAuditLog(reopened.connection).recent(ORG_A, 5) == [receipt("r1")]
        # the unique indexes survived too, and the organisation's namespace still prepares
        with pytest.raises(ConflictError):
            await control.add_organization(org("org-z", rows[0].name))
        await reopened.prepare(ORG_A, SPACE)
        assert await reopened.count_chunks(ORG_A) == 0
    finally:
        await reopened.close()


@pytest.mark.slow
class TestSurrealControlStoreServer(ControlStoreContract):
    """Skipped unless TESSERA_TEST_SURREAL_URL names a server (tests/support/surreal_server.py)."""

    @pytest.fixture
    async def store(self) -> AsyncIterator[ControlStore]:
        memory = await server_store()
        store = SurrealControlStore(memory.connection)
        yield store
        await store.close()
        await memory.close()


@pytest.mark.slow
class TestSurrealAuditLogServer(AuditLogContract):
    @pytest.fixture
    async def audit_log(self) -> AsyncIterator[AuditLog]:
        memory = await server_store()
        yield SurrealAuditLog(memory.connection)
        await memory.close()


@pytest.mark.slow
async def test_a_namespace_holding_only_receipts_has_no_memory_yet() -> None:
    memory = SurrealMemoryStore("mem://")
    try:
        # an organisation's receipts land in its namespace before it remembers anything
        await SurrealAuditLog(memory.connection).record([receipt("r1")])
        assert await memory.space_of(ORG_A) is None
        assert await memory.reembed_job(ORG_A) is None
        assert await memory.count_chunks(ORG_A) == 0
        await memory.prepare(ORG_A, SPACE)
        assert await memory.space_of(ORG_A) == SPACE
        # an empty id names no row; it does not fail the read
        assert await memory.get_sources(ORG_A, ["", "s-unknown"]) == {}
    finally:
        await memory.close()
