"""A cross-encoder reranker from a local model directory (the optional ``st`` extra).

A cross-encoder reads the question and a candidate together and scores the
pair, which catches meaning the separate embeddings miss. No package here
ships cross-encoder weights, so the model is always a directory the user
points at (``TESSERA_RERANK_MODEL_DIR``): anything
``sentence_transformers.CrossEncoder`` loads, such as a saved
``cross-encoder/ms-marco-MiniLM-L6-v2``. It is loaded by path with
``local_files_only=True``, so nothing is downloaded; torch and
sentence-transformers are imported on first use only.

Fails soft: a model that cannot load or score keeps the ranker's order and
logs ``rerank_failed`` with the exception's type (never its text, which may
quote memory).
"""

import asyncio
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from application.ports.rerank import RerankCandidate, RerankScore, input_order_scores
from domain.reasons import ReasonCode

__all__ = ["CrossEncoderReranker"]

_log = logging.getLogger("tessera.rerank")


class CrossEncoderReranker:
    """Loads lazily on first use, so constructing one is free."""

    def __init__(self, model_dir: Path, *, device: str = "cpu", batch_size: int = 16) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self._model_dir = model_dir
        self._device = device
        self._batch_size = batch_size
        self._model: Any = None
        # HF tokenizers are not safe to share across threads
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "cross-encoder"

    def _load(self) -> Any:
        if self._model is None:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(
                str(self._model_dir), device=self._device, local_files_only=True
            )
        return self._model

    def _predict(self, query: str, texts: list[str]) -> list[float]:
        with self._lock:
            model = self._load()
            raw = model.predict(
                [(query, t) for t in texts],
                batch_size=self._batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        return [float(v) for v in raw.reshape(len(texts), -1)[:, -1]]

    async def rerank(self, query: str, candidates: Sequence[RerankCandidate]) -> list[RerankScore]:
        if len(candidates) < 2:
            return input_order_scores(candidates)
        try:
            # torch releases the GIL; a worker thread keeps the event loop free
            scores = await asyncio.to_thread(self._predict, query, [c.text for c in candidates])
            return [
                RerankScore(item_id=c.item_id, score=s, reasons=[f"cross-encoder {s:.3f}"])
                for c, s in zip(candidates, scores, strict=True)
            ]
        except Exception as exc:
            _log.warning(
                "%s: cross-encoder at %s failed with %s; kept the ranker's order",
                ReasonCode.RERANK_FAILED,
                self._model_dir.name,
                type(exc).__name__,
            )
            return input_order_scores(candidates)
