"""The default reranker: keeps the ranker's order and says nothing.

It exists so the port always has an adapter and so the contract suite has a
reference; the pipeline does not even call a reranker unless one is
configured, so the offline default is byte-identical with or without it.
"""

from collections.abc import Sequence

from application.ports.rerank import RerankCandidate, RerankScore, input_order_scores

__all__ = ["NoRerank"]


class NoRerank:
    @property
    def name(self) -> str:
        return "none"

    async def rerank(self, query: str, candidates: Sequence[RerankCandidate]) -> list[RerankScore]:
        return input_order_scores(candidates)
