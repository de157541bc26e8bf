"""Reflection benchmark: deterministic-extractor throughput, and what promoted records cost search.

    python -m benchmarks.reflection --sources 1000

N made-up conversations (six turns each: a decision, a task, a preference,
an event and small talk, over a fixed vocabulary) are remembered through
``remember`` on embedded SurrealDB (surrealkv by default) with the
in-process index and the hashing embedder (no model), as ``tessera serve``
runs them. Then:

- the rules extractor alone over every source's content (sources/s);
- ``reflect`` through the real use case, 200 source ids per call (the
  most one call takes): reading, policy checks, extraction and storing the
  candidates (sources/s, candidates/s);
- ``accept`` of one decision per conversation for a tenth of them, and of
  as many speaker relationships (so expansion has edges), p50/p95;
- search latency with and without the derived signals (``entity``, graph
  expansion ``graph``, relationship facts ``relation``, and the records and
  facts by meaning, ``entity_vector``) over the same promoted records (their
  vectors made first), interleaved query by query (the first pass of each is
  a warm-up and not counted), so each signal's cost shows (p50/p95);
- the same with every derived signal but the entity and relationship full text
  answered by the engine's own index (``engine_lexical``) instead of in process
  (``adapters/surreal/lexical_cache.py``), and whether the two rank alike: for
  every query, the entity and relationship-fact lists (depth 20, as a search
  asks them) compared id by id and order by order, and what a cold load of the
  in-process postings costs against one engine search (CPU ms);
- the same with the derived graph read from the engine in one query per
  search (``graph_read``: ``SurrealGraphMatched.graph_in_process = False``)
  instead of held in process (``adapters/surreal/graph_image.py``), and whether
  every answer is the same, byte for byte (``held_graph_agreement``);
- the wake pack (no query, default 1,200-token budget) over the promoted
  records and the newest sources, as many times as there are queries, the
  first ten not counted (p50/p95).

With ``--on-write``: what background reflection on write costs ``remember``
instead (``benchmarks/_reflect_on_write.py``: p95 with it on over off).

Progress goes to stderr; the figures are one JSON object on stdout.
"""

import argparse
import asyncio
import cProfile
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.index import InProcessIndex
from adapters.surreal.codec import namespace_for as graph_namespace
from adapters.text.sentences import SentencexSegmenter
from application.memory.commands import RememberRequest, SearchRequest
from application.ports.derived import QueryMeaning
from application.reflection.commands import ReflectRequest, ReviewRequest
from application.reflection.derived import DerivedRecall
from application.reflection.expansion import GraphExpansion
from application.retrieval.wake_records import WakeRequest
from application.services import Services
from application.trust.records import PrincipalRecord
from benchmarks._reflect_on_write import run_on_write
from benchmarks._stats import code_version, machine_info, progress, summarize
from benchmarks._wiring import make_services, make_store
from domain.models import Turn
from domain.policy import MemoryPolicyContext, OrgRole, Surface, readable_spaces
from domain.query_terms import meaningful_query
from domain.reflection.candidates import ReviewAction
from domain.reflection.rules import extract_by_rules

__all__ = ["main"]

_BATCH = 200
_CONCURRENCY = 8
_WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi") for b in range(60)]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.reflection", description=__doc__)
    p.add_argument("--sources", type=int, default=1000, help="conversations remembered")
    p.add_argument("--queries", type=int, default=200, help="timed searches, before and after")
    p.add_argument("--store", choices=("surrealkv", "mem"), default="surrealkv")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--on-write", action="store_true", help="remember p95, reflect-on-write on/off")
    p.add_argument("--writes", type=int, default=600, help="--on-write: writes per install")
    p.add_argument("--profile", help="cProfile the timed searches with every derived signal here")
    return p.parse_args(argv)


def _phrase(rng: random.Random, n: int = 4) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _session(i: int, rng: random.Random) -> list[Turn]:
    name = rng.choice(("Maya", "Tom", "Ana", "Ravi"))
    return [
        Turn(role="user", speaker=name, content=f"We decided to go with {_phrase(rng)} for {i}."),
        Turn(role="assistant", content=f"Noted, {_phrase(rng, 6)}."),
        Turn(role="user", speaker=name, content=f"I will write the {_phrase(rng)} guide."),
        Turn(role="user", speaker=name, content=f"I prefer {_phrase(rng, 3)} in the mornings."),
        Turn(role="user", speaker=name, content=f"The review meeting is on 2026-04-0{i % 9 + 1}."),
        Turn(role="assistant", content=f"Thanks with {_phrase(rng, 8)}."),
    ]


