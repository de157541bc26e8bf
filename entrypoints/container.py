"""The composition root: the only place that picks concrete adapters.

Adapters are imported inside the factories so that choosing OpenAI does not
import onnxruntime, and nothing heavy happens at import time.
"""

from datetime import timedelta
from pathlib import Path

from dependency_injector import containers, providers

from application.imports.import_jobs import ImportSetup
from application.memory.service import MemoryService
from application.operations.reembed.service import EmbedderCatalog
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
from application.retrieval.options import ConversationRecall
from application.retrieval.pipeline import RetrievalMode
from application.services import Services
from application.synthesis.ports import SynthesisRunStore
from application.trust.ports import AuditLog, ControlStore
from entrypoints.bootstrap import UseCases, compose
from entrypoints.settings import (
    DEFAULT_BLAS_THREADS,
    EmbedderKind,
    IndexKind,
    QueryPrecision,
    Settings,
    SettingsError,
)

__all__ = [
    "Container",
    "build_container",
    "make_audit_log",
    "make_control_store",
    "make_derived_stores",
    "make_index",
    "make_service",
    "make_services",
    "make_synthesis_runs",
]


def _store(settings: Settings) -> MemoryStore:
    from adapters.surreal.memory_store import SurrealMemoryStore

    return SurrealMemoryStore(
        settings.db_url,
        username=settings.db_user,
        password=settings.db_password,
        # SurrealDB's own search indexes cost most of a write; only the native index reads them
        native_search=settings.index is IndexKind.SURREAL,
    )


def _index(settings: Settings, store: MemoryStore) -> RetrievalIndex:
    ann = "off" if settings.ann_off else settings.ann_min_rows
    minutes = settings.index_idle_minutes
    return make_index(
        settings.index,
        store,
        ann,
        None if minutes is None else minutes * 60,
        blas_threads=settings.blas_threads,
    )


def make_index(
    kind: IndexKind,
    store: MemoryStore,
    ann_min_rows: int | str | None = None,
    idle_seconds: float | None = None,
    *,
    blas_threads: int | None = DEFAULT_BLAS_THREADS,
) -> RetrievalIndex:
    """The retrieval index of ``kind`` over ``store`` (benchmarks compare them side by side).

    ``ann_min_rows`` (in-process only): rows from which the vector leg walks a graph;
    ``"off"``: never; None: the index's default (adapters.inprocess.ann.AnnPolicy).
    ``idle_seconds`` (snapshotting in-process index only): unused this long, an
    organisation leaves memory (application.indexing.idle_eviction); None: never.
    ``blas_threads``: numpy's BLAS, which both indexes' vector products run on, is
    limited to so many threads for the whole process (None: as the library chose)."""
    from adapters.system.blas_threads import limit_blas_threads

    limit_blas_threads(blas_threads)
    if kind is IndexKind.SURREAL:
        from adapters.surreal.memory_store import SurrealMemoryStore
        from adapters.surreal.native_index import SurrealNativeIndex

        if not isinstance(store, SurrealMemoryStore):
            raise SettingsError("TESSERA_INDEX=surreal needs the SurrealDB store")
        if not store.native_search:
            raise SettingsError("TESSERA_INDEX=surreal needs a store opened with native_search")
        return SurrealNativeIndex(store)
    from adapters.inprocess.ann import AnnPolicy
    from adapters.inprocess.index import DEFAULT_ANN, InProcessIndex

    # the index's default policy (adapters.inprocess.ann.AnnPolicy) unless told otherwise
    policy: AnnPolicy | None = DEFAULT_ANN
    if ann_min_rows == "off":
        policy = None
    elif isinstance(ann_min_rows, int):
        policy = AnnPolicy(min_rows=ann_min_rows)
    snapshots = _snapshot_dir(store)
    if snapshots is not None:
        from adapters.inprocess.persistent import PersistentInProcessIndex

        return PersistentInProcessIndex(snapshots, idle_after=idle_seconds, ann_policy=policy)
    return InProcessIndex(ann_policy=policy)


