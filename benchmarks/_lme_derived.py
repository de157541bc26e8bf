"""The derived-memory arm of the LongMemEval benchmark: reflect, accept, promote, then search.

With ``--derived on`` each question's haystack, once remembered, is
reflected on with the deterministic (rules) extractor, as the question's
owner, 200 sources per call (the most one call takes). Which candidates
become native records:

- ``auto`` (the default): the documented auto-accept rule
  (``domain.reflection.candidates.auto_accept_problem``) with ``rules`` as
  the trusted extractor, applied by ``reflect`` itself through the same
  policy check as a person's accept; the rest stays pending, as it would
  wait for a reviewer;
- ``all``: every candidate ``reflect`` left pending is then accepted one by
  one through the review use case, as a reviewer accepting everything would
  (an upper bound of what the rules can add, not a recommended setting).

The searchers share the candidate and graph stores with the reflecting
service, so their ranked mode sees the promoted records through its
derived signals (entity full text, relationship facts, graph expansion).
Per question it records the reflect and promote time, the candidates and
records by type; the org's candidates and graph are dropped with it.
"""

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from application.memory.service import MemoryService
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.reflection import CandidateStore, GraphStore
from application.reflection.commands import MAX_REFLECT_SOURCES, ReflectRequest, ReviewRequest
from application.retrieval.pipeline import RetrievalMode
from application.services import Services
from benchmarks._lme_run import owner_context
from benchmarks._stats import summarize
from domain.errors import ConflictError, PolicyDeniedError
from domain.reflection.candidates import ReviewAction, ReviewState

__all__ = [
    "ACCEPT_MODES",
    "DERIVED_SWITCH",
    "RAW_SUFFIX",
    "TRUSTED",
    "AcceptMode",
    "DerivedPhase",
    "derived_ingest",
    "summarize_derived",
]

#: ``paired``: ``on``, and each mode also searched without derived records, as
#: ``<mode>-raw``, over the same haystack, interleaved under the same machine load
DERIVED_SWITCH = ("off", "on", "paired")
RAW_SUFFIX = "-raw"
AcceptMode = Literal["auto", "all"]
ACCEPT_MODES: tuple[AcceptMode, ...] = ("auto", "all")
#: the extractor the auto-accept rule trusts in this benchmark
TRUSTED = frozenset({"rules"})


class DerivedPhase:
    """Reflection and promotion for one question's organisation, through ``services``."""

    def __init__(
        self,
        services: Services,
        stores: tuple[CandidateStore, GraphStore],
        accept: AcceptMode = "auto",
    ) -> None:
        if accept not in ACCEPT_MODES:
            raise ValueError(f"accept must be one of {ACCEPT_MODES}, not {accept!r}")
        if services.reflection is None or services.review is None:
            raise ValueError("the services were built without reflection's stores")
        self._reflection = services.reflection
        self._review = services.review
        self.stores = stores
        self._candidates, self._graph = stores
        self.accept = accept

    async def run(self, org: str, source_ids: list[str]) -> dict[str, Any]:
        """Reflect on every source, accept by the chosen rule; the figures of this question."""
        started = time.perf_counter()
        made: Counter[str] = Counter()
        accepted: Counter[str] = Counter()
        records = 0
        pending: list[str] = []
        for start in range(0, len(source_ids), MAX_REFLECT_SOURCES):
            request = ReflectRequest(
                org_id=org, source_ids=source_ids[start : start + MAX_REFLECT_SOURCES]
            )
            result = await self._reflection.reflect(request, owner_context(org))
            for c in result.candidates:
                made[str(c.type)] += 1
                if c.state is ReviewState.ACCEPTED:
                    accepted[str(c.type)] += 1
                    records += len(c.promoted_ids)
                elif c.state is ReviewState.PENDING:
                    pending.append(c.id)
        reflect_ms = (time.perf_counter() - started) * 1000
        refused: Counter[str] = Counter()
        if self.accept == "all":
            for candidate_id in pending:
                review = ReviewRequest(
                    org_id=org, candidate_id=candidate_id, action=ReviewAction.ACCEPT
                )
                try:
                    done = await self._review.review(review, owner_context(org))
                except (ConflictError, PolicyDeniedError) as refusal:
                    refused[str(refusal.reason)] += 1
                    continue
                accepted[str(done.candidate.type)] += 1
                records += len(done.promoted)
        return {
            "accept": self.accept,
            "sources": len(source_ids),
            "reflect_ms": round(reflect_ms, 2),
            "derive_ms": round((time.perf_counter() - started) * 1000, 2),
            "candidates": sum(made.values()),
            "accepted": sum(accepted.values()),
            "records": records,
            "candidates_by_type": dict(sorted(made.items())),
            "accepted_by_type": dict(sorted(accepted.items())),
            "refused": dict(refused),
        }

    async def forget(self, org: str) -> None:
        """Drop the question's candidates and graph with its organisation."""
        await self._candidates.drop_candidates(org)
        await self._graph.drop_graph(org)


def summarize_derived(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-question reflect+promote time and derived records, over the questions run."""
    rows = [r["derived"] for r in records if "derived" in r]
    if not rows:
        return {"questions": 0}
    made: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    for row in rows:
        made.update(row["candidates_by_type"])
        accepted.update(row["accepted_by_type"])
    counts = sorted(row["records"] for row in rows)
    return {
        "questions": len(rows),
        "accept": rows[0]["accept"],
        # reflect + promote per question (``reflect`` alone: with auto-accept's promotions)
        "derive_ms": summarize([row["derive_ms"] for row in rows]),
        "reflect_ms": summarize([row["reflect_ms"] for row in rows]),
        "sources_per_s": round(
            1000 * sum(row["sources"] for row in rows) / max(sum(r["reflect_ms"] for r in rows), 1),
            1,
        ),
        "records_per_question": {
            "mean": round(sum(counts) / len(counts), 1),
            "median": counts[len(counts) // 2],
            "min": counts[0],
            "max": counts[-1],
        },
        "candidates_per_question": round(sum(made.values()) / len(rows), 1),
        "accepted_per_question": round(sum(accepted.values()) / len(rows), 1),
        "candidates_by_type": dict(sorted(made.items())),
        "accepted_by_type": dict(sorted(accepted.items())),
    }


def derived_ingest(
    store: MemoryStore, index: RetrievalIndex, embedder: Embedder, accept: AcceptMode
) -> tuple[MemoryService, DerivedPhase]:
    """The ingesting service, with reflection over stores the searchers will share
    (``phase.stores``): the composition root's own factories, as ``tessera serve``."""
    from adapters.inmemory.audit_log import InMemoryAuditLog
    from adapters.inmemory.control_store import InMemoryControlStore
    from benchmarks.conversations._options import parse_conversation
    from entrypoints.container import make_derived_stores, make_services

    stores = make_derived_stores(store)
    services = make_services(
        store,
        index,
        embedder,
        InMemoryControlStore(),
        InMemoryAuditLog(),
        "local",
        RetrievalMode.RANKED,
        conversation=parse_conversation("on"),
        derived_stores=stores,
        trusted_extractors=TRUSTED,
    )
    return services.memory, DerivedPhase(services, stores, accept)
