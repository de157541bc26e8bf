"""Every use case of one running Tessera, built over one set of ports.

Surfaces (HTTP, CLI, MCP) hold one of these and nothing else: authenticate
a key into a policy context, then call a use case with that context.
"""

import secrets
from typing import TypeVar

from application.corrections.bulk import BulkDelete
from application.corrections.export import Exporter
from application.corrections.service import CorrectionService
from application.imports.import_jobs import ImportJobs, ImportSetup
from application.memory.service import MemoryService
from application.operations.diagnostics import StatusReporter
from application.operations.inspection import MemoryInspector
from application.operations.org_drop import OrgDropper
from application.operations.reembed.service import EmbedderCatalog, Reembed
from application.operations.reembed.switchable import switchable
from application.operations.store_compaction import StoreCompactor
from application.ports import (
    Clock,
    Embedder,
    IdGenerator,
    MemoryStore,
    RetrievalIndex,
    TokenCounter,
)
from application.ports.llm import LanguageModel
from application.ports.reflection import CandidateStore, GraphStore, SentenceSegmenter
from application.reflection.accept_preview import PromotionPreviewer
from application.reflection.background import ReflectionLane
from application.reflection.derived import DerivedRecall
from application.reflection.forgetting import DerivedForgetting
from application.reflection.reflect import Reflector
from application.reflection.review import Reviewer
from application.reflection.vectors import DerivedVectors
from application.retrieval.pipeline import RetrievalMode
from application.retrieval.recall import Recall
from application.retrieval.wake import WakePacker
from application.sharing.service import Sharing
from application.synthesis.ports import SynthesisRunStore
from application.synthesis.run_list import SynthesisRunList
from application.synthesis.service import SynthesisService
from application.trust.access import AccessResolver, Caller
from application.trust.admin import ControlService
from application.trust.admin_base import AdminBase
from application.trust.audience import AudienceResolver
from application.trust.audit import AuditTrail
from application.trust.keys import IssuedKey
from application.trust.ports import AuditLog, ControlStore
from application.trust.preview_tokens import PreviewTokens
from application.trust.readers import OrgReaders
from application.trust.revocation import Revoker
from application.trust.roster import Roster
from application.trust.space_admin import SpaceAdmin
from application.workspace.activity import ActivityFeed
from application.workspace.follow_up import FollowUpFeed
from domain.policy import MemoryPolicyContext, Surface

__all__ = ["Services"]

_Admin = TypeVar("_Admin", bound=AdminBase)