def _snapshot_dir(store: MemoryStore) -> Path | None:
    """Beside an on-disk store's data directory: ``<data dir>.index``.

    Not inside it: a compaction exchanges the data directory for a rewritten one.
    None for ``mem://`` and servers: nothing of this process's index outlives it there.
    """
    from adapters.surreal.memory_store import SurrealMemoryStore

    if not isinstance(store, SurrealMemoryStore) or not store.connection.on_disk:
        return None
    return Path(store.connection.data_dir.rstrip("/") + ".index")


def _api_key(settings: Settings) -> str:
    if not settings.embedder_api_key:
        raise SettingsError(
            f"TESSERA_EMBEDDER={settings.embedder} needs TESSERA_EMBEDDER_API_KEY "
            "(or OPENAI_API_KEY / GEMINI_API_KEY)"
        )
    return settings.embedder_api_key


def _embedder(settings: Settings) -> Embedder:
    kind = settings.embedder
    if kind is EmbedderKind.SENTENCE_TRANSFORMERS:
        from adapters.embedders.sentence_transformers import SentenceTransformersEmbedder

        return SentenceTransformersEmbedder()
    if kind is EmbedderKind.OPENAI:
        from adapters.embedders.openai_embedder import DEFAULT_DIMENSIONS as OPENAI_DIMS
        from adapters.embedders.openai_embedder import DEFAULT_MODEL as OPENAI_MODEL
        from adapters.embedders.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(
            api_key=_api_key(settings),
            model=settings.embedder_model or OPENAI_MODEL,
            dimensions=settings.embedder_dimensions or OPENAI_DIMS,
            base_url=settings.embedder_base_url,
        )
    if kind is EmbedderKind.GEMINI:
        from adapters.embedders.gemini_embedder import DEFAULT_DIMENSIONS as GEMINI_DIMS
        from adapters.embedders.gemini_embedder import DEFAULT_MODEL as GEMINI_MODEL
        from adapters.embedders.gemini_embedder import GeminiEmbedder

        return GeminiEmbedder(
            api_key=_api_key(settings),
            model=settings.embedder_model or GEMINI_MODEL,
            output_dimensionality=settings.embedder_dimensions or GEMINI_DIMS,
            base_url=settings.embedder_base_url,
        )
    from adapters.embedders.onnx_minilm import OnnxEmbedder

    return OnnxEmbedder(
        query_int8=settings.query_precision is QueryPrecision.INT8,
        graph_cache=settings.data_dir / "models",
    )


def _embedder_catalog(settings: Settings) -> EmbedderCatalog:
    """The embedders ``tessera reembed --embedder NAME`` may name: the TESSERA_EMBEDDER
    kinds (``onnx``, ``sentence-transformers``, ``openai``, ``gemini``), built with this
    install's other embedder settings (model, dimensions, key, base URL)."""
    import msgspec

    def build(name: str) -> Embedder:
        try:
            kind = EmbedderKind(name)
        except ValueError:
            raise KeyError(name) from None
        try:
            return _embedder(msgspec.structs.replace(settings, embedder=kind))
        except SettingsError as exc:
            raise ValueError(str(exc)) from None

    return build


def make_control_store(store: MemoryStore) -> ControlStore:
    from adapters.surreal.control_store import SurrealControlStore
    from adapters.surreal.memory_store import SurrealMemoryStore

    assert isinstance(store, SurrealMemoryStore)
    # one embedded engine per data directory: the control plane shares its connection
    return SurrealControlStore(store.connection)


def make_audit_log(store: MemoryStore) -> AuditLog:
    from adapters.surreal.audit_log import SurrealAuditLog
    from adapters.surreal.memory_store import SurrealMemoryStore

    assert isinstance(store, SurrealMemoryStore)
    return SurrealAuditLog(store.connection)


