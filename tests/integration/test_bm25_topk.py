"""The lexical legs' top-k (MaxScore, episode postings) equals the full scoring's top-k.

The reference is what the legs computed before: ``Bm25Postings.scores`` and
``group_scores`` over every posting, then ``_OrgIndex.top``. The same ids in
the same order, scores equal within float32 tolerance; an id may differ only
where its score nearly ties another (sums added in another order round
differently).
"""

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.inprocess import bm25_topk
from adapters.inprocess import episode_postings as episodes
from adapters.inprocess.bm25 import Bm25Postings
from adapters.inprocess.footprint import footprint
from adapters.inprocess.index import InProcessIndex, _OrgIndex
from adapters.inprocess.snapshot_format import freeze, read_index, write_files
from application.ports.records import CandidateFilter, IndexEntry
from domain.scopes import MemoryScope

#: a few very common words (as the analyzer keeps stop words) and a longer rare tail
_COMMON = ["the", "i", "what", "was", "to"]
_RARE = [a + b for a in ("bar", "cot", "dim", "fen", "gum", "hox") for b in "kptxzmnl"]
_TOL = 1e-5


def _text(rng: random.Random) -> str:
    words = [rng.choice(_COMMON) for _ in range(rng.randint(0, 8))]
    words += [rng.choice(_RARE[: rng.randint(1, len(_RARE))]) for _ in range(rng.randint(0, 4))]
    rng.shuffle(words)
    return " ".join(words)


def _query(rng: random.Random) -> str:
    picked = rng.sample(_COMMON, rng.randint(0, 3)) + rng.sample(_RARE, rng.randint(0, 3))
    return " ".join(picked + ["absent"] * rng.randint(0, 1))


def _top(rows: np.ndarray, scores: np.ndarray, k: int, size: int) -> list[tuple[str, float]]:
    org = _OrgIndex()
    names = [f"d{n}" for n in range(size)]
    return [(h.item_id, h.score) for h in org.top(rows, scores, k, names)]


def _assert_same(
    want: list[tuple[str, float]], got: list[tuple[str, float]], every: np.ndarray
) -> None:
    assert len(got) == len(want)
    for (want_id, want_score), (got_id, got_score) in zip(want, got, strict=True):
        assert abs(got_score - want_score) <= _TOL * max(1.0, abs(want_score))
        if got_id != want_id:  # only a near-tie may swap
            near = np.abs(every - want_score) <= _TOL * max(1.0, abs(want_score))
            assert int(near.sum()) >= 2, (want, got)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 400), k=st.integers(1, 40))
def test_turn_leg_top_k_equals_the_full_scoring(seed: int, rows: int, k: int) -> None:
    rng = random.Random(seed)
    postings = Bm25Postings()
    postings.extend(0, [_text(rng) for _ in range(rows)])
    live = np.asarray([rng.random() < 0.8 for _ in range(rows)], dtype=bool)
    for _ in range(4):
        query = _query(rng)
        full_rows, full_scores = postings.scores(query, live)
        top_rows, top_scores = postings.top_scores(query, live, k)
        assert set(top_rows.tolist()) <= set(full_rows.tolist())
        want = _top(full_rows, full_scores, k, rows)
        _assert_same(want, _top(top_rows, top_scores, k, rows), full_scores)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 400),
    k=st.integers(1, 40),
    completed=st.sampled_from([1, 3, 2048]),
    retry=st.sampled_from([1.0, 1.25, 100.0]),
)
def test_turn_leg_top_k_holds_whenever_the_cut_is_tried(
    seed: int, rows: int, k: int, completed: int, retry: float
) -> None:
    """The cut asked before every term (no cost gate) and the k-th best taken from a
    few or many completed candidates, tried again rarely or always: the same top k."""
    rng = random.Random(seed)
    postings = Bm25Postings()
    postings.extend(0, [_text(rng) for _ in range(rows)])
    live = np.asarray([rng.random() < 0.8 for _ in range(rows)], dtype=bool)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bm25_topk, "_CHECK_GAIN", 0)
        patch.setattr(bm25_topk, "_COMPLETED", completed)
        patch.setattr(bm25_topk, "_RETRY_WITHIN", retry)
        for _ in range(4):
            query = _query(rng)
            full_rows, full_scores = postings.scores(query, live)
            top_rows, top_scores = postings.top_scores(query, live, k)
            assert set(top_rows.tolist()) <= set(full_rows.tolist())
            want = _top(full_rows, full_scores, k, rows)
            _assert_same(want, _top(top_rows, top_scores, k, rows), full_scores)


