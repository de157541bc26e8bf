"""Preconditions every MemoryStore enforces on its writes, whatever its technology.

Kept here, beside the ports, so each adapter refuses the same inputs with the
same reasons, and the store contract can hold them all to it.
"""

from collections.abc import Mapping, Sequence

from application.ports.records import EmbeddingSpace, Vector
from domain.errors import ConflictError, InvalidInputError
from domain.models import Chunk, Source
from domain.reasons import ReasonCode

__all__ = ["check_memory", "check_model", "embedder_mismatch"]


def check_memory(
    source: Source, chunks: Sequence[Chunk], dimension: int, vectors: Mapping[str, Vector]
) -> None:
    """Refuse a memory whose chunks do not belong to it or whose vectors are of another space.

    ``vectors``: the vectors known at write time, by chunk id (the others are pending).
    """
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.source_id != source.source_id or chunk.org_id != source.org_id:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST,
                f"chunk {chunk.chunk_id} does not belong to source {source.source_id}",
            )
        if chunk.chunk_id in seen:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, f"chunk id {chunk.chunk_id} appears twice"
            )
        seen.add(chunk.chunk_id)
        vector = vectors.get(chunk.chunk_id)
        if vector is not None and len(vector) != dimension:
            raise ConflictError(
                ReasonCode.EMBEDDER_MISMATCH,
                f"chunk {chunk.chunk_id} has a {len(vector)}-dimensional vector; "
                f"organisation {source.org_id} stores {dimension} dimensions",
            )


def check_model(org_id: str, model: str | None, space: EmbeddingSpace) -> None:
    """Refuse vectors of a model the organisation no longer serves (``None``: not known)."""
    if model is not None and model != space.model:
        raise ConflictError(
            ReasonCode.EMBEDDER_MISMATCH,
            f"vectors of {model}; organisation {org_id} stores {space.model}",
        )


def embedder_mismatch(org_id: str, held: EmbeddingSpace, wanted: EmbeddingSpace) -> ConflictError:
    """The refusal to mix two models' vectors in one organisation, saying how to fix it."""
    return ConflictError(
        ReasonCode.EMBEDDER_MISMATCH,
        f"organisation {org_id} holds vectors of {held.model} ({held.dimension} dimensions) "
        f"but the configured embedder is {wanted.model} ({wanted.dimension} dimensions); "
        "configure the embedder that wrote this data (TESSERA_EMBEDDER), "
        "then move it to the new one with `tessera reembed --embedder NAME`",
    )
