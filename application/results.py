"""What the use cases return; surfaces encode these as they are."""

from datetime import datetime

import msgspec

from domain.scopes import MemoryScope

__all__ = ["ContextItem", "ContextPack", "RememberResult", "SearchHit", "SearchResults", "Signals"]


class RememberResult(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    chunk_ids: list[str]
    #: chunks whose vectors came from the embedding cache rather than the model
    cached_embeddings: int = 0


class Signals(msgspec.Struct, frozen=True, kw_only=True):
    lexical_rank: int | None = None
    vector_rank: int | None = None


class SearchHit(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    chunk_id: str
    text: str
    score: float
    signals: Signals
    scope: MemoryScope
    scope_key: str | None = None
    occurred_at: datetime | None = None
    created_at: datetime


class SearchResults(msgspec.Struct, frozen=True, kw_only=True):
    results: list[SearchHit]


class ContextItem(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    chunk_id: str
    text: str
    reason: str
    score: float
    signals: Signals
    token_count: int
    scope: MemoryScope
    scope_key: str | None = None
    occurred_at: datetime | None = None
    created_at: datetime


class ContextPack(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    token_budget: int
    token_count: int
    encoding: str
    items: list[ContextItem]
    #: relevant items left out because they did not fit the budget
    omitted: int = 0