def test_the_cut_skips_common_terms_once_completed_candidates_outscore_them() -> None:
    """A rare term's documents that also hold the commoner ones set the k-th best above
    what the commoner terms alone can add, though the rare term's own score does not:
    the commoner terms' postings are then never scored in full (the k-th best of the
    partial scores left every one of them scored: 2,288 documents gathered here)."""
    rng = random.Random(1)
    rows = ["cotk aa bb cc dd"] * 40
    for _ in range(3000):
        words = [w for w in ("aa", "bb", "cc", "dd") if rng.random() < 0.3]
        rows.append(" ".join(words + ["the"] * rng.randint(3, 9)))
    postings = Bm25Postings()
    postings.extend(0, rows)
    live = np.ones(len(rows), dtype=bool)
    top_rows, top_scores = postings.top_scores("cotk aa bb cc dd", live, 10)
    assert len(top_rows) == 40  # the rare term's documents only
    full_rows, full_scores = postings.scores("cotk aa bb cc dd", live)
    want = _top(full_rows, full_scores, 10, len(rows))
    _assert_same(want, _top(top_rows, top_scores, 10, len(rows)), full_scores)


def _episode_corpus(
    rng: random.Random, rows: int, built_share: float
) -> tuple[Bm25Postings, np.ndarray, int, int]:
    """Rows in episodes of 1-4 rows; after ``built_share`` of them, later rows are
    appended to old episodes or open new ones. Returns (postings, groups, n_groups,
    rows at the build)."""
    postings = Bm25Postings()
    groups: list[int] = []
    n_groups = 0
    built_at = max(1, int(rows * built_share))
    while len(groups) < rows:
        if len(groups) >= built_at and n_groups and rng.random() < 0.4:
            groups.append(rng.randrange(n_groups))  # a later write to an older episode
            continue
        size = rng.randint(1, 4)
        groups += [n_groups] * size
        n_groups += 1
    groups = groups[:rows]
    n_groups = max(groups) + 1
    postings.extend(0, [_text(rng) for _ in range(rows)])
    return postings, np.asarray(groups, dtype=np.int64), n_groups, built_at


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 400),
    k=st.integers(1, 30),
    built_share=st.sampled_from([1.0, 0.97, 0.6]),
    hidden=st.sampled_from([0.0, 0.02, 0.3]),
)
def test_episode_leg_top_k_equals_the_full_scoring(
    seed: int, rows: int, k: int, built_share: float, hidden: float
) -> None:
    rng = random.Random(seed)
    postings, groups, n_groups, built_at = _episode_corpus(rng, rows, built_share)
    # rows closed at the build (removed, replaced, withheld; some reopen later)
    counted = np.asarray([rng.random() >= hidden for _ in range(built_at)], dtype=bool)
    built = episodes.build(postings.parts(), groups[:built_at].copy(), n_groups, counted)
    # hidden rows: removed sources (whole episodes) and single rows out of a filter
    live = np.ones(rows, dtype=bool)
    for g in range(n_groups):
        if rng.random() < hidden:
            live[groups == g] = False
    live &= np.asarray([rng.random() >= hidden for _ in range(rows)], dtype=bool)
    stats = postings.group_stats(live, groups, n_groups)
    if stats is None:
        return
    # any share of partly admitted rows (the index declines past 5 %, tested below)
    plan = episodes.plan(built, live, groups, n_groups, stats[1], partial_share=1.0)
    assert plan is not None
    for _ in range(4):
        query = _query(rng)
        full_groups, full_scores = postings.group_scores(query, live, groups, n_groups, stats)
        got_groups, got_scores = episodes.top_group_plan(
            postings, built, plan, query, groups, stats, k
        )()
        want = _top(full_groups, full_scores, k, n_groups)
        _assert_same(want, _top(got_groups, got_scores, k, n_groups), full_scores)


def test_a_plan_declines_where_many_episodes_are_partly_admitted() -> None:
    rng = random.Random(3)
    postings, groups, n_groups, _ = _episode_corpus(rng, 400, 1.0)
    built = episodes.build(postings.parts(), groups.copy(), n_groups)
    live = np.arange(400) % 3 != 0  # a row in three hidden: most episodes partly admitted
    stats = postings.group_stats(live, groups, n_groups)
    assert stats is not None
    assert episodes.plan(built, live, groups, n_groups, stats[1]) is None
    assert episodes.plan(built, live, groups, n_groups, stats[1], partial_share=1.0) is not None
    # rows written since the build never count against it (each term's tail)
    later = episodes.build(postings.parts(), groups[:100].copy(), n_groups)
    every = np.ones(400, dtype=bool)
    assert episodes.plan(later, every, groups, n_groups, stats[1]) is not None


