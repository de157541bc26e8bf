"""Every use case of one running Tessera, as the composition root built them.

Surfaces (HTTP, CLI, MCP) hold one of these and nothing else: authenticate
a key into a policy context, then call a use case with that context. The
use cases are wired once, in ``entrypoints.bootstrap``; this record only holds
them, and starts and stops what runs in the background.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from application.corrections.bulk import BulkDelete
from application.corrections.export import Exporter
from application.corrections.service import CorrectionService
from application.imports.import_jobs import ImportJobs
from application.memory.service import MemoryService
from application.operations.diagnostics import StatusReporter
from application.operations.inspection import MemoryInspector
from application.operations.org_drop import OrgDropper
from application.operations.reembed.service import Reembed
from application.operations.store_compaction import StoreCompactor
from application.reflection.accept_preview import PromotionPreviewer
from application.reflection.background import ReflectionLane
from application.reflection.derived import DerivedRecall
from application.reflection.reflect import Reflector
from application.reflection.review import Reviewer
from application.reflection.vectors import DerivedVectors
from application.retrieval.recall import Recall
from application.retrieval.wake import WakePacker
from application.sharing.service import Sharing
from application.synthesis.run_list import SynthesisRunList
from application.synthesis.service import SynthesisService
from application.trust.access import AccessResolver, Caller
from application.trust.admin import ControlService
from application.trust.audit import AuditTrail
from application.trust.keys import IssuedKey
from application.trust.ports import ControlStore
from application.trust.readers import OrgReaders
from application.trust.revocation import Revoker
from application.trust.roster import Roster
from application.trust.space_admin import SpaceAdmin
from application.workspace.activity import ActivityFeed
from application.workspace.follow_up import FollowUpFeed
from domain.policy import MemoryPolicyContext, Surface

__all__ = ["Services"]


class _Running:
    """What a running ``Services`` learns after it is built."""

    def __init__(self) -> None:
        self.bootstrap_key: IssuedKey | None = None
        self.reflection_lane: ReflectionLane | None = None


@dataclass(frozen=True, kw_only=True, eq=False)
class Services:
    home_org_id: str
    #: retrieve-then-recheck, shared by search, context packs and synthesis
    recall: Recall
    audit: AuditTrail
    access: AccessResolver
    memory: MemoryService
    control: ControlService
    spaces: SpaceAdmin
    #: space members and delegations, listed for admins (the workspace's access page)
    roster: Roster
    #: a caller's own keys and delegations, revoked with a preview
    revoker: Revoker
    inspector: MemoryInspector
    #: the caller's recent captures and recalls (the memory workspace's first screen)
    activity: ActivityFeed
    synthesis: SynthesisService
    #: the caller's own runs, to list and resume them (the memory workspace)
    synthesis_runs: SynthesisRunList
    #: the home page's drafts with open gaps and sources to review
    follow_up: FollowUpFeed
    corrections: CorrectionService
    bulk_delete: BulkDelete
    exporter: Exporter
    #: share a source or a promoted entity into another space (preview, then apply)
    readers: OrgReaders
    sharing: Sharing
    orgs: OrgDropper
    store_compaction: StoreCompactor
    #: changing the embedding model without downtime (``tessera reembed``)
    reembed: Reembed
    status: StatusReporter
    #: what matters now, without a query (derived records first when the graph exists)
    wake: WakePacker
    #: the control plane's store, closed last
    control_store: ControlStore
    #: archive imports, when the composition root configured them
    imports: ImportJobs | None = None
    #: promoted records as a retrieval signal (the one ``recall`` reads), with reflection
    derived: DerivedRecall | None = None
    #: the background pass that gives promoted records their vectors
    derived_vectors: DerivedVectors | None = None
    #: derived memory (reflect, review, promotion), when the root gave it its stores
    reflection: Reflector | None = None
    review: Reviewer | None = None
    #: who would see a candidate's records in the target space, before accepting
    promotion_preview: PromotionPreviewer | None = None
    #: makes the lane ``reflect_on_write`` starts (None: reflection is not configured)
    reflection_lanes: Callable[[int], ReflectionLane] | None = None
    _running: _Running = field(default_factory=_Running, repr=False)

    @property
    def bootstrap_key(self) -> IssuedKey | None:
        """The owner key made by the first ``open`` of a fresh install (held in memory only)."""
        return self._running.bootstrap_key

    @property
    def reflection_lane(self) -> ReflectionLane | None:
        """Reflection after writes and imports, once ``reflect_on_write`` turns it on."""
        return self._running.reflection_lane

    def reflect_on_write(self, capacity: int = 256) -> ReflectionLane | None:
        """Reflect every committed write and import batch in the background (off unless
        called; TESSERA_REFLECT_ON_WRITE). None when reflection is not configured."""
        if self.reflection_lanes is None or self._running.reflection_lane is not None:
            return self._running.reflection_lane
        lane = self.reflection_lanes(capacity)
        self.memory.on_write(lane.offer)
        self.status.watch_queue(lane)
        self._running.reflection_lane = lane
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

    async def open(self, surface: Surface, *, load_model: bool = False) -> IssuedKey | None:
        """Prepare the home organisation; on a fresh install also create its owner and key.

        ``load_model``: a long-running service loads the embedder's model (in its own
        thread) while the store opens and the index restores, so its first search does
        not wait for it; a one-shot command loads it only if it embeds.
        Safe to call again: only the call that bootstrapped returns the key.
        """
        loading = asyncio.create_task(self.memory.preload()) if load_model else None
        try:
            issued = await self.control.bootstrap(surface)
            if issued is not None:
                self._running.bootstrap_key = issued
            await self.memory.open(self.home_org_id)
            if self.imports is not None:
                await self.imports.open()  # uploads left by ended or abandoned imports go
        except BaseException:
            if loading is not None:
                loading.cancel()  # the store's failure is the one to report, at once
            raise
        if loading is not None:
            await loading
        return issued

    async def close(self) -> None:
        await self.reembed.close()  # a running build stops; its progress is saved
        if self.derived_vectors is not None:
            await self.derived_vectors.close()  # before the store it writes to closes
        if self.imports is not None:
            await self.imports.close()  # running imports pause between batches first
        if self._running.reflection_lane is not None:
            await self._running.reflection_lane.close()
        await self.memory.close()  # flushes the audit trail, then closes the store
        await self.control_store.close()