class Services:
    def __init__(
        self,
        *,
        store: MemoryStore,
        index: RetrievalIndex,
        embedder: Embedder,
        tokens: TokenCounter,
        control: ControlStore,
        audit_log: AuditLog,
        clock: Clock,
        ids: IdGenerator,
        home_org_id: str,
        synthesis_runs: SynthesisRunStore,
        retrieval_mode: RetrievalMode = RetrievalMode.RANKED,
        recall: Recall | None = None,
        llm: LanguageModel | None = None,
        preview_key: bytes | None = None,
        imports: ImportSetup | None = None,
        candidates: CandidateStore | None = None,
        graph: GraphStore | None = None,
        segmenter: SentenceSegmenter | None = None,
        trusted_extractors: frozenset[str] = frozenset(),
        embedders: EmbedderCatalog | None = None,
        derived_vectors: DerivedVectors | None = None,
    ) -> None:
        self.home_org_id = home_org_id
        #: one embedder every use case shares, which a finished re-embed switches
        embedder = switchable(embedder)
        #: promoted records as a retrieval signal, when the root gave reflection its stores
        self.derived: DerivedRecall | None = None
        #: the background pass that gives promoted records their vectors
        self.derived_vectors: DerivedVectors | None = None
        if candidates is not None and graph is not None:
            self.derived_vectors = derived_vectors or DerivedVectors(
                graph=graph, store=store, embedder=embedder
            )
            self.derived = DerivedRecall(store=store, graph=graph, vectors=self.derived_vectors)
        #: retrieve-then-recheck, shared by search, context packs and synthesis
        self.recall = recall or Recall(
            store=store,
            index=index,
            embedder=embedder,
            retrieval_mode=retrieval_mode,
            derived=self.derived,
        )
        self.audit = AuditTrail(audit_log, clock, ids)
        self.access = AccessResolver(control, clock)
        self.memory = MemoryService(
            store=store,
            index=index,
            embedder=embedder,
            tokens=tokens,
            clock=clock,
            ids=ids,
            audit=self.audit,
            recall=self.recall,
        )

        def admin(kind: type[_Admin]) -> _Admin:
            return kind(
                control=control,
                access=self.access,
                audit=self.audit,
                clock=clock,
                ids=ids,
                home_org_id=home_org_id,
            )

        self.control = admin(ControlService)
        self.spaces = admin(SpaceAdmin)
        #: space members and delegations, listed for admins (the workspace's access page)
        self.roster = admin(Roster)
        #: a caller's own keys and delegations, revoked with a preview
        self.revoker = admin(Revoker)
        self.inspector = MemoryInspector(
            store=store,
            control=control,
            access=self.access,
            audit=self.audit,
            synthesis_runs=synthesis_runs,
        )
        #: the caller's recent captures and recalls (the memory workspace's first screen)
        self.activity = ActivityFeed(store=store, control=control, audit=self.audit)
        self.synthesis = SynthesisService(
            recall=self.recall,
            store=store,
            memory=self.memory,
            embedder=embedder,
            runs=synthesis_runs,
            audience=AudienceResolver(control=control, access=self.access),
            audit=self.audit,
            clock=clock,
            ids=ids,
            llm=llm,
        )
        #: the caller's own runs, to list and resume them (the memory workspace)
        self.synthesis_runs = SynthesisRunList(runs=synthesis_runs, audit=self.audit)
        #: the home page's drafts with open gaps and sources to review
        self.follow_up = FollowUpFeed(store=store, runs=synthesis_runs, audit=self.audit)
        #: preview tokens are signed with a key of this process unless one is given
        previews = PreviewTokens(preview_key or secrets.token_bytes(32))
        forgetting = None
        if candidates is not None and graph is not None:
            forgetting = DerivedForgetting(candidates=candidates, graph=graph, store=store)
        self.corrections = CorrectionService(
            store=store,
            index=index,
            clock=clock,
            audit=self.audit,
            tokens=previews,
            derived=forgetting,
        )
        self.bulk_delete = BulkDelete(
            store=store,
            index=index,
            clock=clock,
            audit=self.audit,
            tokens=previews,
            derived=forgetting,
        )
        self.exporter = Exporter(store=store, audit=self.audit)
        #: share a source or a promoted entity into another space (preview, then apply)
        self.readers = OrgReaders(control=control, access=self.access)
        self.sharing = Sharing(
            store=store,
            graph=graph,
            memory=self.memory,
            readers=self.readers,
            audit=self.audit,
            clock=clock,
            ids=ids,
            tokens=previews,
        )
        self.orgs = OrgDropper(
            memory=self.memory,
            store=store,
            runs=synthesis_runs,
            control=control,
            access=self.access,
            audit=self.audit,
            clock=clock,
            ids=ids,
            home_org_id=home_org_id,
        )
        self.store_compaction = StoreCompactor(
            store=store,
            audit=self.audit,
            clock=clock,
            ids=ids,
            home_org_id=home_org_id,
            is_operator=self.orgs.is_operator,
        )
        self._control_store = control
        #: changing the embedding model without downtime (``tessera reembed``)
        self.reembed = Reembed(
            store=store,
            embedder=embedder,
            readiness=self.recall.readiness,
            control=control,
            audit=self.audit,
            clock=clock,
            ids=ids,
            home_org_id=home_org_id,
            is_operator=self.orgs.is_operator,
            catalog=embedders,
        )
        self.status = StatusReporter(
            store=store,
            index=index,
            memory=self.memory,
            control=control,
            audit=self.audit,
            admin=self.control,
            clock=clock,
        )
        #: archive imports, when the composition root configured them
        self.imports: ImportJobs | None = None
        if imports is not None:
            self.imports = ImportJobs(
                imports,
                memory=self.memory,
                control=control,
                access=self.access,
                audit=self.audit,
                ids=ids,
                clock=clock,
            )
        #: derived memory (reflect, review, promotion), when the root gave it its stores
        self.reflection: Reflector | None = None
        self.review: Reviewer | None = None
        self.promotion_preview: PromotionPreviewer | None = None
        if candidates is not None and graph is not None:
            if segmenter is None:
                raise TypeError("reflection's stores need a sentence segmenter (segmenter=)")
            self.review = Reviewer(
                store=store,
                candidates=candidates,
                graph=graph,
                audit=self.audit,
                clock=clock,
                tokens=previews,
                vectors=self.derived_vectors,
            )
            #: who would see a candidate's records in the target space, before accepting
            self.promotion_preview = PromotionPreviewer(
                reviewer=self.review, readers=self.readers, audit=self.audit, tokens=previews
            )
            self.reflection = Reflector(
                store=store,
                candidates=candidates,
                reviewer=self.review,
                readiness=self.recall.readiness,
                audit=self.audit,
                clock=clock,
                segmenter=segmenter,
                llm=llm,
                trusted_extractors=trusted_extractors,
            )
        #: reflection after writes and imports, once ``reflect_on_write`` turns it on
        self.reflection_lane: ReflectionLane | None = None
        self._lane_parts = (store, control, clock)
        #: what matters now, without a query (derived records first when the graph exists)
        self.wake = WakePacker(store=store, graph=graph, tokens=tokens, audit=self.audit)
        #: the owner key made by the first ``open`` of a fresh install (held in memory only)
        self.bootstrap_key: IssuedKey | None = None

    def reflect_on_write(self, capacity: int = 256) -> ReflectionLane | None:
        """Reflect every committed write and import batch in the background (off unless
        called; TESSERA_REFLECT_ON_WRITE). None when reflection is not configured."""
        if self.reflection is None or self.reflection_lane is not None:
            return self.reflection_lane
        store, control, clock = self._lane_parts
        lane = ReflectionLane(
            reflect=self.reflection.reflect,
            store=store,
            control=control,
            access=self.access,
            clock=clock,
            capacity=capacity,
        )
        self.memory.on_write(lane.offer)
        self.status.watch_queue(lane)
        self.reflection_lane = lane
        return lane

    async def session(
        self, raw_key: str | None, surface: Surface, claimed_agent: str | None = None
    ) -> tuple[Caller, MemoryPolicyContext]:
        """Authenticate a key (401 errors) and build its policy context for one request.

        ``claimed_agent``: an agent the request says it acts as, besides its key;
        the policy refuses it (``agent_identity_required``) unless it is the key's agent.
        """
        caller = await self.access.authenticate(raw_key)
        ctx = await self.access.context_for(
            caller.principal, surface, self.audit.new_id(), claimed_agent
        )
        return caller, ctx

    async def open(self, surface: Surface) -> IssuedKey | None:
        """Prepare the home organisation; on a fresh install also create its owner and key.

        Safe to call again: only the call that bootstrapped returns the key.
        """
        issued = await self.control.bootstrap(surface)
        if issued is not None:
            self.bootstrap_key = issued
        await self.memory.open(self.home_org_id)
        if self.imports is not None:
            await self.imports.open()  # uploads left by ended or abandoned imports go
        return issued

    async def close(self) -> None:
        await self.reembed.close()  # a running build stops; its progress is saved
        if self.derived_vectors is not None:
            await self.derived_vectors.close()  # before the store it writes to closes
        if self.imports is not None:
            await self.imports.close()  # running imports pause between batches first
        if self.reflection_lane is not None:
            await self.reflection_lane.close()
        await self.memory.close()  # flushes the audit trail, then closes the store
        await self._control_store.close()