def test_the_build_sums_tf_over_an_episodes_rows_wherever_they_lie() -> None:
    postings = Bm25Postings()
    postings.extend(0, ["cat cat dog", "dog", "cat", "cat bird"])
    groups = np.asarray([0, 1, 0, 1], dtype=np.int64)  # episode 0: rows 0 and 2
    built = episodes.build(postings.parts(), groups, 2)
    found = built.posting("cat")
    assert found is not None
    assert found[0].tolist() == [0, 1] and found[1].tolist() == [3.0, 1.0] and found[2] == 3.0
    assert built.counts.tolist() == [2, 2]


ALL = CandidateFilter()


def _entries(rng: random.Random, n: int, start: int = 0) -> list[IndexEntry]:
    return [
        IndexEntry(
            chunk_id=f"c{start + i}",
            source_id=f"s{(start + i) // 3}",
            text=_text(rng),
            vector=[1.0, float(i % 7)],
            scope=MemoryScope.PRIVATE,
            scope_key=None,
            turn_index=i % 3,
        )
        for i in range(n)
    ]


async def _reference(index: InProcessIndex, query: str, k: int) -> list[tuple[str, float]]:
    org = index._orgs["o"]
    live = org.live(ALL)
    codes, n = org.source_codes[: org.size], len(org.source_ids)
    groups, scores = org.lexical.group_scores(query, live, codes, n)
    return [(h.item_id, h.score) for h in org.top(groups, scores, k, org.source_ids)]


async def test_a_restored_index_without_episode_postings_serves_the_same(tmp_path: Path) -> None:
    """A format-2 snapshot holds no episode postings: they are derived after the open."""
    rng = random.Random(11)
    index = InProcessIndex()
    await index.add("o", _entries(rng, 600))
    org = index._orgs["o"]
    write_files(freeze(org), tmp_path)
    restored = InProcessIndex()
    restored._orgs["o"] = read_index(tmp_path)
    assert restored._orgs["o"].episodes.postings is None
    restored._orgs["o"].episodes.min_rows = 0  # as past 20k rows, built at once here
    restored._orgs["o"].episodes.sync_below = 1 << 30
    for query in ("the what barm", "cotk i", "absent"):
        hits = await restored.episode_lexical("o", query, 10, ALL)
        got = [(h.item_id, h.score) for h in hits]
        want = await _reference(restored, query, 10)
        scores = np.asarray([s for _, s in want] or [0.0])
        _assert_same(want, got, scores)
    assert restored._orgs["o"].episodes.postings is not None
    assert footprint(restored._orgs["o"])["episode_lexical"] > 0  # counted as held memory
    # a later write to an old episode and a new one: served from the row postings
    await restored.add("o", _entries(rng, 4, start=600))
    hits = await restored.episode_lexical("o", "the barm cotk", 10, ALL)
    want = await _reference(restored, "the barm cotk", 10)
    _assert_same(want, [(h.item_id, h.score) for h in hits], np.asarray([s for _, s in want]))


async def test_a_background_build_serves_the_row_postings_until_it_lands() -> None:
    rng = random.Random(12)
    index = InProcessIndex()
    await index.add("o", _entries(rng, 300))
    org = index._orgs["o"]
    await index.episode_lexical("o", "the barm", 10, ALL)
    assert org.episodes.postings is None  # below 20k rows the row postings serve
    org.episodes.min_rows = 0  # as at scale: the build runs in a thread
    first = await index.episode_lexical("o", "the barm", 10, ALL)
    org.episodes.wait(30)
    assert org.episodes.postings is not None and org.episodes.postings.rows == 300
    again = await index.episode_lexical("o", "the barm", 10, ALL)
    want = await _reference(index, "the barm", 10)
    scores = np.asarray([s for _, s in want])
    _assert_same(want, [(h.item_id, h.score) for h in first], scores)
    _assert_same(want, [(h.item_id, h.score) for h in again], scores)