async def _ctx(services: Services, who: PrincipalRecord) -> MemoryPolicyContext:
    return await services.access.context_for(who, Surface.CLI, services.audit.new_id())


async def _fill(services: Services, who: PrincipalRecord, n: int, rng: random.Random) -> list[str]:
    sessions = [_session(i, rng) for i in range(n)]
    ids: list[str] = []
    for start in range(0, n, _CONCURRENCY):
        batch = sessions[start : start + _CONCURRENCY]
        contexts = [await _ctx(services, who) for _ in batch]
        done = await asyncio.gather(
            *(
                services.memory.remember(RememberRequest(org_id=who.org_id, turns=turns), ctx)
                for turns, ctx in zip(batch, contexts, strict=True)
            )
        )
        ids += [d.source_id for d in done]
        if len(ids) % 500 < _CONCURRENCY:
            progress(f"  remembered {len(ids)}/{n}")
    return ids


async def _search(
    services: Services, who: PrincipalRecord, query: str, trips: Any
) -> tuple[float, float, int, bytes]:
    """Wall ms, CPU ms (every thread of the process: the embedded engine's too), the
    store round trips of one search, and its whole answer (JSON, to compare arms)."""
    ctx = await _ctx(services, who)
    sent = trips.round_trips
    began, cpu = time.perf_counter(), time.process_time()
    found = await services.memory.search(
        SearchRequest(org_id=who.org_id, query=query, limit=10), ctx
    )
    wall, cpu = (time.perf_counter() - began) * 1000, (time.process_time() - cpu) * 1000
    return wall, cpu, trips.round_trips - sent, msgspec.json.encode(found)


