"""The ControlStore port on SurrealDB 3, in the ``tessera_control`` namespace.

Why it borrows the memory store's connection: the embedded engine locks its
data directory, so one process holds one engine; the composition root builds
``SurrealControlStore(store.connection)`` and ``close()`` here leaves that
connection to its owner.

Uniqueness is left to the UNIQUE indexes of ``control_schema`` (two processes
on one server cannot both win), and the engine's refusal is mapped to
``ConflictError(already_exists)``. The DDL runs once per connection, lazily.

Every record's id is its own id (``api_key:<key_id>``), unique across the
control plane, so ``get_key`` (run on every authenticated request) is one
direct record fetch. A membership's id is ``[org, space, principal]``, so
putting it again replaces it in place.
"""

import asyncio
from datetime import datetime
from typing import Any, TypeVar

import msgspec
from surrealdb import RecordID

from adapters.surreal.codec import space_code
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.control_codec import (
    as_conflict,
    from_row,
    require_aware,
    to_row,
    to_value,
)
from adapters.surreal.control_schema import CONTROL_NAMESPACE, CONTROL_SCHEMA
from application.trust.records import (
    ApiKeyRecord,
    DelegationRecord,
    MembershipRecord,
    Organization,
    PrincipalRecord,
    SpaceRecord,
)
from domain.errors import UpstreamError
from domain.scopes import ScopeRef

__all__ = ["SurrealControlStore"]

_R = TypeVar("_R", bound=msgspec.Struct)

_CREATE = "CREATE $id CONTENT $row RETURN NONE;"
_GET_IN_ORG = "SELECT * FROM $id WHERE org_id = $org;"
#: one direct record fetch: it runs on every authenticated request
_GET_KEY = "SELECT * FROM $id;"


def _one(rows: Any) -> Any:
    if isinstance(rows, list):
        return rows[0] if rows else None
    return rows


_REMOVE_ORG = (
    "BEGIN TRANSACTION; DELETE $id;"
    + "".join(
        f" DELETE {table} WHERE org_id = $org;"
        for table in ("principal", "api_key", "space", "membership", "delegation")
    )
    + " COMMIT TRANSACTION;"
)


