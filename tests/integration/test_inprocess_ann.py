"""The in-process index's approximate vector leg (a faiss inverted file) and its caches.

The index is forced on from the first row (``_FORCED``) so small sets go
through it; there its few lists are all read, so the answers must equal the
exact scan's; filters must hold inside the search, and no write may leave a
cached mask, product or index answering for rows as they were before it.
Past that, an index of 64 lists reading a few of them (``_partial``) must
keep the filter, read the lists its rule says, and hand a query it cannot
fill to the exact scan.
"""

from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess import index as index_module
from adapters.inprocess.ann import AnnPolicy, VectorGraph, lists_for, probes_for
from adapters.inprocess.graph_retrain import retrain_reason
from adapters.inprocess.index import InProcessIndex
from application.ports import MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter, IndexEntry, ScopeRef
from contracts.retrieval_index import RetrievalIndexContract
from domain.lifecycle import RECALL_CLOSED, RECALL_OPEN
from domain.scopes import LifecycleState, MemoryScope

ORG = "org-ann"
_FORCED = AnnPolicy(min_rows=0, exact_rows=0, min_share=0.0)
SPACES = [ScopeRef(MemoryScope.TEAM, f"t{n}") for n in range(4)]
DIM = 16


class TestInProcessIndexWithGraph(RetrievalIndexContract):
    """The whole index contract with every vector query walking the graph."""

    @pytest.fixture
    async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
        store = InMemoryMemoryStore()
        yield store, InProcessIndex(_FORCED)
        await store.close()


def _vectors(count: int, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(count, DIM)).astype(np.float32)
    unit: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return unit


def _entry(n: int, vector: np.ndarray | None, source: str | None = None) -> IndexEntry:
    space = SPACES[n % len(SPACES)]
    return IndexEntry(
        chunk_id=f"c{n}",
        source_id=source or f"s{n // 2}",
        text=f"turn {n}",
        vector=None if vector is None else vector.tolist(),
        scope=space.scope,
        scope_key=space.scope_key,
        turn_index=n % 2,
    )


async def _pair(count: int) -> tuple[InProcessIndex, InProcessIndex, np.ndarray]:
    matrix = _vectors(count)
    graph, exact = InProcessIndex(_FORCED), InProcessIndex(None)
    entries = [_entry(n, matrix[n]) for n in range(count)]
    for index in (graph, exact):
        for start in range(0, count, 500):  # several writes: the graph grows with them
            await index.add(ORG, entries[start : start + 500])
    return graph, exact, matrix


FILTERS = [
    CandidateFilter(visible=None),
    CandidateFilter(visible=frozenset(SPACES[:3])),
    CandidateFilter(visible=frozenset(SPACES[1:2])),
]


@pytest.mark.parametrize("where", FILTERS)
async def test_graph_answers_equal_the_exact_scan_with_filters(where: CandidateFilter) -> None:
    graph, exact, _ = await _pair(2000)
    built = graph._orgs[ORG].graph  # the walk, not a fallback, is under test
    assert built is not None and built.labelled == 2000
    for query in _vectors(25, seed=9):
        probe = query.tolist()
        want = await exact.vector(ORG, probe, 10, where)
        got = await graph.vector(ORG, probe, 10, where)
        # the walk scores with the graph's f16 copy of the vectors (~1e-4 from the f32
        # cosine): each place holds a row whose exact score is the exact list's there, so
        # only rows closer than that may trade places
        exact_of = {h.item_id: h.score for h in await exact.vector(ORG, probe, 40, where)}
        assert [exact_of[h.item_id] for h in got] == pytest.approx(
            [h.score for h in want], abs=1e-3
        )
        assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-3)
        want_ep = await exact.episode_vector(ORG, probe, 5, where)
        got_ep = await graph.episode_vector(ORG, probe, 5, where)
        exact_ep = {h.item_id: h.score for h in await exact.episode_vector(ORG, probe, 40, where)}
        assert [exact_ep[h.item_id] for h in got_ep] == pytest.approx(
            [h.score for h in want_ep], abs=1e-3
        )


async def test_a_graph_hit_outside_the_filter_never_returns() -> None:
    graph, _, matrix = await _pair(1000)
    where = CandidateFilter(visible=frozenset(SPACES[:1]))
    allowed = {f"c{n}" for n in range(1000) if n % len(SPACES) == 0}
    for n in range(1, 40, 3):  # each query is a row of a space the reader cannot see
        hits = await graph.vector(ORG, matrix[n].tolist(), 10, where)
        assert hits and {h.item_id for h in hits} <= allowed