async def _run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    url = f"surrealkv://{data_dir}" if args.store == "surrealkv" else "mem://"
    store = make_store(url)
    services = make_services(store, InProcessIndex(), HashingEmbedder(dimension=384), "bench")
    assert services.reflection is not None and services.review is not None
    await services.open(Surface.CLI)
    try:
        org = await services.control.create_organization("reflect", None, Surface.CLI)
        who = await services.control.create_principal(
            org.org_id, "owner", None, Surface.CLI, org_role=OrgRole.OWNER
        )
        progress(f"remembering {args.sources} conversations ({url})")
        ids = await _fill(services, who, args.sources, rng)
        sources = await store.get_sources(org.org_id, ids)
        split = SentencexSegmenter().sentences
        began = time.perf_counter()
        extracted = sum(
            len(extract_by_rules(s.source_id, s.content, split)) for s in sources.values()
        )
        pure_s = time.perf_counter() - began
        progress("reflecting")
        candidates: list[Any] = []
        began = time.perf_counter()
        for start in range(0, len(ids), _BATCH):
            request = ReflectRequest(org_id=org.org_id, source_ids=ids[start : start + _BATCH])
            result = await services.reflection.reflect(request, await _ctx(services, who))
            candidates += result.candidates
        reflect_s = time.perf_counter() - began
        queries = [_phrase(rng, 2) + " decision" for _ in range(args.queries)]
        decisions = [c for c in candidates if c.type == "decision"][::10]
        # and as many speaker relationships, so graph expansion has edges to walk
        decisions += [c for c in candidates if c.type == "relationship"][::30]
        accepts: list[float] = []
        progress(f"accepting {len(decisions)} decisions and relationships")
        for c in decisions:
            review = ReviewRequest(org_id=org.org_id, candidate_id=c.id, action=ReviewAction.ACCEPT)
            ctx = await _ctx(services, who)
            t0 = time.perf_counter()
            await services.review.review(review, ctx)
            accepts.append((time.perf_counter() - t0) * 1000)
        await services.audit.flush()
        assert services.derived_vectors is not None
        began = time.perf_counter()
        await services.derived_vectors.drain()
        embedded = await services.derived_vectors.catch_up(org.org_id)  # none left: 0
        vectors_s = time.perf_counter() - began
        # the same queries with every derived signal, the same by words only (no vector
        # legs), the entity signal alone (no graph expansion, no relationship facts) and
        # none, interleaved query by query (rotating which goes first) so that machine
        # noise hits every arm alike
        arms: dict[str, list[float]] = {
            "all": [],
            "engine_lexical": [],
            "separate_reads": [],
            "graph_read": [],
            "words": [],
            "entity": [],
            "raw": [],
        }
        cpu: dict[str, list[float]] = {arm: [] for arm in arms}
        trips: dict[str, list[int]] = {arm: [] for arm in arms}
        connection = store.connection  # type: ignore[attr-defined]
        derived = services.recall._derived  # the A/B switch of this benchmark
        assert isinstance(derived, DerivedRecall)
        graph: Any = derived._graph  # the Surreal graph store: its lexical A/B switch
        agreement = await _agreement(services, who, graph, queries)
        entity_only = DerivedRecall(
            store=store,
            graph=derived._graph,
            expansion=GraphExpansion(store=store, graph=derived._graph, hops=0, relations=False),
            by_meaning=False,
        )
        words_only = DerivedRecall(store=store, graph=derived._graph, by_meaning=False)
        choice = {
            "all": derived,
            "engine_lexical": derived,
            "separate_reads": derived,
            "graph_read": derived,
            "words": words_only,
            "entity": entity_only,
            "raw": None,
        }
        order = list(arms)
        profiler = cProfile.Profile() if args.profile else None
        reads = _ReadTrace(connection)
        #: every answer of the two read paths, to check they are the same (both passes)
        answers: dict[str, list[bytes]] = {"all": [], "separate_reads": [], "graph_read": []}
        for n, query in enumerate(queries * 2):
            for arm in order[n % len(order) :] + order[: n % len(order)]:
                services.recall._derived = choice[arm]
                graph.lexical_in_process = arm != "engine_lexical"
                derived.one_read = arm != "separate_reads"
                graph.graph_in_process = arm != "graph_read"
                profiled = profiler is not None and arm == "all" and n >= len(queries)
                traced = arm == "all" and n >= len(queries)
                reads.on = traced
                if profiled:
                    profiler.enable()  # type: ignore[union-attr]
                wall, used, sent, answer = await _search(services, who, query, connection)
                if arm in answers:
                    answers[arm].append(answer)
                if profiled:
                    profiler.disable()  # type: ignore[union-attr]
                reads.on = False
                arms[arm].append(wall)
                cpu[arm].append(used)
                trips[arm].append(sent)
        services.recall._derived = derived
        graph.lexical_in_process = True
        derived.one_read = True
        graph.graph_in_process = True
        lists_alone = await _lists_alone(services, who, derived, queries, connection)
        held_graph = await _held_graph_load(graph, who.org_id)
        if profiler is not None:
            profiler.dump_stats(args.profile)
        timed = len(queries)
        wakes: list[float] = []
        wake_cost: list[tuple[float, int]] = []
        progress(f"waking {len(queries)} times")
        for _ in range(len(queries) + 10):
            ctx = await _ctx(services, who)
            sent, cpu0 = connection.round_trips, time.process_time()
            t0 = time.perf_counter()
            pack = await services.wake.wake(WakeRequest(org_id=org.org_id), ctx)
            wakes.append((time.perf_counter() - t0) * 1000)
            wake_cost.append(((time.process_time() - cpu0) * 1000, connection.round_trips - sent))
        return {
            "benchmark": "reflection",
            "store": args.store,
            "sources": len(ids),
            "extractor_only": {
                "candidates": extracted,
                "seconds": round(pure_s, 3),
                "sources_per_s": round(len(ids) / pure_s, 1),
            },
            "reflect_use_case": {
                "candidates": len(candidates),
                "seconds": round(reflect_s, 3),
                "sources_per_s": round(len(ids) / reflect_s, 1),
                "candidates_per_s": round(len(candidates) / reflect_s, 1),
            },
            "accept": summarize(accepts),
            "search_raw_signals_only": summarize(arms["raw"][len(queries) :]),
            "search_with_entity_signal_only": summarize(arms["entity"][len(queries) :]),
            "search_with_all_derived_signals_by_words": summarize(arms["words"][len(queries) :]),
            "search_with_all_derived_signals": summarize(arms["all"][len(queries) :]),
            "search_with_all_derived_signals_engine_lexical": summarize(
                arms["engine_lexical"][len(queries) :]
            ),
            "search_with_all_derived_signals_separate_reads": summarize(
                arms["separate_reads"][len(queries) :]
            ),
            "search_with_all_derived_signals_graph_read": summarize(
                arms["graph_read"][len(queries) :]
            ),
            "lexical_agreement": agreement,
            # the derived lists alone (DerivedRecall.lists, no pipeline, no ranking), both
            # read paths interleaved: what the derived signals' own reads cost
            "derived_lists_alone": lists_alone,
            # one graph read + one lifecycle read against the separate reads: the whole
            # answer (hits, order, scores, signals, derived records) byte for byte
            "one_read_agreement": {
                "searches": len(answers["all"]),
                "identical": sum(
                    a == b for a, b in zip(answers["all"], answers["separate_reads"], strict=True)
                ),
                "with_derived_hits": sum(b'"derived":[]' not in a for a in answers["all"]),
            },
            # the graph held in process (``all``) against main's one graph read of the engine
            # (``graph_read``), the same process: the whole answer byte for byte
            "held_graph_agreement": {
                "searches": len(answers["all"]),
                "identical": sum(
                    a == b for a, b in zip(answers["all"], answers["graph_read"], strict=True)
                ),
            },
            "held_graph": held_graph,
            # the store reads of one search with every derived signal (timed pass), by
            # operation: how many, the rows they return, their wall ms (awaited side by side)
            "reads_per_search_all": reads.per_search(timed),
            # the timed pass only: CPU is the whole process's (a loaded machine's wall
            # times are noise; CPU and round trips are not)
            "per_search": {  # (timed: the first pass of each arm is its warm-up)
                arm: {
                    "cpu_ms_mean": round(statistics.fmean(cpu[arm][timed:]), 2),
                    "store_round_trips_mean": round(statistics.fmean(trips[arm][timed:]), 2),
                }
                for arm in arms
            },
            "derived_vectors": {"left_after_drain": embedded, "drain_seconds": round(vectors_s, 3)},
            "wake": summarize(wakes[10:]),
            "wake_pack": {
                "items": len(pack.items),
                "tokens": pack.token_count,
                "cpu_ms_mean": round(statistics.fmean(c for c, _ in wake_cost[10:]), 2),
                "store_round_trips_mean": round(statistics.fmean(t for _, t in wake_cost[10:]), 2),
            },
            "machine": machine_info(),
            "code": code_version(),
        }
    finally:
        await services.close()


