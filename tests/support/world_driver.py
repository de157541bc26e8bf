"""The policy suites' ``Driver`` over an in-process ``World``: the use cases, no transport."""

from datetime import timedelta
from typing import Any

import msgspec

from application.corrections.commands import CorrectionRequest
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.trust.records import PrincipalRecord
from domain.errors import NotFoundError, PolicyDeniedError, TesseraError
from domain.policy import MemoryPolicyContext, OrgRole, SpaceRole, Surface
from domain.scopes import MemoryScope
from tests.support.policy_suites import Denied, Seen, Space, Who
from tests.support.world import World

__all__ = ["WorldDriver"]


class WorldDriver:
    """Acts through ``world.services`` with each principal's real policy context."""

    def __init__(self, world: World | None = None, surface: Surface = Surface.API) -> None:
        self.world = world or World()
        self.surface = surface
        self._records: dict[str, PrincipalRecord] = {}

    def _who(self, record: PrincipalRecord) -> Who:
        self._records[record.principal_id] = record
        return Who(principal_id=record.principal_id, org_id=record.org_id, name=record.name)

    # -- the operator ------------------------------------------------------------

    async def org(self, name: str) -> str:
        return await self.world.org(name)

    async def user(self, org_id: str, name: str, role: OrgRole = OrgRole.MEMBER) -> Who:
        return self._who(await self.world.user(org_id, name, role))

    async def agent(self, org_id: str, name: str, user: Who, delegation_days: int = 0) -> Who:
        record = self._records[user.principal_id]
        return self._who(await self.world.agent(org_id, name, record, delegation_days))

    async def space(
        self, org_id: str, scope: MemoryScope, key: str | None = None, *, writes: bool = False
    ) -> Space:
        record = await self.world.space(org_id, scope, key, writes=writes)
        return Space(record.space_id, record.org_id, record.scope, record.scope_key)

    async def member(self, space: Space, who: Who, role: SpaceRole = SpaceRole.WRITER) -> None:
        await self.world.services.spaces.add_member(
            space.org_id, space.space_id, who.principal_id, role, None, Surface.CLI
        )

    async def enable_writes(self, space: Space) -> None:
        await self.world.services.spaces.set_writes(
            space.org_id, space.space_id, True, None, Surface.CLI
        )

    def advance(self, delta: timedelta) -> None:
        self.world.clock.set(self.world.clock.now() + delta)

    async def stored_count(self, org_id: str) -> int:
        return await self.world.store.count_chunks(org_id)

    # -- acting as a principal ------------------------------------------------------

    async def _ctx(self, who: Who) -> MemoryPolicyContext:
        return await self.world.ctx(self._records[who.principal_id], self.surface)

    async def remember(
        self,
        who: Who,
        content: str,
        scope: MemoryScope = MemoryScope.PRIVATE,
        key: str | None = None,
    ) -> str:
        request = RememberRequest(org_id=who.org_id, content=content, scope=scope, scope_key=key)
        try:
            result = await self.world.services.memory.remember(request, await self._ctx(who))
        except PolicyDeniedError as denial:
            raise Denied(str(denial.reason)) from denial
        return result.source_id

    async def search(self, who: Who, query: str, limit: int = 50) -> list[Seen]:
        request = SearchRequest(org_id=who.org_id, query=query, limit=limit)
        found = await self.world.services.memory.search(request, await self._ctx(who))
        return [Seen(h.source_id, str(h.scope), h.scope_key, h.text) for h in found.results]

    async def pack(self, who: Who, query: str) -> list[Seen]:
        request = ContextRequest(org_id=who.org_id, query=query, token_budget=4000)
        pack = await self.world.services.memory.context_pack(request, await self._ctx(who))
        return [Seen(i.source_id, str(i.scope), i.scope_key, i.text) for i in pack.items]

    async def inspect(self, who: Who, source_id: str) -> Seen:
        ctx = await self._ctx(who)
        try:
            view = await self.world.services.inspector.inspect_source(ctx, source_id)
        except (PolicyDeniedError, NotFoundError) as denial:
            raise Denied(str(denial.reason)) from denial
        return Seen(view.source_id, str(view.scope), view.scope_key, view.content)

    # -- corrections (tests.support.correction_suites) ----------------------------------

    async def correct(self, who: Who, source_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Preview, then apply with the preview's token (two requests, as on every surface)."""
        request = msgspec.convert(body, CorrectionRequest)
        service = self.world.services.corrections
        try:
            preview = await service.preview(await self._ctx(who), source_id, request)
            applied = await service.apply(
                await self._ctx(who), source_id, request, preview.preview_token
            )
        except TesseraError as refusal:
            raise Denied(str(refusal.reason)) from refusal
        result: dict[str, Any] = msgspec.to_builtins(applied)
        return result

    async def hits(self, who: Who, query: str) -> list[dict[str, Any]]:
        request = SearchRequest(org_id=who.org_id, query=query, limit=50)
        found = await self.world.services.memory.search(request, await self._ctx(who))
        return [msgspec.to_builtins(h) for h in found.results]

    async def pack_items(self, who: Who, query: str) -> dict[str, Any]:
        request = ContextRequest(org_id=who.org_id, query=query, token_budget=4000)
        pack = await self.world.services.memory.context_pack(request, await self._ctx(who))
        result: dict[str, Any] = msgspec.to_builtins(pack)
        return result

    async def audit_text(self, org_id: str) -> str:
        """Every audit receipt of the organisation, as the operator reads them."""
        return repr(await self.world.services.audit.recent(org_id, 1000))