async def test_removed_and_hidden_rows_never_return_even_after_a_cached_search() -> None:
    graph, _, matrix = await _pair(1000)
    where = CandidateFilter(visible=None)
    probe = matrix[10].tolist()
    assert (await graph.vector(ORG, probe, 1, where))[0].item_id == "c10"  # warms the caches
    await graph.remove(ORG, "s5")  # rows 10 and 11
    hits = await graph.vector(ORG, probe, 50, where)
    assert not {"c10", "c11"} & {h.item_id for h in hits}
    assert "s5" not in {h.item_id for h in await graph.episode_vector(ORG, probe, 50, where)}
    probe = matrix[20].tolist()
    assert (await graph.vector(ORG, probe, 1, where))[0].item_id == "c20"
    await graph.update(ORG, "s10", LifecycleState.HIDDEN, RECALL_CLOSED)
    assert "c20" not in {h.item_id for h in await graph.vector(ORG, probe, 50, where)}
    await graph.update(ORG, "s10", LifecycleState.ACTIVE, RECALL_OPEN)
    assert (await graph.vector(ORG, probe, 1, where))[0].item_id == "c20"


async def test_rows_waiting_for_a_vector_join_when_it_arrives() -> None:
    graph, _, _ = await _pair(600)
    fresh = _vectors(3, seed=21)
    # a pending row, then rows after it: the graph stops before the pending row
    await graph.add(ORG, [_entry(600, None, "late"), _entry(601, fresh[1], "late2")])
    where = CandidateFilter(visible=None)
    assert "c600" not in {h.item_id for h in await graph.vector(ORG, fresh[0].tolist(), 50, where)}
    assert (await graph.vector(ORG, fresh[1].tolist(), 1, where))[0].item_id == "c601"
    await graph.attach_vectors(ORG, {"c600": fresh[0].tolist()})
    assert (await graph.vector(ORG, fresh[0].tolist(), 1, where))[0].item_id == "c600"


async def test_a_row_whose_vector_changes_answers_with_the_new_one() -> None:
    graph, exact, matrix = await _pair(600)
    moved = _vectors(1, seed=33)[0]
    for index in (graph, exact):
        await index.attach_vectors(ORG, {"c7": moved.tolist()})
    where = CandidateFilter(visible=None)
    got = await graph.vector(ORG, moved.tolist(), 5, where)
    want = await exact.vector(ORG, moved.tolist(), 5, where)
    assert got[0].item_id == "c7" and got[0].score == pytest.approx(1.0, abs=1e-5)
    assert [h.item_id for h in got] == [h.item_id for h in want]
    old = await graph.vector(ORG, matrix[7].tolist(), 5, where)
    assert old[0].item_id != "c7" or old[0].score < 0.999