async def _lists_alone(
    services: Services,
    who: PrincipalRecord,
    derived: DerivedRecall,
    queries: list[str],
    connection: Any,
) -> dict[str, Any]:
    """CPU ms and round trips of ``DerivedRecall.lists`` per query, one read and separate
    reads interleaved, each query's vector made beforehand (timed: the second pass)."""
    cost: dict[str, list[tuple[float, int]]] = {
        "one_read": [],
        "graph_read": [],
        "separate_reads": [],
    }
    graph: Any = derived._graph
    reads = _ReadTrace(connection)  # the one read's two reads, one after the other
    model = services.recall.query_vectors
    space = services.recall._embedder.space.model  # the model the pipeline's meaning names
    for n, query in enumerate(queries * 2):
        vector = await model.vector_for(query)
        for arm in sorted(cost, reverse=n % 2 == 1):
            meaning: asyncio.Future[QueryMeaning | None] = asyncio.Future()
            meaning.set_result(QueryMeaning(vector=vector, model=space))
            ctx = await _ctx(services, who)
            derived.one_read = arm != "separate_reads"
            graph.graph_in_process = arm != "graph_read"
            sent, began = connection.round_trips, time.process_time()
            reads.on = arm == "one_read" and n >= len(queries)
            await derived.lists(who.org_id, query, ctx, meaning=meaning)
            reads.on = False
            if n >= len(queries):
                used = (time.process_time() - began) * 1000
                cost[arm].append((used, connection.round_trips - sent))
    derived.one_read = True
    graph.graph_in_process = True
    found: dict[str, Any] = {
        arm: {
            "cpu_ms_mean": round(statistics.fmean(c for c, _ in seen), 2),
            "cpu_ms_p50": round(statistics.median(c for c, _ in seen), 2),
            "store_round_trips_mean": round(statistics.fmean(t for _, t in seen), 2),
        }
        for arm, seen in cost.items()
    }
    return found | {"one_read_by_read": reads.per_search(len(queries))}


async def _held_graph_load(graph: Any, org_id: str) -> dict[str, Any]:
    """What holding the graph costs: its size, and a whole read of it (CPU ms, 5 times)."""
    namespace = graph_namespace(org_id)
    cold: list[float] = []
    for _ in range(5):
        graph._images.pop(namespace, None)  # as a restart, or another process's write, would
        began = time.process_time()
        image = await graph._image(namespace)
        cold.append((time.process_time() - began) * 1000)
    return {"entities": len(image), "load_cpu_ms_mean": round(statistics.fmean(cold), 2)}