class SurrealControlStore:
    """Organisations, principals, keys, spaces, memberships and delegations in one namespace."""

    def __init__(self, connection: SurrealConnection) -> None:
        self._conn = connection
        self._ready = False
        self._defining = asyncio.Lock()

    async def _ensure_schema(self) -> None:
        if self._ready:
            return
        async with self._defining:
            if not self._ready:
                await self._conn.query(
                    CONTROL_NAMESPACE,
                    CONTROL_SCHEMA,
                    operation="defining the control plane",
                    write=True,
                )
                self._ready = True

    async def _read(self, sql: str, variables: dict[str, Any], operation: str) -> Any:
        await self._ensure_schema()
        (result,) = await self._conn.query(CONTROL_NAMESPACE, sql, variables, operation=operation)
        return result

    async def _write(
        self, sql: str, variables: dict[str, Any], operation: str, *, what: str = "the record"
    ) -> Any:
        await self._ensure_schema()
        try:
            (result,) = await self._conn.query(
                CONTROL_NAMESPACE, sql, variables, operation=operation, write=True
            )
        except UpstreamError as exc:
            conflict = as_conflict(exc, what)
            if conflict is not None:
                raise conflict from exc
            raise
        return result

    async def _create(self, table: str, key: str, record: msgspec.Struct, what: str) -> None:
        row = to_row(record)
        if isinstance(record, SpaceRecord):
            row["space_code"] = space_code(record.scope, record.scope_key)
        await self._write(
            _CREATE, {"id": RecordID(table, key), "row": row}, f"adding a {table}", what=what
        )

    async def _first(
        self, kind: type[_R], sql: str, variables: dict[str, Any], operation: str
    ) -> _R | None:
        row = _one(await self._read(sql, variables, operation))
        return None if row is None else from_row(kind, row)

    async def _get(self, kind: type[_R], table: str, key: str, org_id: str) -> _R | None:
        return await self._first(
            kind, _GET_IN_ORG, {"id": RecordID(table, key), "org": org_id}, f"reading a {table}"
        )

    async def _list(
        self, kind: type[_R], sql: str, variables: dict[str, Any], operation: str
    ) -> list[_R]:
        rows = await self._read(sql, variables, operation)
        return [from_row(kind, row) for row in rows or []]

    # organisations

    async def add_organization(self, org: Organization) -> None:
        await self._create("organization", org.org_id, org, "an organisation with this id or name")

    async def get_organization(self, org_id: str) -> Organization | None:
        return await self._first(
            Organization,
            "SELECT * FROM $id;",
            {"id": RecordID("organization", org_id)},
            "reading an organisation",
        )

    async def find_organization(self, name: str) -> Organization | None:
        return await self._first(
            Organization,
            "SELECT * FROM organization WHERE name = $name LIMIT 1;",
            {"name": name},
            "finding an organisation",
        )

    async def list_organizations(self) -> list[Organization]:
        return await self._list(
            Organization, "SELECT * FROM organization ORDER BY id;", {}, "listing organisations"
        )

    # principals

    async def add_principal(self, principal: PrincipalRecord) -> None:
        await self._create(
            "principal",
            principal.principal_id,
            principal,
            "a principal with this id, or with this name in the organisation,",
        )

    async def get_principal(self, org_id: str, principal_id: str) -> PrincipalRecord | None:
        return await self._get(PrincipalRecord, "principal", principal_id, org_id)

    async def find_principal(self, org_id: str, name: str) -> PrincipalRecord | None:
        return await self._first(
            PrincipalRecord,
            "SELECT * FROM principal WHERE org_id = $org AND name = $name LIMIT 1;",
            {"org": org_id, "name": name},
            "finding a principal",
        )

    async def list_principals(self, org_id: str) -> list[PrincipalRecord]:
        return await self._list(
            PrincipalRecord,
            "SELECT * FROM principal WHERE org_id = $org ORDER BY id;",
            {"org": org_id},
            "listing principals",
        )

    # API keys

    async def add_key(self, key: ApiKeyRecord) -> None:
        await self._create("api_key", key.key_id, key, "an API key with this id")

    async def get_key(self, key_id: str) -> ApiKeyRecord | None:
        return await self._first(
            ApiKeyRecord, _GET_KEY, {"id": RecordID("api_key", key_id)}, "reading an API key"
        )

    async def list_keys(self, org_id: str) -> list[ApiKeyRecord]:
        return await self._list(
            ApiKeyRecord,
            "SELECT * FROM api_key WHERE org_id = $org ORDER BY id;",
            {"org": org_id},
            "listing API keys",
        )

    async def revoke_key(self, key_id: str, at: datetime) -> ApiKeyRecord | None:
        require_aware(at)
        row = _one(
            await self._write(
                "UPDATE $id SET revoked_at = revoked_at ?? $at RETURN AFTER;",
                {"id": RecordID("api_key", key_id), "at": to_value(at)},
                "revoking an API key",
            )
        )
        return None if row is None else from_row(ApiKeyRecord, row)

    # spaces

    async def add_space(self, space: SpaceRecord) -> None:
        await self._create(
            "space",
            space.space_id,
            space,
            "a space with this id, or with this scope and key in the organisation,",
        )

    async def get_space(self, org_id: str, space_id: str) -> SpaceRecord | None:
        return await self._get(SpaceRecord, "space", space_id, org_id)

    async def find_space(self, org_id: str, ref: ScopeRef) -> SpaceRecord | None:
        return await self._first(
            SpaceRecord,
            "SELECT * FROM space WHERE org_id = $org AND space_code = $code LIMIT 1;",
            {"org": org_id, "code": space_code(ref.scope, ref.scope_key)},
            "finding a space",
        )

    async def list_spaces(self, org_id: str) -> list[SpaceRecord]:
        return await self._list(
            SpaceRecord,
            "SELECT * FROM space WHERE org_id = $org ORDER BY id;",
            {"org": org_id},
            "listing spaces",
        )

    async def set_writes_enabled(
        self, org_id: str, space_id: str, enabled: bool
    ) -> SpaceRecord | None:
        row = _one(
            await self._write(
                "UPDATE $id SET writes_enabled = $on WHERE org_id = $org RETURN AFTER;",
                {"id": RecordID("space", space_id), "org": org_id, "on": bool(enabled)},
                "switching a space's writes",
            )
        )
        return None if row is None else from_row(SpaceRecord, row)

    # memberships and delegations

    async def put_membership(self, membership: MembershipRecord) -> None:
        key = [membership.org_id, membership.space_id, membership.principal_id]
        await self._write(
            "UPSERT $id CONTENT $row RETURN NONE;",
            {"id": RecordID("membership", key), "row": to_row(membership)},
            "putting a membership",
            what="a membership of this principal in this space",
        )

    async def memberships_of(self, org_id: str, principal_id: str) -> list[MembershipRecord]:
        return await self._list(
            MembershipRecord,
            "SELECT * FROM membership WHERE org_id = $org AND principal_id = $who ORDER BY id;",
            {"org": org_id, "who": principal_id},
            "listing a principal's memberships",
        )

    async def members_of(self, org_id: str, space_id: str) -> list[MembershipRecord]:
        return await self._list(
            MembershipRecord,
            "SELECT * FROM membership WHERE org_id = $org AND space_id = $space ORDER BY id;",
            {"org": org_id, "space": space_id},
            "listing a space's members",
        )

    async def add_delegation(self, delegation: DelegationRecord) -> None:
        await self._create(
            "delegation", delegation.delegation_id, delegation, "a delegation with this id"
        )

    async def delegations_of(self, org_id: str, agent_id: str) -> list[DelegationRecord]:
        return await self._list(
            DelegationRecord,
            "SELECT * FROM delegation WHERE org_id = $org AND agent_id = $agent ORDER BY id;",
            {"org": org_id, "agent": agent_id},
            "listing an agent's delegations",
        )

    async def revoke_delegation(
        self, org_id: str, delegation_id: str, at: datetime
    ) -> DelegationRecord | None:
        require_aware(at)
        row = _one(
            await self._write(
                "UPDATE $id SET revoked_at = revoked_at ?? $at WHERE org_id = $org RETURN AFTER;",
                {"id": RecordID("delegation", delegation_id), "org": org_id, "at": to_value(at)},
                "revoking a delegation",
            )
        )
        return None if row is None else from_row(DelegationRecord, row)

    async def remove_organization(self, org_id: str) -> None:
        await self._ensure_schema()
        await self._conn.query(
            CONTROL_NAMESPACE,
            _REMOVE_ORG,
            {"id": RecordID("organization", org_id), "org": org_id},
            operation="removing an organisation",
            write=True,
        )

    async def close(self) -> None:
        """Nothing to release: the connection belongs to the memory store that opened it."""
