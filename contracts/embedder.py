"""The behaviour every ``Embedder`` adapter owes the use cases, as a reusable pytest suite.

The store and the retrieval index trust embedders blindly: they compare vectors
by dot product (so they must be unit length), pair them with texts by position
(so order matters) and cache them by text hash (so the same text must give the
same vector, alone or in a batch). This suite pins those promises down once,
for every adapter.

Usage: subclass it in a test module and provide a fixture named ``embedder``::

    class TestMyEmbedder(EmbedderContract):
        @pytest.fixture
        def embedder(self) -> Embedder:
            return MyEmbedder()

An adapter with a cheaper run for search queries (``QueryEmbedder``) must
keep its query vectors in the document vectors' space: same dimension, unit
length, within ``QUERY_COSINE`` of ``embed``'s vector for the same text.

Adapters backed by a fake (e.g. a local server that hashes texts into random
vectors) cannot show meaning; they set ``checks_semantics = False``.
"""

import math
from collections.abc import Sequence
from typing import ClassVar

from application.ports import Embedder, QueryEmbedder

__all__ = ["EmbedderContract", "cosine"]

#: how far from 1.0 a vector's length may be
UNIT_TOLERANCE = 1e-3
#: how close two vectors of the same text must be (batching may reorder float sums)
SAME_TEXT_COSINE = 0.999
#: how close a query run's vector must be to the document run's for the same text
QUERY_COSINE = 0.999

CAT = "The cat sat on the mat."
CAT_PARAPHRASE = "A cat was sitting on a mat."
UNRELATED = "Quarterly tax filing deadlines for corporations."
TEXTS = (CAT, CAT_PARAPHRASE, UNRELATED)
UNICODE_TEXTS = (
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "東京は日本の首都です。",
    "Привет, как дела? 🎉🚀",
    "naïve café résumé — “quotes” ‘and’ ellipsis…",
    "\u200bzero\u200dwidth and \ttabs\nnewlines",
)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors of equal length."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _norm(vector: Sequence[float]) -> float:
    return math.sqrt(sum(x * x for x in vector))


class EmbedderContract:
    """Subclass (as ``Test...``) and provide an ``embedder`` fixture."""

    #: False for adapters whose vectors carry no meaning (hash-backed fakes)
    checks_semantics: ClassVar[bool] = True

    def test_is_an_embedder(self, embedder: Embedder) -> None:
        assert isinstance(embedder, Embedder)

    def test_space_names_a_model(self, embedder: Embedder) -> None:
        space = embedder.space
        assert space.model.strip()
        assert space.dimension >= 1
        assert embedder.space == space, "the space must not change between calls"

    async def test_empty_input_gives_empty_output(self, embedder: Embedder) -> None:
        assert await embedder.embed([]) == []

    async def test_one_vector_per_text(self, embedder: Embedder) -> None:
        vectors = await embedder.embed(list(TEXTS))
        assert isinstance(vectors, list)
        assert len(vectors) == len(TEXTS)
        for vector in vectors:
            assert isinstance(vector, list)
            assert all(isinstance(x, float) for x in vector)

    async def test_vectors_follow_input_order(self, embedder: Embedder) -> None:
        forward = await embedder.embed(list(TEXTS))
        backward = await embedder.embed(list(reversed(TEXTS)))
        for a, b in zip(forward, reversed(backward), strict=True):
            assert cosine(a, b) >= SAME_TEXT_COSINE

    async def test_accepts_any_sequence(self, embedder: Embedder) -> None:
        assert len(await embedder.embed(TEXTS)) == len(TEXTS)

    async def test_dimension_matches_space(self, embedder: Embedder) -> None:
        vectors = await embedder.embed(list(TEXTS))
        assert {len(v) for v in vectors} == {embedder.space.dimension}

    async def test_vectors_are_unit_length(self, embedder: Embedder) -> None:
        for vector in await embedder.embed([*TEXTS, *UNICODE_TEXTS]):
            assert abs(_norm(vector) - 1.0) <= UNIT_TOLERANCE

    async def test_same_text_same_vector(self, embedder: Embedder) -> None:
        first = await embedder.embed([CAT])
        second = await embedder.embed([CAT])
        assert cosine(first[0], second[0]) >= SAME_TEXT_COSINE

    async def test_duplicates_in_one_batch_agree(self, embedder: Embedder) -> None:
        a, b = await embedder.embed([CAT, CAT])
        assert cosine(a, b) >= SAME_TEXT_COSINE

    async def test_batch_equals_one_by_one(self, embedder: Embedder) -> None:
        texts = [*TEXTS, *UNICODE_TEXTS]
        batch = await embedder.embed(texts)
        for text, vector in zip(texts, batch, strict=True):
            (alone,) = await embedder.embed([text])
            assert cosine(vector, alone) >= SAME_TEXT_COSINE

    async def test_distinct_texts_give_distinct_vectors(self, embedder: Embedder) -> None:
        cat, _, tax = await embedder.embed(list(TEXTS))
        assert cosine(cat, tax) < SAME_TEXT_COSINE

    async def test_similar_texts_are_closer_than_unrelated(self, embedder: Embedder) -> None:
        if not self.checks_semantics:
            import pytest  # here, not at the top: importing the suite needs no pytest

            pytest.skip("this embedder's vectors carry no meaning (checks_semantics = False)")
        cat, paraphrase, tax = await embedder.embed(list(TEXTS))
        assert cosine(cat, paraphrase) > cosine(cat, tax)
        assert cosine(cat, paraphrase) > cosine(paraphrase, tax)

    async def test_handles_unicode(self, embedder: Embedder) -> None:
        vectors = await embedder.embed(list(UNICODE_TEXTS))
        assert len(vectors) == len(UNICODE_TEXTS)
        assert {len(v) for v in vectors} == {embedder.space.dimension}

    async def test_handles_long_text(self, embedder: Embedder) -> None:
        long_text = ("Tessera remembers raw sources and recalls cited context. " * 100)[:5000]
        assert len(long_text) == 5000
        (vector,) = await embedder.embed([long_text])
        assert len(vector) == embedder.space.dimension
        assert abs(_norm(vector) - 1.0) <= UNIT_TOLERANCE

    async def test_query_vectors_are_close_to_document_vectors(self, embedder: Embedder) -> None:
        if not isinstance(embedder, QueryEmbedder):
            import pytest

            pytest.skip("no query run: queries are embedded like documents")
        texts = [*TEXTS, *UNICODE_TEXTS]
        queries = await embedder.embed_queries(texts)
        documents = await embedder.embed(texts)
        assert len(queries) == len(texts)
        assert await embedder.embed_queries([]) == []
        for query, document in zip(queries, documents, strict=True):
            assert len(query) == embedder.space.dimension
            assert abs(_norm(query) - 1.0) <= UNIT_TOLERANCE
            assert cosine(query, document) >= QUERY_COSINE