def make_synthesis_runs(store: MemoryStore) -> SynthesisRunStore:
    """Synthesis runs beside the memory they cite: SurrealDB when the store is, else in memory."""
    from adapters.surreal.memory_store import SurrealMemoryStore

    if isinstance(store, SurrealMemoryStore):
        from adapters.surreal.synthesis_runs import SurrealSynthesisRuns

        return SurrealSynthesisRuns(store.connection)
    from adapters.inmemory.synthesis_runs import InMemorySynthesisRuns

    return InMemorySynthesisRuns()


def make_derived_stores(store: MemoryStore) -> tuple[CandidateStore, GraphStore]:
    """Reflection candidates and the derived graph beside the memory they come from."""
    from adapters.surreal.memory_store import SurrealMemoryStore

    if isinstance(store, SurrealMemoryStore):
        from adapters.surreal.candidate_store import SurrealCandidateStore
        from adapters.surreal.graph_store import SurrealGraphStore

        return SurrealCandidateStore(store.connection), SurrealGraphStore(store.connection)
    from adapters.inmemory.candidate_store import InMemoryCandidateStore
    from adapters.inmemory.graph_store import InMemoryGraphStore

    return InMemoryCandidateStore(), InMemoryGraphStore()


def _tokens() -> TokenCounter:
    from adapters.tokenizers.tiktoken_counter import TiktokenCounter

    return TiktokenCounter()


def _clock() -> Clock:
    from adapters.system.clock import SystemClock

    return SystemClock()


def _ids() -> IdGenerator:
    from adapters.system.ids import TimeOrderedIds

    return TimeOrderedIds()


def _segmenter() -> SentenceSegmenter:
    from adapters.text.sentences import SentencexSegmenter

    return SentencexSegmenter()


def make_services(
    store: MemoryStore,
    index: RetrievalIndex,
    embedder: Embedder,
    control: ControlStore,
    audit_log: AuditLog,
    home_org_id: str,
    retrieval_mode: RetrievalMode = RetrievalMode.RANKED,
    llm: LanguageModel | None = None,
    imports: ImportSetup | None = None,
    reranker: Reranker | None = None,
    rerank_top_n: int = 20,
    conversation: ConversationRecall | None = None,
    embedders: EmbedderCatalog | None = None,
    reflect_on_write: bool = False,
    derived_stores: tuple[CandidateStore, GraphStore] | None = None,
    trusted_extractors: frozenset[str] = frozenset(),
) -> Services:
    """Every use case over the given ports, with the system clock, ids and token counter
    (``entrypoints.bootstrap.UseCases`` wires them).

    ``retrieval_mode`` lets a benchmark measure each retrieval stage; serving uses the default.
    ``embedders``: the models ``tessera reembed`` may switch to, by name.
    ``derived_stores`` lets several services over one in-memory store share the candidates
    and the graph (a benchmark reflects through one and searches through another);
    ``trusted_extractors`` turns on the documented auto-accept rule for those extractors.
    """
    candidates, graph = derived_stores or make_derived_stores(store)
    services = compose(
        store=store,
        index=index,
        embedder=embedder,
        tokens=_tokens(),
        control=control,
        audit_log=audit_log,
        clock=_clock(),
        ids=_ids(),
        home_org_id=home_org_id,
        synthesis_runs=make_synthesis_runs(store),
        retrieval_mode=retrieval_mode,
        reranker=reranker,
        rerank_top_n=rerank_top_n,
        conversation=conversation,
        llm=llm,
        imports=imports,
        candidates=candidates,
        graph=graph,
        segmenter=_segmenter(),
        embedders=embedders,
        trusted_extractors=trusted_extractors,
    )
    return _serving(services, reflect_on_write)


def _serving(services: Services, reflect_on_write: bool) -> Services:
    if reflect_on_write:
        services.reflect_on_write()
    return services


def make_service(
    store: MemoryStore,
    index: RetrievalIndex,
    embedder: Embedder,
    retrieval_mode: RetrievalMode = RetrievalMode.RANKED,
    reranker: Reranker | None = None,
    rerank_top_n: int = 20,
    conversation: ConversationRecall | None = None,
    derived_stores: tuple[CandidateStore, GraphStore] | None = None,
) -> MemoryService:
    """The memory use cases alone, auditing to memory (benchmarks and tools)."""
    from adapters.inmemory.audit_log import InMemoryAuditLog
    from adapters.inmemory.control_store import InMemoryControlStore

    return make_services(
        store,
        index,
        embedder,
        InMemoryControlStore(),
        InMemoryAuditLog(),
        "local",
        retrieval_mode,
        reranker=reranker,
        rerank_top_n=rerank_top_n,
        conversation=conversation,
        derived_stores=derived_stores,
    ).memory


