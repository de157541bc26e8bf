"""A whole Tessera over the reference adapters, and the functions that people it.

Tests build organisations, users, agents, spaces and keys through the real
control-plane use cases, then act as any principal through a real policy
context: no mocks, and nothing that bypasses the policy.
"""

from datetime import UTC, datetime

from adapters.inmemory.audit_log import InMemoryAuditLog
from adapters.inmemory.candidate_store import InMemoryCandidateStore
from adapters.inmemory.control_store import InMemoryControlStore
from adapters.inmemory.graph_store import InMemoryGraphStore
from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inmemory.synthesis_runs import InMemorySynthesisRuns
from adapters.inprocess.index import InProcessIndex
from adapters.system.clock import FixedClock
from adapters.system.ids import TimeOrderedIds
from adapters.text.sentences import SentencexSegmenter
from adapters.tokenizers.tiktoken_counter import TiktokenCounter
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.results import ContextPack, RememberResult, SearchResults
from application.operations.reembed.service import EmbedderCatalog
from application.ports import Embedder
from application.trust.records import PrincipalRecord, SpaceRecord
from domain.policy import MemoryPolicyContext, OrgRole, SpaceRole, Surface
from domain.scopes import MemoryScope, ScopeRef
from entrypoints.bootstrap import compose

__all__ = ["START", "World"]

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class World:
    def __init__(
        self,
        home_org_id: str = "home",
        trusted_extractors: frozenset[str] = frozenset(),
        embedders: EmbedderCatalog | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.store = InMemoryMemoryStore()
        self.index = InProcessIndex()
        self.embedder = embedder or HashingEmbedder()
        self.clock = FixedClock(START)
        self.control_store = InMemoryControlStore()
        self.audit_log = InMemoryAuditLog()
        self.candidates = InMemoryCandidateStore()
        self.graph = InMemoryGraphStore()
        self.services = compose(
            store=self.store,
            index=self.index,
            embedder=self.embedder,
            tokens=TiktokenCounter(),
            control=self.control_store,
            audit_log=self.audit_log,
            clock=self.clock,
            ids=TimeOrderedIds(),
            home_org_id=home_org_id,
            synthesis_runs=InMemorySynthesisRuns(),
            candidates=self.candidates,
            graph=self.graph,
            segmenter=SentencexSegmenter(),
            trusted_extractors=trusted_extractors,
            embedders=embedders,
        )

    # -- people and spaces (as the operator) ----------------------------------

    async def org(self, name: str) -> str:
        return (await self.services.control.create_organization(name, None, Surface.CLI)).org_id

    async def user(self, org_id: str, name: str, role: OrgRole = OrgRole.MEMBER) -> PrincipalRecord:
        return await self.services.control.create_principal(
            org_id, name, None, Surface.CLI, org_role=role
        )

    async def agent(
        self, org_id: str, name: str, user: PrincipalRecord, delegation_days: int = 30
    ) -> PrincipalRecord:
        return await self.services.control.create_principal(
            org_id,
            name,
            None,
            Surface.CLI,
            acting_for=user.principal_id,
            delegation_days=delegation_days,
        )

    async def space(
        self, org_id: str, scope: MemoryScope, key: str | None = None, *, writes: bool = False
    ) -> SpaceRecord:
        return await self.services.spaces.create_space(
            org_id,
            ScopeRef(scope, key),
            key or str(scope),
            None,
            Surface.CLI,
            writes_enabled=writes,
        )

    async def member(
        self, space: SpaceRecord, who: PrincipalRecord, role: SpaceRole = SpaceRole.WRITER
    ) -> None:
        await self.services.spaces.add_member(
            space.org_id, space.space_id, who.principal_id, role, None, Surface.CLI
        )

    async def key(self, who: PrincipalRecord) -> str:
        issued = await self.services.control.create_key(
            who.org_id, who.principal_id, None, Surface.CLI
        )
        return issued.key

    # -- acting as someone ----------------------------------------------------

    async def ctx(
        self, who: PrincipalRecord, surface: Surface = Surface.API
    ) -> MemoryPolicyContext:
        return await self.services.access.context_for(who, surface, self.services.audit.new_id())

    async def remember(
        self,
        who: PrincipalRecord,
        content: str,
        scope: MemoryScope = MemoryScope.PRIVATE,
        key: str | None = None,
    ) -> RememberResult:
        request = RememberRequest(org_id=who.org_id, content=content, scope=scope, scope_key=key)
        return await self.services.memory.remember(request, await self.ctx(who))

    async def search(self, who: PrincipalRecord, query: str, limit: int = 50) -> SearchResults:
        request = SearchRequest(org_id=who.org_id, query=query, limit=limit)
        return await self.services.memory.search(request, await self.ctx(who))

    async def pack(self, who: PrincipalRecord, query: str, budget: int = 4000) -> ContextPack:
        request = ContextRequest(org_id=who.org_id, query=query, token_budget=budget)
        return await self.services.memory.context_pack(request, await self.ctx(who))
