"""What derived records' vectors are made from, and what carries them to the graph;
what search asks of derived memory (``DerivedLists``) and the records it gets back.

An entity is embedded from ``type: name`` (what entity full-text indexes, so
the two signals see the same words), a ``relates_to`` edge from its fact.
Each vector is stored with the model that made it: a search only compares a
query vector with vectors of the same model, so a record not (re)embedded
yet by the organisation's embedder is simply absent from the vector signal.
"""

from collections.abc import Awaitable
from enum import StrEnum
from typing import Protocol

import msgspec

from application.ports.records import Vector
from domain.policy import MemoryPolicyContext
from domain.query_words import QueryWords
from domain.reflection.candidates import CandidateType

__all__ = [
    "DerivedHit",
    "DerivedKind",
    "DerivedLists",
    "DerivedText",
    "DerivedVector",
    "QueryMeaning",
    "entity_text",
]


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


class DerivedHit(msgspec.Struct, frozen=True, kw_only=True):
    """A promoted record that matched: what it states, where from, what supports it."""

    entity_id: str
    type: CandidateType
    name: str
    source_ids: list[str]
    chunk_ids: list[str]
    confidence: float
    transform: str
    rank: int
    superseded_by: str | None = None
    supersedes: list[str] = msgspec.field(default_factory=list)
    #: it (or a record it replaces) matched the query by meaning, not (only) by words
    by_meaning: bool = False
    #: it (or a record it replaces) matched the query's words (its name, type or aliases)
    by_words: bool = False


class DerivedLists(Protocol):
    """Derived memory as search reads it (``application.reflection.derived.DerivedRecall``)."""

    async def lists(
        self,
        org_id: str,
        query: str | QueryWords,
        policy: MemoryPolicyContext,
        meaning: Awaitable[QueryMeaning | None] | None = None,
    ) -> tuple[list[DerivedHit], dict[str, list[str]]]:
        """The records that matched, and the chunk lists they lead to, by list name
        (``query`` as asked, or already read into its words)."""
        ...