async def test_the_index_answers_as_the_full_scoring_through_writes() -> None:
    """Removals, re-indexed chunks, lifecycle changes and later rows of old episodes."""
    from domain.lifecycle import RECALL_CLOSED, RECALL_OPEN
    from domain.scopes import LifecycleState

    rng = random.Random(21)
    index = InProcessIndex()
    await index.add("o", _entries(rng, 900))
    org = index._orgs["o"]
    org.episodes.min_rows, org.episodes.sync_below = 0, 1 << 30
    queries = ["the barm cotk", "what i dimp", "fenx gumk hoxl the", "absent the"]

    async def check() -> None:
        for query in queries:
            hits = await index.episode_lexical("o", query, 7, ALL)
            want = await _reference(index, query, 7)
            every = np.asarray([s for _, s in want] or [0.0])
            _assert_same(want, [(h.item_id, h.score) for h in hits], every)
            live = org.live(ALL)
            rows, scores = org.lexical.scores(query, live)
            want = [(h.item_id, h.score) for h in org.top(rows, scores, 25)]
            got = [(h.item_id, h.score) for h in await index.lexical("o", query, 25, ALL)]
            _assert_same(want, got, scores)

    await check()
    assert org.episodes.postings is not None
    await index.remove("o", "s4")
    await index.update("o", "s7", LifecycleState.HIDDEN, RECALL_CLOSED)
    await check()
    await index.update("o", "s7", LifecycleState.ACTIVE, RECALL_OPEN)
    reindexed = _entries(rng, 1, start=30)  # chunk c30 of s10 again: its old row closes
    await index.add("o", reindexed)
    later = [  # new rows of old episodes, past the build
        IndexEntry(
            chunk_id=f"late{n}",
            source_id=f"s{n * 5}",
            text=_text(rng),
            vector=[1.0, 0.0],
            scope=MemoryScope.PRIVATE,
            scope_key=None,
        )
        for n in range(6)
    ]
    await index.add("o", later)
    await check()


def test_a_planned_turn_leg_answers_for_the_rows_it_was_planned_on() -> None:
    # the kernel runs on a worker thread while writes land on the loop: rows appended
    # after the plan, even ones holding the query's terms, never reach its answer
    rng = random.Random(11)
    postings = Bm25Postings()
    postings.extend(0, [_text(rng) for _ in range(300)])
    live = np.ones(300, dtype=bool)
    query = "the barn cotk"
    want = postings.top_scores(query, live, 10)
    kernel = postings.top_plan(query, live, 10)
    postings.extend(300, ["barn cotk barn cotk the"] * 80)  # folds the terms' tails
    got = kernel()
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert got[0].max() < 300
    # and the same postings planned now do see the new rows
    after = postings.top_scores(query, np.ones(380, dtype=bool), 10)
    assert after[0].max() >= 300


def test_a_planned_episode_leg_answers_for_the_rows_it_was_planned_on() -> None:
    rng = random.Random(5)
    postings, groups, n_groups, _ = _episode_corpus(rng, 300, 1.0)
    built = episodes.build(postings.parts(), groups.copy(), n_groups)
    live = np.ones(300, dtype=bool)
    stats = postings.group_stats(live, groups, n_groups)
    assert stats is not None
    plan = episodes.plan(built, live, groups, n_groups, stats[1], partial_share=1.0)
    assert plan is not None
    query = "the barn cotk"
    want = episodes.top_group_plan(postings, built, plan, query, groups, stats, 10)()
    kernel = episodes.top_group_plan(postings, built, plan, query, groups, stats, 10)
    postings.extend(300, ["barn cotk barn cotk"] * 80)  # later rows of the first episode
    got = kernel()
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), share=st.sampled_from([0.01, 0.2, 0.9]))
def test_a_dense_lookup_finds_the_same_rows_and_tfs_as_the_binary_search(
    seed: int, share: float
) -> None:
    rng = np.random.default_rng(seed)
    size = 2_000
    docs = np.sort(rng.choice(size, int(size * share) + 1, replace=False)).astype(np.int32)
    term = bm25_topk.TermPostings(docs, rng.integers(1, 6, len(docs)).astype(np.float32), 1.0, 5.0)
    wanted = np.sort(rng.choice(size, 300, replace=False)).astype(np.int64)
    usable = rng.random(size) > 0.3
    for rows_usable in (None, usable):
        hit, pos = bm25_topk._lookup(term, wanted, rows_usable)
        dense_rows, dense_tfs = bm25_topk._found(term, wanted, rows_usable, size)
        assert np.array_equal(dense_rows, wanted[hit])
        assert np.array_equal(dense_tfs, term.tfs[pos[hit]])