def _llm(settings: Settings) -> LanguageModel | None:
    from entrypoints.llm_factory import make_llm

    return make_llm(settings)


def _reranker(settings: Settings, llm: LanguageModel | None) -> Reranker | None:
    from entrypoints.rerank_factory import make_reranker

    return make_reranker(settings, llm)


def _rerank_top_n(settings: Settings) -> int:
    return settings.rerank_top_n


def _conversation(settings: Settings) -> ConversationRecall:
    from entrypoints.settings import ConversationSwitch

    on = settings.conversation_recall is ConversationSwitch.ON
    return ConversationRecall() if on else ConversationRecall.off()


def _reflect_on_write(settings: Settings) -> bool:
    from entrypoints.settings import ConversationSwitch

    return settings.reflect_on_write is ConversationSwitch.ON


def _home_org(settings: Settings) -> str:
    return settings.org_id


def _imports(settings: Settings, store: MemoryStore, anywhere: bool) -> ImportSetup:
    """``anywhere``: the CLI in its own process also reads any path its user can."""
    from adapters.sources.registry import source_adapters
    from adapters.surreal.import_store import SurrealImportStore
    from adapters.surreal.memory_store import SurrealMemoryStore

    assert isinstance(store, SurrealMemoryStore)
    granted: dict[str, list[Path]] = {}
    for org_id, folder in settings.import_dirs:
        granted.setdefault(org_id, []).append(folder)
    return ImportSetup(
        store=SurrealImportStore(store.connection),
        adapters=source_adapters(),
        root=settings.imports_dir,
        max_upload_bytes=settings.import_max_upload_bytes,
        anywhere=anywhere,
        granted=granted,
        path_principals=frozenset(settings.import_path_principals),
        keep_uploads=timedelta(hours=settings.import_keep_uploads_hours),
    )


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)
    store = providers.Singleton(_store, settings)
    index = providers.Singleton(_index, settings, store)
    embedder = providers.Singleton(_embedder, settings)
    #: what ``tessera reembed`` may switch to (tests override it with offline fakes)
    embedders = providers.Callable(_embedder_catalog, settings)
    control = providers.Singleton(make_control_store, store)
    audit_log = providers.Singleton(make_audit_log, store)
    home_org = providers.Callable(_home_org, settings)
    imports_anywhere = providers.Object(False)
    imports = providers.Singleton(_imports, settings, store, imports_anywhere)
    llm = providers.Singleton(_llm, settings)
    reranker = providers.Singleton(_reranker, settings, llm)
    derived_stores = providers.Singleton(make_derived_stores, store)
    #: every use case, wired once over the ports above (``entrypoints.bootstrap``)
    use_cases = providers.Container(
        UseCases,
        store=store,
        index=index,
        embedder=embedder,
        tokens=providers.Singleton(_tokens),
        control=control,
        audit_log=audit_log,
        clock=providers.Singleton(_clock),
        ids=providers.Singleton(_ids),
        home_org_id=home_org,
        synthesis_runs=providers.Singleton(make_synthesis_runs, store),
        llm=llm,
        imports=imports,
        reranker=reranker,
        rerank_top_n=providers.Callable(_rerank_top_n, settings),
        conversation=providers.Callable(_conversation, settings),
        embedders=embedders,
        candidates=derived_stores.provided[0],
        graph=derived_stores.provided[1],
        segmenter=providers.Singleton(_segmenter),
    )
    services = providers.Singleton(
        _serving, use_cases.services, providers.Callable(_reflect_on_write, settings)
    )


def build_container(settings: Settings) -> Container:
    return Container(settings=settings)
