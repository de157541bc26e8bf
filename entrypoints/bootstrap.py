"""The use cases of one running Tessera, each built once over one set of ports.

``UseCases`` is given the ports (stores, index, embedder, clock, ids ...) and wires every
use case over them; ``entrypoints.container.Container`` gives it the ports the settings
pick, and tests and benchmarks give it theirs (``compose``), overriding any provider they
fake or measure (``compose(..., recall=...)``). What it hands the surfaces is one
``Services`` record.
"""

import secrets
from collections.abc import Callable
from typing import Any

from dependency_injector import containers, providers

from application.corrections.bulk import BulkDelete
from application.corrections.export import Exporter
from application.corrections.service import CorrectionService
from application.enrichment.lane import EmbeddingLane
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
from application.ports.rerank import Reranker
from application.reflection.accept_preview import PromotionPreviewer
from application.reflection.background import ReflectionLane
from application.reflection.derived import DerivedRecall
from application.reflection.forgetting import DerivedForgetting
from application.reflection.reflect import Reflector
from application.reflection.review import Reviewer
from application.reflection.vectors import DerivedVectors
from application.retrieval.options import ConversationRecall
from application.retrieval.pipeline import RetrievalMode
from application.retrieval.recall import Recall
from application.retrieval.rerank_step import DEFAULT_TOP_N
from application.retrieval.wake import WakePacker
from application.services import Services
from application.sharing.service import Sharing
from application.synthesis.ports import SynthesisRunStore
from application.synthesis.run_list import SynthesisRunList
from application.synthesis.service import SynthesisService
from application.trust.access import AccessResolver
from application.trust.admin import ControlService
from application.trust.audience import AudienceResolver
from application.trust.audit import AuditTrail
from application.trust.ports import AuditLog, ControlStore
from application.trust.preview_tokens import PreviewTokens
from application.trust.readers import OrgReaders
from application.trust.revocation import Revoker
from application.trust.roster import Roster
from application.trust.space_admin import SpaceAdmin
from application.workspace.activity import ActivityFeed
from application.workspace.follow_up import FollowUpFeed

__all__ = ["UseCases", "compose"]


def _derived_vectors(
    candidates: CandidateStore | None, graph: GraphStore | None, store: MemoryStore, embedder: Any
) -> DerivedVectors | None:
    """The background pass that gives promoted records their vectors (with reflection only)."""
    if candidates is None or graph is None:
        return None
    return DerivedVectors(graph=graph, store=store, embedder=embedder)


def _derived(
    candidates: CandidateStore | None,
    graph: GraphStore | None,
    store: MemoryStore,
    vectors: DerivedVectors | None,
) -> DerivedRecall | None:
    """Promoted records as a retrieval signal (with reflection only)."""
    if candidates is None or graph is None:
        return None
    return DerivedRecall(store=store, graph=graph, vectors=vectors)


def _forgetting(
    candidates: CandidateStore | None, graph: GraphStore | None, store: MemoryStore
) -> DerivedForgetting | None:
    if candidates is None or graph is None:
        return None
    return DerivedForgetting(candidates=candidates, graph=graph, store=store)


def _previews(key: bytes | None) -> PreviewTokens:
    """Preview tokens are signed with a key of this process unless one is given."""
    return PreviewTokens(key or secrets.token_bytes(32))


def _imports(setup: ImportSetup | None, **parts: Any) -> ImportJobs | None:
    """Archive imports, when the composition root configured them."""
    return None if setup is None else ImportJobs(setup, **parts)


def _review(
    candidates: CandidateStore | None,
    graph: GraphStore | None,
    segmenter: SentenceSegmenter | None,
    **parts: Any,
) -> Reviewer | None:
    if candidates is None or graph is None:
        return None
    if segmenter is None:
        raise TypeError("reflection's stores need a sentence segmenter (segmenter=)")
    return Reviewer(candidates=candidates, graph=graph, **parts)


def _promotion_preview(review: Reviewer | None, **parts: Any) -> PromotionPreviewer | None:
    """Who would see a candidate's records in the target space, before accepting."""
    return None if review is None else PromotionPreviewer(reviewer=review, **parts)


def _reflector(
    review: Reviewer | None, candidates: CandidateStore | None, **parts: Any
) -> Reflector | None:
    if review is None or candidates is None:
        return None
    return Reflector(reviewer=review, candidates=candidates, **parts)


