"""An embedder that knows synonyms: texts can be close in meaning and share no word.

The hashing embedder is a bag of words, so whatever it finds by meaning,
full-text finds too. This fake maps each word of a small synonym table to
its concept before hashing, so "datastore" and "SurrealDB" land together
while BM25 sees two different words: the case a vector signal exists for.
"""

from collections.abc import Mapping, Sequence

from adapters.inmemory.hashing_embedder import HashingEmbedder
from application.ports.records import EmbeddingSpace, Vector

__all__ = ["ConceptEmbedder"]

CONCEPTS: Mapping[str, str] = {
    "datastore": "database",
    "database": "database",
    "surrealdb": "database",
    "postgres": "database",
    "picked": "choose",
    "pick": "choose",
    "chose": "choose",
    "decided": "choose",
    "manual": "document",
    "guide": "document",
    "handbook": "document",
    "authoring": "write",
    "write": "write",
    "drafting": "write",
}


class ConceptEmbedder:
    def __init__(self, dimension: int = 64, fail: bool = False) -> None:
        self._words = HashingEmbedder(dimension=dimension, model="concepts")
        self.calls = 0
        #: True: every call fails (a model that is down)
        self.fail = fail

    @property
    def space(self) -> EmbeddingSpace:
        return self._words.space

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        if self.fail:
            raise RuntimeError("the model is down")
        mapped = [
            " ".join(CONCEPTS.get(w.strip(".,?!:").lower(), w) for w in t.split()) for t in texts
        ]
        return await self._words.embed(mapped)