class _ReadTrace:
    """Counts the store reads of chosen searches by operation (wraps the connection's
    ``_query`` on this instance only): calls, rows, wall ms and the process's CPU ms while
    each was awaited (whatever else ran meanwhile included: exact only where nothing did)."""

    def __init__(self, connection: Any) -> None:
        self.on = False
        self._seen: dict[str, list[float]] = {}
        run = connection._query

        async def traced(*a: Any, operation: str, **k: Any) -> list[Any]:
            if not self.on:
                return list(await run(*a, operation=operation, **k))
            began, cpu = time.perf_counter(), time.process_time()
            results = list(await run(*a, operation=operation, **k))
            rows = sum(len(r) if isinstance(r, list) else 1 for r in results)
            seen = self._seen.setdefault(operation, [0.0, 0.0, 0.0, 0.0])
            seen[0] += 1
            seen[1] += rows
            seen[2] += (time.perf_counter() - began) * 1000
            seen[3] += (time.process_time() - cpu) * 1000
            return results

        connection._query = traced

    def per_search(self, searches: int) -> dict[str, dict[str, float]]:
        ordered = sorted(self._seen.items(), key=lambda kv: -kv[1][2])
        return {
            op: {
                "calls": round(c / searches, 2),
                "rows": round(r / searches, 1),
                "wall_ms": round(w / searches, 2),
                "cpu_ms": round(u / searches, 2),
            }
            for op, (c, r, w, u) in ordered
        }


async def _agreement(
    services: Services, who: PrincipalRecord, graph: Any, queries: list[str]
) -> dict[str, Any]:
    """The entity and relationship-fact lists in process and by the engine, query by query
    (as a search asks them: the meaningful words, depth 20, the caller's spaces), and what
    a cold load of the in-process postings costs against one engine search (CPU ms)."""
    visible = readable_spaces(await _ctx(services, who))
    out: dict[str, Any] = {}
    for method in ("entity_lexical", "edge_lexical"):
        same = order_only = scores_only = differ = 0
        examples: list[dict[str, Any]] = []
        engine_cpu: list[float] = []
        for query in queries:
            words = meaningful_query(query)
            graph.lexical_in_process = False
            t0 = time.process_time()
            want = await getattr(graph, method)(who.org_id, words, 20, visible)
            engine_cpu.append((time.process_time() - t0) * 1000)
            graph.lexical_in_process = True
            got = await getattr(graph, method)(who.org_id, words, 20, visible)
            if got == want:
                same += 1
            elif [h.item_id for h in got] == [h.item_id for h in want]:
                scores_only += 1
            elif sorted(h.item_id for h in got) == sorted(h.item_id for h in want):
                order_only += 1
            else:
                differ += 1
                if len(examples) < 3:
                    examples.append({"query": words, "in_process": got[:5], "engine": want[:5]})
        cold: list[float] = []
        for query in queries[:20]:
            graph._graph_changed(graph_namespace(who.org_id))  # as a write would
            t0 = time.process_time()
            await getattr(graph, method)(who.org_id, meaningful_query(query), 20, visible)
            cold.append((time.process_time() - t0) * 1000)
        warm: list[float] = []
        for query in queries:
            t0 = time.process_time()
            await getattr(graph, method)(who.org_id, meaningful_query(query), 20, visible)
            warm.append((time.process_time() - t0) * 1000)
        out[method] = {
            "queries": len(queries),
            "identical": same,
            "same_ids_and_order_other_scores": scores_only,
            "same_ids_other_order": order_only,
            "other_ids": differ,
            "examples": [
                {
                    k: ([(h.item_id, h.score) for h in v] if k != "query" else v)
                    for k, v in e.items()
                }
                for e in examples
            ],
            "cpu_ms_mean_engine_search": round(statistics.fmean(engine_cpu), 3),
            "cpu_ms_mean_in_process_search": round(statistics.fmean(warm), 3),
            "cpu_ms_mean_cold_load_and_search": round(statistics.fmean(cold), 3),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.on_write:
            figures = asyncio.run(run_on_write(args, Path(tmp), _session))
        else:
            figures = asyncio.run(_run(args, Path(tmp) / "data"))
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
