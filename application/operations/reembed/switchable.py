"""The process's embedder, which a finished re-embed can replace while requests run.

Why a wrapper: every use case holds the one embedder the composition root
built (search, remember, the embedding lane, synthesis). Swapping what they
hold would mean rebuilding them all; instead they hold this object and read
``space`` on each use, so after a switch the next query, write and lane batch
use the new model. Embeds already in flight finish with the old model; the
store refuses to attach their vectors (``attach_vectors`` checks the model),
and the lane embeds them again.
"""

from collections.abc import Sequence

from application.enrichment.embedding import embed_queries, preload
from application.ports import Embedder
from application.ports.records import EmbeddingSpace, Vector

__all__ = ["SwitchableEmbedder", "switchable"]


class SwitchableEmbedder:
    def __init__(self, embedder: Embedder) -> None:
        self._current = embedder

    @property
    def current(self) -> Embedder:
        return self._current

    @property
    def space(self) -> EmbeddingSpace:
        return self._current.space

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        return await self._current.embed(texts)

    async def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        """The current embedder's query run where it has one, else ``embed``."""
        return await embed_queries(self._current, texts)

    async def preload(self) -> None:
        await preload(self._current)

    def switch_to(self, embedder: Embedder) -> None:
        """From now on, embed with ``embedder`` (no await: atomic for the event loop)."""
        self._current = embedder.current if isinstance(embedder, SwitchableEmbedder) else embedder


def switchable(embedder: Embedder) -> SwitchableEmbedder:
    """``embedder`` itself if it already switches, else wrapped."""
    return embedder if isinstance(embedder, SwitchableEmbedder) else SwitchableEmbedder(embedder)
