"""What derived records' vectors are made from, and what carries them to the graph.

An entity is embedded from ``type: name`` (what entity full-text indexes, so
the two signals see the same words), a ``relates_to`` edge from its fact.
Each vector is stored with the model that made it: a search only compares a
query vector with vectors of the same model, so a record not (re)embedded
yet by the organisation's embedder is simply absent from the vector signal.
"""

from enum import StrEnum

import msgspec

from application.ports.records import Vector

__all__ = ["DerivedKind", "DerivedText", "DerivedVector", "QueryMeaning", "entity_text"]


class DerivedKind(StrEnum):
    ENTITY = "entity"
    EDGE = "relates_to"


def entity_text(kind: str, name: str) -> str:
    """The text an entity is matched by, in words and in meaning: its type and its name."""
    return f"{kind}: {name}"


class DerivedText(msgspec.Struct, frozen=True, kw_only=True):
    """A derived record without a vector of the current model, and the text to embed."""

    kind: DerivedKind
    record_id: str
    text: str


class DerivedVector(msgspec.Struct, frozen=True, kw_only=True):
    kind: DerivedKind
    record_id: str
    vector: Vector

    def __post_init__(self) -> None:
        if not self.vector:
            raise ValueError("a vector has at least one dimension")


class QueryMeaning(msgspec.Struct, frozen=True, kw_only=True):
    """The query's vector as the retrieval pipeline embedded it, and the model's name."""

    vector: Vector
    model: str