def _reflection_lanes(
    reflection: Reflector | None,
    store: MemoryStore,
    control: ControlStore,
    access: AccessResolver,
    clock: Clock,
) -> Callable[[int], ReflectionLane] | None:
    """How ``Services.reflect_on_write`` makes its lane (None: reflection is not configured)."""
    if reflection is None:
        return None

    def lane(capacity: int) -> ReflectionLane:
        return ReflectionLane(
            reflect=reflection.reflect,
            store=store,
            control=control,
            access=access,
            clock=clock,
            capacity=capacity,
        )

    return lane


class UseCases(containers.DeclarativeContainer):
    """Every use case over the ports it is given; each provider builds its use case once."""

    # the ports
    store: providers.Dependency[MemoryStore] = providers.Dependency()
    index: providers.Dependency[RetrievalIndex] = providers.Dependency()
    #: the embedder as given; every use case shares ``serving_embedder``, which a
    #: finished re-embed switches
    embedder: providers.Dependency[Embedder] = providers.Dependency()
    tokens: providers.Dependency[TokenCounter] = providers.Dependency()
    control: providers.Dependency[ControlStore] = providers.Dependency()
    audit_log: providers.Dependency[AuditLog] = providers.Dependency()
    clock: providers.Dependency[Clock] = providers.Dependency()
    ids: providers.Dependency[IdGenerator] = providers.Dependency()
    home_org_id: providers.Dependency[str] = providers.Dependency()
    synthesis_runs: providers.Dependency[SynthesisRunStore] = providers.Dependency()
    llm: providers.Object[LanguageModel | None] = providers.Object(None)
    #: reflection's stores and segmenter (none: no derived memory)
    candidates: providers.Object[CandidateStore | None] = providers.Object(None)
    graph: providers.Object[GraphStore | None] = providers.Object(None)
    segmenter: providers.Object[SentenceSegmenter | None] = providers.Object(None)
    #: archive imports' setup (none: no imports)
    imports: providers.Object[ImportSetup | None] = providers.Object(None)
    # choices
    retrieval_mode = providers.Object(RetrievalMode.RANKED)
    reranker: providers.Object[Reranker | None] = providers.Object(None)
    rerank_top_n = providers.Object(DEFAULT_TOP_N)
    conversation: providers.Object[ConversationRecall | None] = providers.Object(None)
    embedders: providers.Object[EmbedderCatalog | None] = providers.Object(None)
    trusted_extractors = providers.Object(frozenset[str]())
    preview_key: providers.Object[bytes | None] = providers.Object(None)

    serving_embedder = providers.Singleton(switchable, embedder)
    derived_vectors = providers.Singleton(
        _derived_vectors, candidates, graph, store, serving_embedder
    )
    derived = providers.Singleton(_derived, candidates, graph, store, derived_vectors)
    #: retrieve-then-recheck, shared by search, context packs and synthesis
    recall = providers.Singleton(
        Recall,
        store=store,
        index=index,
        embedder=serving_embedder,
        retrieval_mode=retrieval_mode,
        reranker=reranker,
        rerank_top_n=rerank_top_n,
        derived=derived,
        conversation=conversation,
    )
    audit = providers.Singleton(AuditTrail, audit_log, clock, ids)
    access = providers.Singleton(AccessResolver, control, clock)
    #: the embedding lane: writes are searchable by their words before their vectors
    lane = providers.Singleton(EmbeddingLane, store=store, index=index, embedder=serving_embedder)
    memory = providers.Singleton(
        MemoryService,
        store=store,
        index=index,
        embedder=serving_embedder,
        tokens=tokens,
        clock=clock,
        ids=ids,
        audit=audit,
        recall=recall,
        lane=lane,
    )
    control_service = providers.Singleton(
        ControlService,
        control=control,
        access=access,
        audit=audit,
        clock=clock,
        ids=ids,
        home_org_id=home_org_id,
    )
    spaces = providers.Singleton(
        SpaceAdmin,
        control=control,
        access=access,
        audit=audit,
        clock=clock,
        ids=ids,
        home_org_id=home_org_id,
    )
    roster = providers.Singleton(
        Roster,
        control=control,
        access=access,
        audit=audit,
        clock=clock,
        ids=ids,
        home_org_id=home_org_id,
    )
    revoker = providers.Singleton(
        Revoker,
        control=control,
        access=access,
        audit=audit,
        clock=clock,
        ids=ids,
        home_org_id=home_org_id,
    )
    inspector = providers.Singleton(
        MemoryInspector,
        store=store,
        control=control,
        access=access,
        audit=audit,
        synthesis_runs=synthesis_runs,
    )
    activity = providers.Singleton(ActivityFeed, store=store, control=control, audit=audit)
    synthesis = providers.Singleton(
        SynthesisService,
        recall=recall,
        store=store,
        memory=memory,
        embedder=serving_embedder,
        runs=synthesis_runs,
        audience=providers.Singleton(AudienceResolver, control=control, access=access),
        audit=audit,
        clock=clock,
        ids=ids,
        llm=llm,
    )
    synthesis_run_list = providers.Singleton(SynthesisRunList, runs=synthesis_runs, audit=audit)
    follow_up = providers.Singleton(FollowUpFeed, store=store, runs=synthesis_runs, audit=audit)
    previews = providers.Singleton(_previews, preview_key)
    forgetting = providers.Singleton(_forgetting, candidates, graph, store)
    corrections = providers.Singleton(
        CorrectionService,
        store=store,
        index=index,
        clock=clock,
        audit=audit,
        tokens=previews,
        derived=forgetting,
    )
    bulk_delete = providers.Singleton(
        BulkDelete,
        store=store,
        index=index,
        clock=clock,
        audit=audit,
        tokens=previews,
        derived=forgetting,
    )
    exporter = providers.Singleton(Exporter, store=store, audit=audit)
    readers = providers.Singleton(OrgReaders, control=control, access=access)
    sharing = providers.Singleton(
        Sharing,
        store=store,
        graph=graph,
        memory=memory,
        readers=readers,
        audit=audit,
        clock=clock,
        ids=ids,
        tokens=previews,
    )
    orgs = providers.Singleton(
        OrgDropper,
        memory=memory,
        store=store,
        runs=synthesis_runs,
        control=control,
        access=access,
        audit=audit,
        clock=clock,
        ids=ids,
        home_org_id=home_org_id,
    )
    store_compaction = providers.Singleton(
        StoreCompactor,
        store=store,
        audit=audit,
        clock=clock,
        ids=ids,
        home_org_id=home_org_id,
        is_operator=orgs.provided.is_operator,
    )
    readiness = recall.provided.readiness
    reembed = providers.Singleton(
        Reembed,
        store=store,
        embedder=serving_embedder,
        readiness=readiness,
        control=control,
        audit=audit,
        clock=clock,
        ids=ids,
        home_org_id=home_org_id,
        is_operator=orgs.provided.is_operator,
        catalog=embedders,
    )
    status = providers.Singleton(
        StatusReporter,
        store=store,
        index=index,
        memory=memory,
        control=control,
        audit=audit,
        admin=control_service,
        clock=clock,
    )
    import_jobs = providers.Singleton(
        _imports,
        imports,
        memory=memory,
        control=control,
        access=access,
        audit=audit,
        ids=ids,
        clock=clock,
    )
    review = providers.Singleton(
        _review,
        candidates,
        graph,
        segmenter,
        store=store,
        audit=audit,
        clock=clock,
        tokens=previews,
        vectors=derived_vectors,
    )
    promotion_preview = providers.Singleton(
        _promotion_preview, review, readers=readers, audit=audit, tokens=previews
    )
    reflection = providers.Singleton(
        _reflector,
        review,
        candidates,
        store=store,
        readiness=readiness,
        audit=audit,
        clock=clock,
        segmenter=segmenter,
        llm=llm,
        trusted_extractors=trusted_extractors,
    )
    reflection_lanes = providers.Singleton(
        _reflection_lanes, reflection, store, control, access, clock
    )
    #: what matters now, without a query (derived records first when the graph exists)
    wake = providers.Singleton(WakePacker, store=store, graph=graph, tokens=tokens, audit=audit)

    services = providers.Singleton(
        Services,
        home_org_id=home_org_id,
        derived=derived,
        derived_vectors=derived_vectors,
        recall=recall,
        audit=audit,
        access=access,
        memory=memory,
        control=control_service,
        spaces=spaces,
        roster=roster,
        revoker=revoker,
        inspector=inspector,
        activity=activity,
        synthesis=synthesis,
        synthesis_runs=synthesis_run_list,
        follow_up=follow_up,
        corrections=corrections,
        bulk_delete=bulk_delete,
        exporter=exporter,
        readers=readers,
        sharing=sharing,
        orgs=orgs,
        store_compaction=store_compaction,
        reembed=reembed,
        status=status,
        imports=import_jobs,
        review=review,
        promotion_preview=promotion_preview,
        reflection=reflection,
        reflection_lanes=reflection_lanes,
        wake=wake,
        control_store=control,
    )


def compose(**ports_and_overrides: Any) -> Services:
    """``Services`` over the given ports (``UseCases``' dependencies by name), any other
    provider named here replaced by the value given (a test's or benchmark's own)."""
    return UseCases(**ports_and_overrides).services()
