"""mem0's side of ``benchmarks.vs_mem0``: its OSS ``Memory`` over qdrant, offline.

mem0 stores each message as one memory when ``infer=False`` (no LLM call), so
each LongMemEval turn is added as it is, in the chunks Tessera's ``remember``
makes of it, with its session and turn index as metadata, under one user id
per question. Its embedder is replaced by ``CacheVectors``: the same document
vectors Tessera's ``CachedEmbedder`` serves (from the same disk cache) and
queries through the same model's own query run, live, as Tessera's searches.
Without spaCy and fastembed (neither is a dependency of mem0 or of Tessera)
mem0's search is dense only: no BM25 slot, no entity boosts.

mem0 requires an LLM configuration even with ``infer=False``: the dummy
OpenAI one here is never called, and ``no_network`` makes any attempt fail.
"""

import os
import socket
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from adapters.embedders.onnx_minilm import OnnxEmbedder
from benchmarks._embed_cache import DiskEmbeddingCache
from benchmarks._footprint import dir_bytes
from benchmarks._lme_metrics import question_metrics, rank_by_first_appearance
from benchmarks._lme_run import gold_turns_of, haystack
from domain.chunking import split_into_chunks
from domain.hashing import content_hash

__all__ = ["CacheVectors", "Mem0Arm", "mem0_versions", "no_network", "require_mem0"]

#: one qdrant collection holds every question; each question is one user id
COLLECTION = "longmemeval"

MISSING = (
    "benchmarks.vs_mem0 needs mem0 and qdrant-client, which are not installed: "
    "pip install -e '.[bench]'"
)


def require_mem0() -> None:
    """Fail with the install command, before anything is built, when mem0 is absent."""
    try:
        metadata.version("mem0ai")
        metadata.version("qdrant-client")
    except metadata.PackageNotFoundError:
        raise SystemExit(MISSING) from None


def mem0_versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in ("mem0ai", "qdrant-client")}


@contextmanager
def no_network() -> Iterator[None]:
    """Any TCP/UDP connect in the block raises: the comparison must be offline."""
    original = socket.socket.connect

    def refuse(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError(f"network access attempted: {address!r}")
        original(self, address)

    socket.socket.connect = refuse  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        socket.socket.connect = original  # type: ignore[method-assign]


class CacheVectors:
    """mem0's embedder interface (``embed(text, memory_action)``) over Tessera's vectors:
    documents from the disk cache (a miss is embedded and cached, as ``CachedEmbedder``
    does), queries through the model's query run, never cached."""

    def __init__(self, model: OnnxEmbedder, cache: DiskEmbeddingCache) -> None:
        self._model = model
        self._cache = cache
        self.misses = 0

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        if memory_action == "search":
            return list(self._model.embed_queries_sync([text])[0])
        key = content_hash(text)
        vector = self._cache.get(key)
        if vector is None:
            self.misses += 1
            fresh = self._model.embed_sync([text])[0]
            self._cache.put_many([(key, fresh)])
            return list(fresh)
        return [float(x) for x in vector]

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return [self.embed(t, memory_action) for t in texts]


def _config(storage: str, directory: Path) -> dict[str, Any]:
    from qdrant_client import QdrantClient

    store: dict[str, Any] = {"collection_name": COLLECTION, "embedding_model_dims": 384}
    if storage == "memory":
        store["client"] = QdrantClient(location=":memory:")
    else:
        store |= {"path": str(directory / "qdrant"), "on_disk": True}
    (directory / "history").mkdir(exist_ok=True)
    history = str(directory / "history" / "history.db")
    offline = {"api_key": "offline-never-called"}
    return {
        "vector_store": {"provider": "qdrant", "config": store},
        # replaced by CacheVectors before any use; constructing it opens no connection
        "embedder": {"provider": "openai", "config": {**offline, "embedding_dims": 384}},
        "llm": {"provider": "openai", "config": {**offline, "model": "gpt-4o-mini"}},
        "history_db_path": ":memory:" if storage == "memory" else history,
    }


class Mem0Arm:
    """One mem0 ``Memory``; ``run`` adds a question's haystack, searches, scores, forgets."""

    def __init__(self, storage: str, vectors: CacheVectors, limit: int, fresh: bool) -> None:
        # telemetry and its first-run notices off, and mem0's home out of ~, before import
        self._home = tempfile.TemporaryDirectory(prefix="vs-mem0-")
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ.setdefault("MEM0_DIR", str(Path(self._home.name) / "home"))
        from mem0 import Memory

        self.directory = Path(self._home.name)
        self.memory = Memory.from_config(_config(storage, self.directory))
        self.memory.embedding_model = vectors
        self.limit = limit
        #: an empty collection per question: qdrant's local mode keeps deleted points as
        #: tombstones its searches still scan, so a shared one slows with every question
        self.fresh = fresh
        self._used = False

    def warm_up(self) -> None:
        user = f"warmup-{uuid.uuid4().hex[:8]}"
        self.memory.add([{"role": "user", "content": "warm up"}], user_id=user, infer=False)
        self.memory.search("warming up the model", top_k=self.limit, filters={"user_id": user})
        self.memory.delete_all(user_id=user)
        self._used = True

    def run(self, item: dict[str, Any]) -> dict[str, Any]:
        user = f"lme-{item['question_id']}-{uuid.uuid4().hex[:8]}"
        if self.fresh and self._used:
            self.memory.vector_store.reset()  # untimed, as Tessera's drop of the last one
        self._used = True
        started = time.perf_counter()
        for session_id, _, turns in haystack(item):
            for index, turn in enumerate(turns):
                chunks = split_into_chunks(str(turn["content"]))
                self.memory.add(
                    [{"role": turn["role"], "content": c.text} for c in chunks],
                    user_id=user,
                    metadata={"session_id": session_id, "turn_index": index},
                    infer=False,
                )
        ingest_s = time.perf_counter() - started
        try:
            t0 = time.perf_counter()
            found = self.memory.search(
                item["question"], top_k=self.limit, filters={"user_id": user}
            )
            search_ms = (time.perf_counter() - t0) * 1000
        finally:
            self.memory.delete_all(user_id=user)
        sessions, turns_ranked = rank_by_first_appearance(
            (str(r["metadata"]["session_id"]), int(r["metadata"]["turn_index"]))
            for r in found["results"]
        )
        return {
            "ingest_s": round(ingest_s, 3),
            "search_ms": round(search_ms, 3),
            "sessions": sessions[:20],
            "metrics": question_metrics(
                sessions,
                item["answer_session_ids"],
                item["haystack_session_ids"],
                turns_ranked,
                gold_turns_of(item),
            ),
        }

    def disk_bytes(self) -> dict[str, int]:
        """What the qdrant collection and mem0's history database (SQLite: every add and
        delete is a row, and deleting a user's memories adds rows) occupy."""
        qdrant = dir_bytes(self.directory / "qdrant")
        history = dir_bytes(self.directory / "history")
        return {"qdrant": qdrant, "history": history, "total": qdrant + history}

    def close(self) -> None:
        self.memory.close()
        self._home.cleanup()