async def test_the_heap_is_trimmed_once_so_many_rows_were_appended_to_a_graph(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Appending to faiss's lists moves each full one to a buffer twice its size and
    frees the old one to the allocator, which keeps it; the index hands those pages back
    every ``_TRIM_AFTER_ROWS`` rows appended, not at every write, nor after a first fill
    (each list allocated at its size)."""
    trims: list[int] = []
    monkeypatch.setattr(index_module, "_release_heap_soon", lambda: trims.append(1))
    monkeypatch.setattr(index_module, "_TRIM_AFTER_ROWS", 1000)
    matrix = _vectors(3000)
    index = InProcessIndex(_FORCED)
    await index.add(ORG, [_entry(n, matrix[n]) for n in range(600)])
    assert trims == []
    counts = []
    for start in range(600, 3000, 300):
        await index.add(ORG, [_entry(n, matrix[n]) for n in range(start, start + 300)])
        counts.append(len(trims))
    # 300 rows a write: 1,200 appended by the 4th write, 1,200 more since by the 8th
    assert counts == [0, 0, 0, 1, 1, 1, 1, 2]


async def test_below_the_threshold_no_graph_is_built() -> None:
    index = InProcessIndex(AnnPolicy(min_rows=500))
    matrix = _vectors(499)
    await index.add(ORG, [_entry(n, matrix[n]) for n in range(499)])
    assert index._orgs[ORG].graph is None
    await index.add(ORG, [_entry(499, matrix[0])])
    assert index._orgs[ORG].graph is not None


async def test_top_k_is_the_prefix_of_a_deeper_list_when_scores_tie() -> None:
    index = InProcessIndex(None)
    same = _vectors(1)[0]
    await index.add(ORG, [_entry(n, same) for n in range(12)])
    where = CandidateFilter(visible=None)
    deep = [h.item_id for h in await index.vector(ORG, same.tolist(), 12, where)]
    for k in range(1, 12):
        assert [h.item_id for h in await index.vector(ORG, same.tolist(), k, where)] == deep[:k]
    assert deep == [f"c{n}" for n in range(12)]  # ties: the older row first


def test_lists_grow_with_the_square_root_of_the_training_rows() -> None:
    assert [lists_for(n) for n in (0, 99, 100, 6_000, 50_000, 1_000_000, 10**8)] == [
        1,
        1,
        2,
        64,
        512,
        4096,
        4096,
    ]
    for rows in (150, 3_000, 77_777, 400_000):
        lists = lists_for(rows)
        assert lists & (lists - 1) == 0  # a power of two
        assert rows / lists >= 50  # faiss's k-means wants >= 39 rows a list


def test_an_index_with_fewer_lists_reads_the_same_share_of_them() -> None:
    assert lists_for(1_000_000) == 4096
    assert probes_for(256, 4096, 1_000_000) == 256  # this release's lists: as asked
    assert probes_for(256, 2048, 1_000_000) == 128  # an earlier release's: the same share
    assert lists_for(50_000) == 512  # 1,024 would train on fewer than 50 rows a list
    assert probes_for(256, 512, 50_000) == 128  # so a quarter of them, as before
    assert probes_for(10_000, 64, 6_000) == 64  # never more lists than there are
    assert probes_for(1, 2048, 1_000_000) == 1  # and at least one


def test_a_restored_index_is_retrained_when_its_lists_no_longer_fit_its_rows() -> None:
    assert retrain_reason(4096, 1_000_000, 1_000_000) == ""  # this release's, at its rows
    assert retrain_reason(4096, 1_000_000, 3_999_999) == ""
    assert "trained on 1000000 of its 4000000" in retrain_reason(4096, 1_000_000, 4_000_000)
    # an earlier release's coarser lists (2,048 at 1M rows), at no growth at all
    assert "2048 lists where this release makes 4096" in retrain_reason(2048, 1_000_000, 1_000_000)
    assert retrain_reason(512, 50_000, 199_999) == ""  # 512 is what 50k rows make
    assert retrain_reason(512, 50_000, 200_000) != ""
    assert retrain_reason(1, 60, 200) == ""  # tiny: one list is all there is to make


def _clustered(count: int, clusters: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, DIM))
    matrix = centres[rng.integers(0, clusters, count)] + 0.3 * rng.normal(size=(count, DIM))
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


async def _partial(probes: int) -> tuple[InProcessIndex, InProcessIndex]:
    """6,000 clustered rows; the inverted file (made at 6,000: 64 lists, a quarter of the
    256 that 4 x sqrt(6,000) would give) reads a quarter of ``probes``."""
    matrix = _clustered(6000, 60, seed=5)
    policy = AnnPolicy(min_rows=6000, exact_rows=0, min_share=0.0, probes=probes)
    partial, exact = InProcessIndex(policy), InProcessIndex(None)
    entries = [_entry(n, matrix[n]) for n in range(len(matrix))]
    for index in (partial, exact):
        await index.add(ORG, entries)
    graph = partial._orgs[ORG].graph
    assert graph is not None and graph.lists == 64 and graph.trained_rows == 6000
    return partial, exact


@pytest.mark.parametrize(("where", "lists_read"), list(zip(FILTERS, [4, 6, 16], strict=True)))
async def test_a_search_reads_a_few_lists_keeps_the_filter_and_finds_the_nearest(
    where: CandidateFilter, lists_read: int
) -> None:
    import faiss

    partial, exact = await _partial(probes=16)
    space_of = {f"c{n}": SPACES[n % len(SPACES)] for n in range(6000)}
    found: list[float] = []
    stats = faiss.cvar.indexIVF_stats
    for query in _clustered(40, 60, seed=5):  # near the rows' own clusters
        partial._orgs[ORG].cache.invalidate()
        stats.reset()
        got = await partial.vector(ORG, query.tolist(), 10, where)
        # 4 lists of 64 for an open search; a filter admitting a share s reads 4 / s
        assert (stats.nq, stats.nlist) == (1, lists_read)
        want = await exact.vector(ORG, query.tolist(), 10, where)
        assert len(got) == 10
        assert where.visible is None or all(space_of[h.item_id] in where.visible for h in got)
        found.append(len({h.item_id for h in got} & {h.item_id for h in want}) / 10)
    assert float(np.mean(found)) >= 0.95


async def test_a_filter_admitting_a_share_of_the_rows_reads_that_many_more_lists() -> None:
    partial, _ = await _partial(probes=16)
    graph = partial._orgs[ORG].graph
    assert graph is not None
    assert [graph.lists_read(share) for share in (1.0, 0.5, 0.25, 0.01)] == [4, 8, 16, 64]


async def test_lists_holding_too_few_admitted_rows_hand_the_query_to_the_exact_scan() -> None:
    partial, exact = await _partial(probes=4)  # one list: ~94 rows, 400 asked
    where = CandidateFilter(visible=None)
    for query in _clustered(5, 60, seed=8):
        got = await partial.vector(ORG, query.tolist(), 400, where)
        want = await exact.vector(ORG, query.tolist(), 400, where)
        assert [h.item_id for h in got] == [h.item_id for h in want]


async def test_the_turn_and_episode_vector_legs_of_a_query_share_one_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    graph, _, _ = await _pair(2000)
    fresh, _, _ = await _pair(2000)
    built = graph._orgs[ORG].graph
    assert built is not None
    walks: list[int] = []
    real = built.nearest

    def counted(*args: Any) -> Any:
        walks.append(1)
        return real(*args)

    monkeypatch.setattr(built, "nearest", counted)
    where = CandidateFilter(visible=frozenset(SPACES[:3]))
    for n, query in enumerate(_vectors(10, seed=5)):
        probe = query.tolist()
        turns = await graph.vector(ORG, probe, 10, where)
        episodes = await graph.episode_vector(ORG, probe, 5, where)
        assert len(walks) == n + 1  # the episode leg reused the turn leg's walk
        # the same answers whichever leg walked first
        assert episodes == await fresh.episode_vector(ORG, probe, 5, where)
        assert turns == await fresh.vector(ORG, probe, 10, where)
    await graph.remove(ORG, "s3")  # a write drops the kept walks
    probe = _vectors(10, seed=5)[0].tolist()
    before = len(walks)
    await graph.vector(ORG, probe, 10, where)
    assert len(walks) == before + 1


def test_the_first_training_skips_a_removed_row_past_a_waiting_one() -> None:
    """Rows 0-4 with vectors, row 5 waiting for its vector, row 8 removed: the index
    trains on rows 0-4 and stops before row 5 (found by tests/integration/
    test_cache_follow.py: the removed row was marked outside the training rows)."""
    vectors = np.random.default_rng(1).normal(size=(10, 4)).astype(np.float32)
    has_vector = np.ones(10, dtype=bool)
    has_vector[[5, 8]] = False
    graph = VectorGraph(4, AnnPolicy(min_rows=1))
    graph.extend(vectors, has_vector, 10, removed={8})
    assert graph.labelled == 5
    assert graph.trained_rows == 5


def test_the_first_fill_lays_out_the_lists_as_faiss_add_would() -> None:
    """``_fill`` (each list allocated once) against faiss's own ``add`` on the same lists:
    the same rows in each list, in the same order, with the same codes; a removed row's
    codes zero either way."""
    import faiss

    matrix = _clustered(6000, 60, seed=9)
    has = np.ones(len(matrix), dtype=bool)
    removed = [5, 77, 4096, 5999]
    graph = VectorGraph(DIM, _FORCED)
    graph.extend(matrix, has, len(matrix), removed)
    built = graph.native
    reference = faiss.clone_index(built)
    reference.reset()  # the same trained lists, empty
    rows = matrix.copy()
    rows[removed] = 0.0
    reference.add(rows)
    assert int(built.ntotal) == int(reference.ntotal) == len(matrix) and built.nlist > 1
    for number in range(int(built.nlist)):
        size = int(built.invlists.list_size(number))
        assert size == int(reference.invlists.list_size(number))
        if size:
            ids = faiss.rev_swig_ptr(built.invlists.get_ids(number), size)
            want = faiss.rev_swig_ptr(reference.invlists.get_ids(number), size)
            assert np.array_equal(ids, want)
            codes = faiss.rev_swig_ptr(built.invlists.get_codes(number), size * built.code_size)
            same = faiss.rev_swig_ptr(reference.invlists.get_codes(number), size * built.code_size)
            assert np.array_equal(codes, same)
    held = built.reconstruct_batch(np.arange(len(matrix), dtype=np.int64))  # the direct map
    assert not held[removed].any()
    kept = np.setdiff1d(np.arange(len(matrix)), removed)
    assert np.allclose(held[kept], matrix[kept], atol=1e-3)
